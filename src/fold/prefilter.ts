// The prefilter tables of a fold automaton, read off its DFA rows: Teddy fingerprint masks
// (stage 1) and the hashed set of match starts (stage 2). Both admit every byte string a
// match can start with, so the core never skips a position where one could start.
import { keyMask, startSet } from '../compile/start-set.js';
import {
  addByte,
  admitAll,
  admitted,
  bucketMasks,
  emptyFingerprint,
  type Fingerprint,
  merge,
  placeByPasses,
  placeInBuckets,
  TEDDY_POSITIONS,
} from '../compile/teddy.js';

const ASCII = 0;
const OTHER = 1;

/**
 * Teddy masks read off the DFA. The first three bytes of a match are classed by kind (ASCII
 * or not) per position (the fourth may be any): paths all ASCII go to buckets 0-2 (grouped
 * by first byte), paths starting with an ideograph to buckets 3-5 (grouped by that whole
 * character, placed by the passes expected in text: teddy-cost.ts), other paths starting with
 * a byte >= 0x80 to bucket 6 (by their first two bytes; those whose second byte has punctuation's
 * low nibble go with the ideographs) and the rest (ASCII, then not) to bucket 7, but for those
 * whose second byte is not a letter (a pair's separator), which go with the ASCII paths. A bucket whose
 * position holds only bytes >= 0x80 never fires on ASCII text, so lookalike alternatives
 * (fullwidth letters, ignorables) cost nothing where there are none; keeping them out of the
 * ideograph buckets does the same for CJK text. Per position, a bucket admits every byte
 * (folded `| 0x20`, as the core folds its input) that some path of its kind can take; past a
 * state that accepts, anything. `teddyAscii` holds only the all-ASCII paths, in all eight
 * buckets: the core tests runs of ASCII blocks with it (no other path can start there).
 */
export function teddyFromDfa(rows: readonly Uint16Array[], accepting: readonly number[]): { teddy: Uint8Array; teddyAscii: Uint8Array } {
  const kind = (b: number) => (b < 0x80 ? ASCII : OTHER);
  /** Nibble sets of paths from `states` whose bytes from position `from` on have the given kinds (past them: any). */
  const follow = (states: Set<number>, from: number, kinds: readonly number[], fp: Fingerprint): boolean => {
    let level = states;
    for (let j = from; j < TEDDY_POSITIONS; j++) {
      if ([...level].some((s) => accepting[s])) {
        admitAll(fp, j);
        return true;
      }
      const next = new Set<number>();
      for (const s of level) {
        for (let b = 0; b < 256; b++) {
          const t = rows[s]![b]!;
          if (t === 0 || (kinds[j] !== undefined && kind(b) !== kinds[j])) continue;
          addByte(fp, j, b);
          next.add(t);
        }
      }
      if (next.size === 0) return false;
      level = next;
    }
    return true;
  };
  /** Fingerprints of the paths from `states` (`fp` holds their bytes before `at`), one per folded byte string up to `depth` bytes. */
  const split = (states: Set<number>, at: number, depth: number, fp: Fingerprint, out: Fingerprint[]): void => {
    if (at >= depth || [...states].some((s) => accepting[s])) {
      if (follow(states, at, [], fp)) out.push(fp);
      return;
    }
    for (let f = 0x20; f < 0x100; f++) {
      if ((f & 0x20) === 0) continue;
      const next = new Set<number>();
      for (const s of states) for (const t of [rows[s]![f]!, rows[s]![f & ~0x20]!]) if (t !== 0) next.add(t);
      if (next.size === 0) continue;
      const g = { lo: [...fp.lo], hi: [...fp.hi] };
      addByte(g, at, f);
      split(next, at + 1, depth, g, out);
    }
  };
  // All-ASCII paths, one fingerprint per first byte (folded).
  const groups = new Map<number, Set<number>>();
  for (let b = 0; b < 0x80; b++) {
    if (rows[1]![b] === 0) continue;
    if (!groups.has(b | 0x20)) groups.set(b | 0x20, new Set());
    groups.get(b | 0x20)!.add(rows[1]![b]!);
  }
  const ascii: Fingerprint[] = [];
  for (const [f, states] of groups) {
    const fp = emptyFingerprint();
    addByte(fp, 0, f);
    if (follow(states, 1, [ASCII, ASCII, ASCII], fp)) ascii.push(fp);
  }
  // Paths starting with a byte >= 0x80, by first byte (folded): ideographs (lead bytes E4-E9,
  // U+4000-U+9FFF: CJK terms) apart from the rest (lookalike letters, compatibility forms),
  // which are split by their second byte.
  const ideographs: Fingerprint[] = [];
  const others: Fingerprint[] = [];
  for (let b = 0xa0; b < 0x100; b++) {
    if ((b & 0x20) === 0) continue; // b and b & ~0x20 fold together
    const states = new Set([rows[1]![b]!, rows[1]![b & ~0x20]!].filter((t) => t !== 0));
    if (states.size === 0) continue;
    const fp = emptyFingerprint();
    addByte(fp, 0, b);
    // (an ideograph's paths by its whole first character, so buckets can tell the terms' apart)
    if (b >= 0xe4 && b <= 0xe9) split(states, 1, 3, fp, ideographs);
    else split(states, 1, 2, fp, others);
  }
  const buckets: Fingerprint[] = Array.from({ length: 8 }, emptyFingerprint);
  // Largest first (placeInBuckets is greedy); the sort is stable, so equal ones keep byte order.
  const largestFirst = (fps: Fingerprint[]) => fps.sort((x, y) => admitted(y) - admitted(x));
  largestFirst(ascii);
  // Where the four bytes are ASCII, only the all-ASCII paths can start: all eight buckets for them.
  const asciiBuckets: Fingerprint[] = Array.from({ length: 8 }, emptyFingerprint);
  placeInBuckets(ascii, asciiBuckets, 0, 8);
  placeInBuckets(ascii, buckets, 0, 3);
  placeByPasses(ideographs, buckets, 3, 6);
  // A second byte 80 or A0 (folded alike) starts general and CJK punctuation (— “ … 。 、), the
  // commonest characters >= 0x80 outside CJK words. A bucket tests each nibble on its own, so
  // its high nibble A (E2 A4 and the like) with any path's low nibble 0 there admits A0: the
  // lookalike paths whose second byte ends in nibble 0 (folded A0 or B0; only F0 90 in 'nfkc')
  // go with the ideographs, so that bucket 6 passes no punctuation.
  const punctuation = (fp: Fingerprint) => (fp.lo[1]! & 1) !== 0;
  placeInBuckets(largestFirst(others.filter(punctuation)), buckets, 3, 6);
  placeInBuckets(largestFirst(others.filter((fp) => !punctuation(fp))), buckets, 6, 7);
  // ASCII, then a byte >= 0x80 at position 1 or 2: one bucket, whose position 2 holds only
  // bytes >= 0x80 either way (a continuation byte, or a lead byte). But for paths whose second
  // byte is not a letter (a pair's separator, `q wen` in lookalikes): they go with the ASCII
  // paths, which hold those separators already. In bucket 7 a space at position 1 made every
  // letter of its position 0, a space, then a dash or a lookalike pass (`m — `, `t ａ`, `m.ａ`
  // by its nibbles): 700 of mixed text's 1,000 positions through bucket 7 (256 KiB).
  const start = new Set([1]);
  const fp = emptyFingerprint();
  if (follow(start, 0, [ASCII, OTHER], fp)) merge(buckets[7]!, fp);
  const separated: Fingerprint[] = [];
  for (let b0 = 0x20; b0 < 0x80; b0++) {
    if ((b0 & 0x20) === 0) continue;
    const first = new Set([rows[1]![b0]!, rows[1]![b0 & ~0x20]!].filter((t) => t !== 0));
    for (let b1 = 0; b1 < 0x80; b1++) {
      const states = new Set([...first].map((s) => rows[s]![b1]!).filter((t) => t !== 0));
      if (states.size === 0) continue;
      const g = emptyFingerprint();
      addByte(g, 0, b0);
      addByte(g, 1, b1);
      if (!follow(states, 2, [ASCII, ASCII, OTHER], g)) continue;
      if (/[a-z]/i.test(String.fromCharCode(b1))) merge(buckets[7]!, g);
      else separated.push(g);
    }
  }
  placeInBuckets(largestFirst(separated), buckets, 0, 3);
  return { teddy: bucketMasks(buckets), teddyAscii: bucketMasks(asciiBuckets) };
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
export function startSetFromDfa(rows: readonly Uint16Array[], minBytes: number): { grams: Uint8Array; mask: number } {
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
  const within = keyMask(n);
  for (const candidate of GRAM_MASKS) {
    const mask = (candidate & within) >>> 0;
    const keys = new Set([...all].map((k) => (k & mask) >>> 0));
    if (keys.size > GRAM_KEYS && candidate !== 0xff) continue;
    // A level cut short (too many paths) holds shorter keys: only the one-byte mask fits them.
    if (level.size > GRAM_KEYS * 64 && candidate !== 0xff) continue;
    return { grams: startSet(keys), mask };
  }
  throw new Error('unreachable');
}
