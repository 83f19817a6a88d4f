// Compiles patterns into the tables the WASM core walks: an anchored DFA over UTF-8 bytes
// (subset construction, so case-insensitive and exact patterns can share prefixes without
// matching each other's spellings), byte classes to keep its rows short, and the
// three-byte Teddy fingerprint masks used to skip bytes where no pattern can start.
import { compileFoldAutomaton } from './fold/compile.js';
import { determinize, packTransitions } from './compile/subsets.js';
import type { Pattern } from './terms.js';

export interface Automaton {
  /** u16 next state per [state * classCount + class]; state 0 is dead, 1 the start. */
  readonly transitions: Uint16Array;
  readonly classes: Uint8Array; // 256 entries
  readonly classCount: number;
  readonly accepting: Uint8Array; // one per state
  readonly teddy: Uint8Array; // 3 positions x (16 low-nibble + 16 high-nibble masks)
  readonly grams: Uint8Array; // 32768-bit set of hashed folded pattern starts
  readonly gramMask: number; // which of the 4 loaded bytes the hash uses
  readonly minPatternBytes: number;
  /** Fewest code points a match can span (a folded match may be one code point: `℡`). */
  readonly minMatchCodePoints?: number;
}

const utf8 = new TextEncoder();

/** Byte alternatives per position: [lower, upper] for cased ASCII letters. */
function patternBytes(p: Pattern): number[][] {
  return Array.from(utf8.encode(p.text), (b) => {
    const lower = b | 0x20;
    if (p.ignoreCase && lower >= 0x61 && lower <= 0x7a) return [lower, lower & ~0x20];
    return [b];
  });
}

export function compileAutomaton(patterns: readonly Pattern[]): Automaton {
  // fold: 'nfkc' (every pattern is folded): the same tables, built from the fold's alternatives.
  if (patterns.some((p) => p.folded)) return compileFoldAutomaton(patterns.map((p) => p.text));
  const seqs = patterns.map(patternBytes);
  // A DFA state is a set of NFA positions (pattern index, bytes matched), encoded p * stride + k.
  const stride = Math.max(...seqs.map((s) => s.length)) + 1;
  const start = seqs.map((_, p) => p * stride);
  const { rows, accepting } = determinize(start, (pos, edge) => {
    const seq = seqs[Math.floor(pos / stride)]!;
    const k = pos % stride;
    if (k === seq.length) return true;
    for (const b of seq[k]!) edge(b, pos + 1);
    return false;
  }, false, '');
  const { classes, classCount } = byteClasses(rows);
  const transitions = packTransitions(rows, classes, classCount);
  const lengths = seqs.map((s) => s.length);
  const gramBytes = Math.min(4, ...lengths);
  const gramMask = gramBytes === 4 ? 0xffffffff : 2 ** (8 * gramBytes) - 1;
  return {
    grams: gramSet(seqs, gramMask),
    gramMask,
    transitions,
    classes,
    classCount,
    accepting: Uint8Array.from(accepting),
    teddy: teddyMasks(seqs),
    minPatternBytes: Math.min(...lengths),
  };
}

/** Bytes whose columns agree in every state share a class: partition refinement, row by row. */
function byteClasses(rows: readonly Uint16Array[]): { classes: Uint8Array; classCount: number } {
  let classes = new Int32Array(256); // all bytes in class 0
  let count = 1;
  for (const row of rows) {
    const split = new Map<number, number>();
    const next = new Int32Array(256);
    for (let b = 0; b < 256; b++) {
      const key = classes[b]! * 65536 + row[b]!;
      let c = split.get(key);
      if (c === undefined) {
        c = split.size;
        split.set(key, c);
      }
      next[b] = c;
    }
    classes = next;
    count = split.size;
  }
  if (count > 256) throw new TypeError('createCodec: too many byte classes');
  return { classes: Uint8Array.from(classes), classCount: count };
}

/** Bucket masks for the first three bytes of every pattern, folded with `| 0x20`. */
function teddyMasks(seqs: number[][][]): Uint8Array {
  const masks = new Uint8Array(96);
  const bucketOf = assignBuckets(seqs);
  seqs.forEach((seq, p) => {
    const bit = 1 << bucketOf[p]!;
    for (let j = 0; j < 3; j++) {
      const lo = j * 32;
      const hi = lo + 16;
      if (j >= seq.length) {
        for (let n = 0; n < 16; n++) {
          masks[lo + n]! |= bit;
          masks[hi + n]! |= bit;
        }
        continue;
      }
      for (const b of seq[j]!) {
        const f = b | 0x20;
        masks[lo + (f & 15)]! |= bit;
        masks[hi + (f >> 4)]! |= bit;
      }
    }
  });
  return masks;
}

/**
 * Puts patterns in 8 buckets. A bucket accepts every byte whose low nibble and high nibble
 * each occur at that position in one of its patterns, so mixing patterns multiplies what it
 * lets through. Patterns are grouped by first byte, and each group (largest first) goes where
 * it adds the fewest accepted nibble combinations.
 */
function assignBuckets(seqs: number[][][]): number[] {
  const groups = new Map<number, number[]>();
  seqs.forEach((seq, p) => {
    const first = seq[0]![0]! | 0x20;
    groups.set(first, [...(groups.get(first) ?? []), p]);
  });
  // Per bucket and position: sets of low and high nibbles (bit masks of 16).
  const lows = Array.from({ length: 8 }, () => [0, 0, 0]);
  const highs = Array.from({ length: 8 }, () => [0, 0, 0]);
  const bits = (x: number) => {
    let n = 0;
    for (; x; x &= x - 1) n++;
    return n;
  };
  const size = (lo: number[], hi: number[]) => lo.reduce((acc, l, j) => acc * Math.max(1, bits(l) * bits(hi[j]!)), 1);
  const bucketOf: number[] = [];
  for (const members of [...groups.values()].sort((x, y) => y.length - x.length)) {
    const lo = [0, 0, 0];
    const hi = [0, 0, 0];
    for (const p of members) {
      for (let j = 0; j < 3; j++) {
        const alts = seqs[p]![j];
        if (!alts) {
          lo[j] = hi[j] = 0xffff;
          continue;
        }
        for (const b of alts) {
          lo[j]! |= 1 << ((b | 0x20) & 15);
          hi[j]! |= 1 << ((b | 0x20) >> 4);
        }
      }
    }
    let best = 0;
    let bestCost = Infinity;
    for (let k = 0; k < 8; k++) {
      const before = lows[k]![0] ? size(lows[k]!, highs[k]!) : 0;
      const cost = size(lows[k]!.map((l, j) => l | lo[j]!), highs[k]!.map((h, j) => h | hi[j]!)) - before;
      if (cost < bestCost) {
        bestCost = cost;
        best = k;
      }
    }
    for (let j = 0; j < 3; j++) {
      lows[best]![j]! |= lo[j]!;
      highs[best]![j]! |= hi[j]!;
    }
    for (const p of members) bucketOf[p] = best;
  }
  return bucketOf;
}

/** Must match gramMayStart in assembly/filter.ts. */
export function gramHash(key: number): number {
  return Math.imul(key, 0x9e3779b1) >>> 17;
}

/** The hashed set of every pattern's first four bytes (folded with | 0x20, then masked). */
function gramSet(seqs: number[][][], mask: number): Uint8Array {
  const bits = new Uint8Array(4096);
  for (const seq of seqs) {
    let key = 0;
    for (let j = 0; j < 4; j++) key |= ((seq[j]?.[0] ?? 0) | 0x20) << (8 * j);
    const h = gramHash((key & mask) >>> 0);
    bits[h >> 3]! |= 1 << (h & 7);
  }
  return bits;
}
