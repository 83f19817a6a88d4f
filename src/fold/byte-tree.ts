// Code points as UTF-8 byte paths, for the fold NFA: built once per state, equal subtrees
// shared, merged with the ignorables' tree (built once, with LOOP for the state they loop to).

/** Code points as UTF-8 byte paths: inner nodes, and leaves holding target states. */
export type ByteTree = Map<number, ByteTree | number[]>;
export const LOOP = -1;

export function byteTree(items: readonly [Uint8Array, readonly number[]][]): ByteTree {
  const root: ByteTree = new Map();
  for (const [bytes, targets] of items) {
    let node = root;
    for (let j = 0; j < bytes.length - 1; j++) {
      let next = node.get(bytes[j]!);
      if (next === undefined) {
        next = new Map();
        node.set(bytes[j]!, next);
      }
      node = next as ByteTree; // (UTF-8 is prefix-free: never a leaf here)
    }
    const leaf = (node.get(bytes[bytes.length - 1]!) as number[] | undefined) ?? [];
    leaf.push(...targets);
    node.set(bytes[bytes.length - 1]!, leaf);
  }
  return shareSubtrees(root, new Map());
}

/** Equal subtrees become one object (so emitting walks each once). */
function shareSubtrees(tree: ByteTree, seen: Map<string, ByteTree>): ByteTree {
  const parts: string[] = [];
  const ids = new Map<ByteTree, string>();
  for (const [b, sub] of tree) {
    if (Array.isArray(sub)) parts.push(`${b}=${sub.join('.')}`);
    else {
      const shared = shareSubtrees(sub, seen);
      tree.set(b, shared);
      let id = ids.get(shared);
      if (id === undefined) {
        id = String(treeId(shared));
        ids.set(shared, id);
      }
      parts.push(`${b}>${id}`);
    }
  }
  const key = parts.join(',');
  const hit = seen.get(key);
  if (hit) return hit;
  seen.set(key, tree);
  return tree;
}

const treeIds = new WeakMap<ByteTree, number>();
let nextTreeId = 0;
function treeId(tree: ByteTree): number {
  let id = treeIds.get(tree);
  if (id === undefined) {
    id = nextTreeId++;
    treeIds.set(tree, id);
  }
  return id;
}

/** The union of two trees (neither is changed; unshared parts of b are reused as they are). */
export function mergeTrees(a: ByteTree, b: ByteTree): ByteTree {
  const out: ByteTree = new Map(a);
  for (const [byte, sub] of b) {
    const mine = out.get(byte);
    if (mine === undefined) out.set(byte, sub);
    else if (Array.isArray(mine) && Array.isArray(sub)) out.set(byte, [...mine, ...sub]);
    else out.set(byte, mergeTrees(mine as ByteTree, sub as ByteTree));
  }
  return out;
}
