// Compiles folded patterns (fold: 'nfkc') into the same tables as compile/dfa.ts: every
// code point whose fold spells part of a pattern becomes a UTF-8 byte path of the NFA, so the
// text is never normalised. Per pattern-graph node:
//  - a code point whose fold walks the graph from that node moves to where the walk ends;
//  - if the walk passes a pattern's end inside the fold (`℡` for `tel`), the match ends there;
//  - at the root, a walk may also start inside a fold (`ﬁ` for a pattern starting with `i`);
//  - between pattern characters, default-ignorable code points (fold '') loop.
// Then subset construction to a byte DFA, and prefilter tables read off the DFA itself, so
// they admit every byte string the DFA can start a match with (sound by construction).
import type { Automaton } from '../compile/dfa.js';
import { determinize, packDfa } from '../compile/subsets.js';
import { type ByteTree, byteTree, LOOP, mergeTrees } from './byte-tree.js';
import { patternGraph } from './graph.js';
import { startSetFromDfa, teddyFromDfa } from './prefilter.js';
import { foldData } from './unicode.js';

const utf8 = new TextEncoder();

/** Code point transitions of every graph node (and the extra states), as an NFA over bytes. */
function byteNfa(patterns: readonly string[]): { accept: boolean[]; edges: Map<number, number[]>[] } {
  const { folds } = foldData();
  const graph = patternGraph(patterns.map((p) => Array.from(p, (c) => c.codePointAt(0)!)));
  const g = graph.length;
  // Char states: graph nodes, then a non-accepting twin of each final node with edges (where
  // an ignorable after a complete pattern leads: the match may go on, but does not end
  // there), then END (a pattern ended inside the last code point's fold).
  const twin = new Int32Array(g).fill(-1);
  let count = g;
  graph.forEach((node, n) => {
    if (node.final && node.edges.size > 0) twin[n] = count++;
  });
  const END = count++;
  const accept: boolean[] = [];
  const edges: Map<number, number[]>[] = [];
  for (let q = 0; q < count; q++) {
    accept.push(q === END || (q < g && graph[q]!.final));
    edges.push(new Map());
  }
  const nodeOf = (q: number) => (q < g ? q : twin.indexOf(q));

  // Candidate code points by the first code point of their fold (identity included).
  const byFirst = new Map<number, [number, readonly number[]][]>();
  const multi: [number, readonly number[]][] = [];
  const ignorable: number[] = [];
  for (const [cp, f] of folds) {
    if (f.length === 0) ignorable.push(cp);
    else {
      if (!byFirst.has(f[0]!)) byFirst.set(f[0]!, []);
      byFirst.get(f[0]!)!.push([cp, f]);
      if (f.length > 1) multi.push([cp, f]);
    }
  }
  const candidates = (c: number): [number, readonly number[]][] => {
    const list = byFirst.get(c) ?? [];
    return folds.has(c) ? list : [[c, [c]], ...list];
  };

  /** Where the fold f, from offset o, leads from graph node n (deterministic walk). */
  const walk = (n: number, f: readonly number[], o: number, into: Set<number>) => {
    let cur = n;
    for (let i = o; i < f.length; i++) {
      const next = graph[cur]!.edges.get(f[i]!);
      if (next === undefined) return;
      cur = next;
      if (i < f.length - 1 && graph[cur]!.final) into.add(END);
    }
    into.add(cur);
  };

  // Each char state's code points become a byte trie whose inner nodes are interned (equal
  // subtrees are one NFA state). The ignorables' trie is built once, as a DAG (the 4096 tag
  // characters share their subtrees), with LOOP standing for the state they loop to.
  const interned = new Map<string, number>();
  const intern = (out: Map<number, number[]>): number => {
    const key = [...out].map(([b, t]) => `${b}:${t.join('.')}`).join(';');
    let id = interned.get(key);
    if (id === undefined) {
      id = accept.length;
      accept.push(false);
      edges.push(out);
      interned.set(key, id);
    }
    return id;
  };
  const ignorables = byteTree(ignorable.map((cp) => [utf8.encode(String.fromCodePoint(cp)), [LOOP]]));
  const emit = (tree: ByteTree, loop: number, memo: Map<ByteTree, number>): Map<number, number[]> => {
    const out = new Map<number, number[]>();
    for (const b of [...tree.keys()].sort((x, y) => x - y)) {
      const sub = tree.get(b)!;
      if (Array.isArray(sub))
        out.set(
          b,
          [...new Set(sub.map((t) => (t === LOOP ? loop : t)))].sort((x, y) => x - y),
        );
      else {
        let id = memo.get(sub);
        if (id === undefined) {
          id = intern(emit(sub, loop, memo));
          memo.set(sub, id);
        }
        out.set(b, [id]);
      }
    }
    return out;
  };

  for (let q = 0; q < END; q++) {
    const n = nodeOf(q);
    const node = graph[n]!;
    const moves = new Map<number, Set<number>>();
    const add = (cp: number, f: readonly number[], o: number) => {
      const into = moves.get(cp) ?? new Set<number>();
      walk(n, f, o, into);
      if (into.size > 0) moves.set(cp, into);
    };
    for (const c of node.edges.keys()) for (const [cp, f] of candidates(c)) add(cp, f, 0);
    if (n === 0) for (const [cp, f] of multi) for (let o = 1; o < f.length; o++) add(cp, f, o);
    let tree = byteTree([...moves].map(([cp, targets]) => [utf8.encode(String.fromCodePoint(cp)), [...targets]]));
    if (n !== 0 && node.edges.size > 0) tree = mergeTrees(tree, ignorables);
    edges[q] = emit(tree, node.final ? twin[n]! : q, new Map());
  }
  return { accept, edges };
}

export function compileFoldAutomaton(patterns: readonly string[]): Automaton & { readonly minMatchCodePoints: number } {
  const nfa = byteNfa(patterns);
  const { rows, accepting } = determinize(
    [0],
    (s, edge) => {
      for (const [b, targets] of nfa.edges[s]!) for (const t of targets) edge(b, t);
      return nfa.accept[s]!;
    },
    true,
    " for fold 'nfkc'",
  );
  const minPatternBytes = shortest(rows, accepting, () => 1);
  const gram = startSetFromDfa(rows, minPatternBytes);
  return {
    ...packDfa(rows, accepting),
    ...teddyFromDfa(rows, accepting),
    grams: gram.grams,
    gramMask: gram.mask,
    minPatternBytes,
    minMatchCodePoints: shortest(rows, accepting, (b) => (b >= 0x80 && b < 0xc0 ? 0 : 1)),
  };
}

/** The least total weight of bytes leading from the start to an accepting state (weights 0 or 1). */
function shortest(rows: readonly Uint16Array[], accepting: readonly number[], weight: (b: number) => number): number {
  const seen = new Uint8Array(rows.length);
  let level = [1];
  for (let d = 0; level.length > 0; d++) {
    const next: number[] = [];
    // Weight-0 bytes stay within the level (the list grows while it is walked).
    for (let i = 0; i < level.length; i++) {
      const s = level[i]!;
      if (seen[s]) continue;
      seen[s] = 1;
      if (accepting[s]) return d;
      for (let b = 0; b < 256; b++) {
        const t = rows[s]![b]!;
        if (t !== 0 && !seen[t]) (weight(b) === 0 ? level : next).push(t);
      }
    }
    level = next;
  }
  throw new TypeError('createCodec: a term can never match');
}
