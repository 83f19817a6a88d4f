// Compiles patterns into the tables the WASM core walks: an anchored DFA over UTF-8 bytes
// (subset construction, so case-insensitive and exact patterns can share prefixes without
// matching each other's spellings), byte classes to keep its rows short, and the
// three-byte Teddy fingerprint masks used to skip bytes where no pattern can start.
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
  readonly maxPatternBytes: number;
}

const utf8 = new TextEncoder();
const MAX_STATES = 0xffff;

/** Byte alternatives per position: [lower, upper] for cased ASCII letters. */
function patternBytes(p: Pattern): number[][] {
  return Array.from(utf8.encode(p.text), (b) => {
    const lower = b | 0x20;
    if (p.ignoreCase && lower >= 0x61 && lower <= 0x7a) return [lower, lower & ~0x20];
    return [b];
  });
}

export function compileAutomaton(patterns: readonly Pattern[]): Automaton {
  const seqs = patterns.map(patternBytes);
  // A DFA state is a set of NFA positions (pattern index, bytes matched).
  const key = (set: number[]) => set.join(',');
  const stride = Math.max(...seqs.map((s) => s.length)) + 1;
  const start = seqs.map((_, p) => p * stride);
  const states: number[][] = [[], start];
  const ids = new Map<string, number>([[key([]), 0], [key(start), 1]]);
  const rows: Uint16Array[] = [new Uint16Array(256)];
  const accepting: number[] = [0];
  for (let id = 1; id < states.length; id++) {
    const row = new Uint16Array(256);
    const nexts: number[][] = Array.from({ length: 256 }, () => []);
    let accept = 0;
    for (const pos of states[id]!) {
      const p = Math.floor(pos / stride);
      const k = pos % stride;
      const seq = seqs[p]!;
      if (k === seq.length) accept = 1;
      else for (const b of seq[k]!) nexts[b]!.push(pos + 1);
    }
    for (let b = 0; b < 256; b++) {
      const set = nexts[b]!;
      if (set.length === 0) continue;
      const k = key(set);
      let next = ids.get(k);
      if (next === undefined) {
        next = states.length;
        if (next > MAX_STATES) throw new TypeError('createCodec: the term set is too large (more than 65535 automaton states)');
        ids.set(k, next);
        states.push(set);
      }
      row[b] = next;
    }
    rows.push(row);
    accepting.push(accept);
  }
  // Bytes whose columns agree in every state share a class.
  const classes = new Uint8Array(256);
  const classOf = new Map<string, number>();
  for (let b = 0; b < 256; b++) {
    const column = rows.map((r) => r[b]).join(',');
    let c = classOf.get(column);
    if (c === undefined) {
      c = classOf.size;
      classOf.set(column, c);
    }
    classes[b] = c;
  }
  const classCount = classOf.size;
  const transitions = new Uint16Array(rows.length * classCount);
  rows.forEach((row, s) => {
    for (let b = 0; b < 256; b++) transitions[s * classCount + classes[b]!] = row[b]!;
  });
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
    maxPatternBytes: Math.max(...lengths),
  };
}

/** Bucket masks for the first three bytes of every pattern, folded with `| 0x20`. */
function teddyMasks(seqs: number[][][]): Uint8Array {
  const masks = new Uint8Array(96);
  seqs.forEach((seq, p) => {
    // Patterns sharing a first byte share a bucket, which keeps cross-pattern nibble mixes rare.
    const bit = 1 << ((seq[0]![0]! | 0x20) % 8);
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
