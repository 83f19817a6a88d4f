// The folded patterns as a graph over code points: a trie with equal subtrees merged, so
// that `ali` + (any of 25 separators) + `cloud` shares one `cloud` instead of 25.

export interface GraphNode {
  readonly final: boolean;
  readonly edges: ReadonlyMap<number, number>;
}

/** Node 0 is the root. Patterns are arrays of code points, none empty. */
export function patternGraph(patterns: readonly (readonly number[])[]): GraphNode[] {
  const trie: { final: boolean; edges: Map<number, number> }[] = [{ final: false, edges: new Map() }];
  for (const p of patterns) {
    let n = 0;
    for (const c of p) {
      let next = trie[n]!.edges.get(c);
      if (next === undefined) {
        next = trie.length;
        trie.push({ final: false, edges: new Map() });
        trie[n]!.edges.set(c, next);
      }
      n = next;
    }
    trie[n]!.final = true;
  }
  // Bottom-up: a node's signature is its finality and its edges to already merged children.
  const merged: GraphNode[] = [];
  const bySignature = new Map<string, number>();
  const canonical = new Int32Array(trie.length).fill(-1);
  const order: number[] = [];
  const stack: [number, boolean][] = [[0, false]];
  while (stack.length > 0) {
    const [n, done] = stack.pop()!;
    if (done) {
      order.push(n);
      continue;
    }
    stack.push([n, true]);
    for (const child of trie[n]!.edges.values()) stack.push([child, false]);
  }
  // The root is last in post-order; place it first by renumbering at the end.
  for (const n of order) {
    const edges = new Map<number, number>();
    for (const [c, child] of [...trie[n]!.edges].sort((x, y) => x[0] - y[0])) edges.set(c, canonical[child]!);
    const signature = (trie[n]!.final ? 'F' : 'N') + [...edges].map(([c, m]) => `${c}:${m}`).join(',');
    let id = n === 0 ? undefined : bySignature.get(signature);
    if (id === undefined) {
      id = merged.length;
      merged.push({ final: trie[n]!.final, edges });
      if (n !== 0) bySignature.set(signature, id);
    }
    canonical[n] = id;
  }
  // Renumber so the root is 0.
  const root = canonical[0]!;
  const renumber = (id: number) => (id === root ? 0 : id < root ? id + 1 : id);
  const out: GraphNode[] = new Array(merged.length);
  merged.forEach((node, id) => {
    out[renumber(id)] = { final: node.final, edges: new Map([...node.edges].map(([c, m]) => [c, renumber(m)])) };
  });
  return out;
}
