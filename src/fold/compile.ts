// Compiles folded patterns (fold: 'nfkc') into the same tables as compileAutomaton: every
// code point whose fold spells part of a pattern becomes a UTF-8 byte path of the NFA, so the
// text is never normalised. Per pattern-graph node:
//  - a code point whose fold walks the graph from that node moves to where the walk ends;
//  - if the walk passes a pattern's end inside the fold (`℡` for `tel`), the match ends there;
//  - at the root, a walk may also start inside a fold (`ﬁ` for a pattern starting with `i`);
//  - between pattern characters, default-ignorable code points (fold '') loop.
// Then subset construction to a byte DFA, and prefilter tables read off the DFA itself, so
// they admit every byte string the DFA can start a match with (sound by construction).
import { gramHash, type Automaton } from '../automaton.js';
import { patternGraph } from './graph.js';
import { foldData } from './unicode.js';

const MAX_STATES = 0xffff;
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
      if (Array.isArray(sub)) out.set(b, [...new Set(sub.map((t) => (t === LOOP ? loop : t)))].sort((x, y) => x - y));
      else {
        let id = memo.get(sub);
        if (id === undefined) memo.set(sub, (id = intern(emit(sub, loop, memo))));
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

/** Code points as UTF-8 byte paths: inner nodes, and leaves holding target states. */
type ByteTree = Map<number, ByteTree | number[]>;
const LOOP = -1;

function byteTree(items: readonly [Uint8Array, readonly number[]][]): ByteTree {
  const root: ByteTree = new Map();
  for (const [bytes, targets] of items) {
    let node = root;
    for (let j = 0; j < bytes.length - 1; j++) {
      let next = node.get(bytes[j]!);
      if (next === undefined) node.set(bytes[j]!, (next = new Map()));
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
      if (id === undefined) ids.set(shared, (id = String(treeId(shared))));
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
  if (id === undefined) treeIds.set(tree, (id = nextTreeId++));
  return id;
}

/** The union of two trees (neither is changed; unshared parts of b are reused as they are). */
function mergeTrees(a: ByteTree, b: ByteTree): ByteTree {
  const out: ByteTree = new Map(a);
  for (const [byte, sub] of b) {
    const mine = out.get(byte);
    if (mine === undefined) out.set(byte, sub);
    else if (Array.isArray(mine) && Array.isArray(sub)) out.set(byte, [...mine, ...sub]);
    else out.set(byte, mergeTrees(mine as ByteTree, sub as ByteTree));
  }
  return out;
}

export function compileFoldAutomaton(patterns: readonly string[]): Automaton & { readonly minMatchCodePoints: number } {
  const nfa = byteNfa(patterns);
  const start = [0];
  const states: number[][] = [[], start];
  const ids = new Map<string, number>([['', 0], ['0', 1]]);
  const rows: Uint16Array[] = [new Uint16Array(256)];
  const accepting: number[] = [0];
  const nexts: number[][] = Array.from({ length: 256 }, () => []);
  for (let id = 1; id < states.length; id++) {
    const row = new Uint16Array(256);
    const touched: number[] = [];
    let acc = 0;
    for (const s of states[id]!) {
      if (nfa.accept[s]) acc = 1;
      for (const [b, targets] of nfa.edges[s]!) {
        if (nexts[b]!.length === 0) touched.push(b);
        for (const t of targets) nexts[b]!.push(t);
      }
    }
    for (const b of touched) {
      const set = [...new Set(nexts[b]!)].sort((x, y) => x - y);
      nexts[b]!.length = 0;
      const key = set.join(',');
      let next = ids.get(key);
      if (next === undefined) {
        next = states.length;
        if (next > MAX_STATES) throw new TypeError('createCodec: the term set is too large for fold \'nfkc\' (more than 65535 automaton states)');
        ids.set(key, next);
        states.push(set.slice());
      }
      row[b] = next;
    }
    rows.push(row);
    accepting.push(acc);
  }
  const { classes, classCount } = columnClasses(rows);
  const transitions = new Uint16Array(rows.length * classCount);
  rows.forEach((row, s) => {
    for (let b = 0; b < 256; b++) transitions[s * classCount + classes[b]!] = row[b]!;
  });
  const minPatternBytes = shortest(rows, accepting, () => 1);
  const gram = gramSet(rows, minPatternBytes);
  return {
    transitions,
    classes,
    classCount,
    accepting: Uint8Array.from(accepting),
    teddy: teddyMasks(rows, accepting),
    grams: gram.grams,
    gramMask: gram.mask,
    minPatternBytes,
    minMatchCodePoints: shortest(rows, accepting, (b) => (b >= 0x80 && b < 0xc0 ? 0 : 1)),
  };
}

/**
 * Bytes whose columns agree in every state share a class (as byteClasses in automaton.ts, by
 * comparing whole columns: thousands of rows make its row-by-row refinement slow).
 */
function columnClasses(rows: readonly Uint16Array[]): { classes: Uint8Array; classCount: number } {
  const classes = new Uint8Array(256);
  const firsts: number[] = []; // a byte of each class
  const byHash = new Map<number, number[]>();
  for (let b = 0; b < 256; b++) {
    let h = 0;
    for (let s = 0; s < rows.length; s++) h = (Math.imul(h, 31) + rows[s]![b]!) | 0;
    const same = (byHash.get(h) ?? []).find((c) => rows.every((row) => row[b] === row[firsts[c]!]));
    if (same !== undefined) classes[b] = same;
    else {
      classes[b] = firsts.length;
      byHash.set(h, [...(byHash.get(h) ?? []), firsts.length]);
      firsts.push(b);
    }
  }
  return { classes, classCount: firsts.length };
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

/** Per-position nibble sets of a bucket (bit masks of 16), for positions 0..2. */
interface Fingerprint {
  lo: number[];
  hi: number[];
}

const ASCII = 0;
const OTHER = 1;

/**
 * Teddy masks read off the DFA. The first three bytes of a match are classed by kind (ASCII
 * or not) per position: paths all ASCII go to buckets 0-3 (grouped by first byte, as in
 * automaton.ts), paths starting with an ideograph's lead byte to buckets 4-5, other paths
 * starting with a byte >= 0x80 to bucket 6 and the rest (ASCII, then not) to bucket 7. A
 * bucket whose position holds only bytes >= 0x80 never fires on ASCII text, so lookalike
 * alternatives (fullwidth letters, ignorables) cost nothing where there are none; keeping
 * them out of the ideograph buckets does the same for CJK text. Per position, a bucket admits
 * every byte (folded `| 0x20`, as the core folds its input) that some path of its kind can
 * take; past a state that accepts, anything.
 */
function teddyMasks(rows: readonly Uint16Array[], accepting: readonly number[]): Uint8Array {
  const kind = (b: number) => (b < 0x80 ? ASCII : OTHER);
  /** Nibble sets of paths from `states` whose bytes at positions from..2 have the given kinds. */
  const follow = (states: Set<number>, from: number, kinds: readonly number[], fp: Fingerprint): boolean => {
    let level = states;
    for (let j = from; j < 3; j++) {
      if ([...level].some((s) => accepting[s])) {
        for (let k = j; k < 3; k++) fp.lo[k] = fp.hi[k] = 0xffff;
        return true;
      }
      const next = new Set<number>();
      for (const s of level) {
        for (let b = 0; b < 256; b++) {
          const t = rows[s]![b]!;
          if (t === 0 || (kinds[j] !== undefined && kind(b) !== kinds[j])) continue;
          fp.lo[j]! |= 1 << ((b | 0x20) & 15);
          fp.hi[j]! |= 1 << ((b | 0x20) >> 4);
          next.add(t);
        }
      }
      if (next.size === 0) return false;
      level = next;
    }
    return true;
  };
  const empty = (): Fingerprint => ({ lo: [0, 0, 0], hi: [0, 0, 0] });
  // All-ASCII paths, one fingerprint per first byte (folded).
  const groups = new Map<number, Set<number>>();
  for (let b = 0; b < 0x80; b++) {
    if (rows[1]![b] === 0) continue;
    if (!groups.has(b | 0x20)) groups.set(b | 0x20, new Set());
    groups.get(b | 0x20)!.add(rows[1]![b]!);
  }
  const ascii: Fingerprint[] = [];
  for (const [f, states] of groups) {
    const fp = empty();
    fp.lo[0] = 1 << (f & 15);
    fp.hi[0] = 1 << (f >> 4);
    if (follow(states, 1, [ASCII, ASCII, ASCII], fp)) ascii.push(fp);
  }
  // Paths starting with a byte >= 0x80, by first byte (folded): ideographs (lead bytes E4-E9,
  // U+4000-U+9FFF: CJK terms) apart from the rest (lookalike letters, compatibility forms).
  const ideographs: Fingerprint[] = [];
  const others: Fingerprint[] = [];
  for (let b = 0xa0; b < 0x100; b++) {
    if ((b & 0x20) === 0) continue; // b and b & ~0x20 fold together
    const states = new Set([rows[1]![b]!, rows[1]![b & ~0x20]!].filter((t) => t !== 0));
    if (states.size === 0) continue;
    const fp = empty();
    fp.lo[0] = 1 << (b & 15);
    fp.hi[0] = 1 << (b >> 4);
    if (follow(states, 1, [], fp)) (b >= 0xe4 && b <= 0xe9 ? ideographs : others).push(fp);
  }
  const buckets: Fingerprint[] = Array.from({ length: 8 }, empty);
  place(ascii, buckets, 0, 4);
  place(ideographs, buckets, 4, 6);
  place(others, buckets, 6, 7);
  // ASCII, then a byte >= 0x80 at position 1 or 2: one bucket, whose position 2 holds only
  // bytes >= 0x80 either way (a continuation byte, or a lead byte).
  const start = new Set([1]);
  for (const kinds of [[ASCII, OTHER], [ASCII, ASCII, OTHER]]) {
    const bucket = 7;
    const fp = empty();
    if (follow(start, 0, kinds, fp)) {
      for (let j = 0; j < 3; j++) {
        buckets[bucket]!.lo[j]! |= fp.lo[j]!;
        buckets[bucket]!.hi[j]! |= fp.hi[j]!;
      }
    }
  }
  const masks = new Uint8Array(96);
  buckets.forEach((fp, k) => {
    for (let j = 0; j < 3; j++) {
      for (let n = 0; n < 16; n++) {
        if (fp.lo[j]! & (1 << n)) masks[j * 32 + n]! |= 1 << k;
        if (fp.hi[j]! & (1 << n)) masks[j * 32 + 16 + n]! |= 1 << k;
      }
    }
  });
  return masks;
}

function bitCount(x: number): number {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

/** How many byte triples a fingerprint admits (0 if empty). */
function fingerprintSize(fp: Fingerprint): number {
  return fp.lo.reduce((acc, l, j) => acc * bitCount(l) * bitCount(fp.hi[j]!), 1);
}

/** Greedy, as in automaton.ts: each fingerprint goes to the bucket in [from, to) where it adds the fewest combinations. */
function place(fps: readonly Fingerprint[], buckets: Fingerprint[], from: number, to: number): void {
  const bits = (x: number) => {
    let n = 0;
    for (; x; x &= x - 1) n++;
    return n;
  };
  const size = (fp: Fingerprint) => fp.lo.reduce((acc, l, j) => acc * Math.max(1, bits(l) * bits(fp.hi[j]!)), 1);
  const union = (x: Fingerprint, y: Fingerprint): Fingerprint => ({ lo: x.lo.map((l, j) => l | y.lo[j]!), hi: x.hi.map((h, j) => h | y.hi[j]!) });
  for (const fp of [...fps].sort((x, y) => size(y) - size(x))) {
    let best = from;
    let bestCost = Infinity;
    for (let k = from; k < to; k++) {
      const before = buckets[k]!.lo[0] ? size(buckets[k]!) : 0;
      const cost = size(union(buckets[k]!, fp)) - before;
      if (cost < bestCost) {
        bestCost = cost;
        best = k;
      }
    }
    buckets[best] = union(buckets[best]!, fp);
  }
}

/** At most this many keys keep the hashed set (32768 bits) a sixteenth full or less. */
const GRAM_KEYS = 2048;
/**
 * Masks to try, most selective first: the folded bytes hashed. Lookalikes make many keys that
 * differ only in their last continuation byte (tag characters, mathematical letters), so the
 * low bits of the fourth byte go first; they matter least to ASCII keys (letters in groups).
 */
const GRAM_MASKS = [0xffffffff, 0xfcffffff, 0xf8ffffff, 0xf0ffffff, 0xe0ffffff, 0xe0fcffff, 0x00ffffff, 0x00fcffff, 0x0000ffff, 0x000000ff];

/**
 * The hashed set of every folded (`| 0x20`) byte string of min(4, shortest match) bytes the
 * DFA can start a match with, masked by the most selective mask that keeps it sparse.
 */
function gramSet(rows: readonly Uint16Array[], minBytes: number): { grams: Uint8Array; mask: number } {
  const n = Math.min(4, minBytes);
  let level = new Map<string, [number, number]>([['1', [1, 0]]]);
  for (let j = 0; j < n && level.size <= GRAM_KEYS * 64; j++) {
    const next = new Map<string, [number, number]>();
    for (const [s, key] of level.values()) {
      for (let b = 0; b < 256; b++) {
        const t = rows[s]![b]!;
        if (t !== 0) {
          const k = (key | ((b | 0x20) << (8 * j))) >>> 0;
          next.set(`${t}:${k}`, [t, k]);
        }
      }
    }
    level = next;
  }
  const all = new Set([...level.values()].map(([, k]) => k));
  const within = n === 4 ? 0xffffffff : 2 ** (8 * n) - 1;
  for (const candidate of GRAM_MASKS) {
    const mask = (candidate & within) >>> 0;
    const keys = new Set([...all].map((k) => (k & mask) >>> 0));
    if (keys.size > GRAM_KEYS && candidate !== 0xff) continue;
    // A level cut short (too many paths) holds shorter keys: only the one-byte mask fits them.
    if (level.size > GRAM_KEYS * 64 && candidate !== 0xff) continue;
    const grams = new Uint8Array(4096);
    for (const key of keys) {
      const h = gramHash(key);
      grams[h >> 3]! |= 1 << (h & 7);
    }
    return { grams, mask };
  }
  throw new Error('unreachable');
}
