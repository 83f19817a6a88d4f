// Teddy, the core's first filter stage (SIMD, in assembly/match.ts): 8 buckets, each a
// fingerprint of the first three bytes of its patterns. Per position j (0..2) a bucket holds a
// set of low nibbles and a set of high nibbles of the folded byte (`| 0x20`, as the core folds
// its input); a position passes when some bucket admits all three of its bytes. The masks are
// 3 positions x (16 low-nibble + 16 high-nibble bytes), bit k for bucket k.

/** Per-position nibble sets (bit masks of 16) of a bucket or of a group of patterns. */
export interface Fingerprint {
  lo: number[];
  hi: number[];
}

export const emptyFingerprint = (): Fingerprint => ({ lo: [0, 0, 0], hi: [0, 0, 0] });

/** Adds the folded byte `b` at position `j`. */
export function addByte(fp: Fingerprint, j: number, b: number): void {
  fp.lo[j]! |= 1 << ((b | 0x20) & 15);
  fp.hi[j]! |= 1 << ((b | 0x20) >> 4);
}

/** Admits every byte at positions from..2 (past the end of a short pattern, or past a match). */
export function admitAll(fp: Fingerprint, from: number): void {
  for (let j = from; j < 3; j++) fp.lo[j] = fp.hi[j] = 0xffff;
}

/** Set bits of a 16-bit mask. */
const bits = (x: number) => {
  const a = x - ((x >> 1) & 0x5555);
  const b = (a & 0x3333) + ((a >> 2) & 0x3333);
  const c = (b + (b >> 4)) & 0x0f0f;
  return (c + (c >> 8)) & 0x1f;
};

/** How many byte triples the union of x and y admits (y may be x); no union is built. */
function admittedUnion(x: Fingerprint, y: Fingerprint): number {
  let acc = 1;
  for (let j = 0; j < 3; j++) acc *= Math.max(1, bits(x.lo[j]! | y.lo[j]!) * bits(x.hi[j]! | y.hi[j]!));
  return acc;
}

/** How many byte triples a fingerprint admits (what mixing patterns in one bucket multiplies). */
export const admitted = (fp: Fingerprint): number => admittedUnion(fp, fp);

/**
 * Greedy: each fingerprint, in the order given (the caller puts the largest first), goes to the
 * bucket in [from, to) where it adds the fewest admitted triples. Returns the bucket of each.
 * (Plain loops without allocation: this runs once per codec, mostly before any JIT.)
 */
export function placeInBuckets(fps: readonly Fingerprint[], buckets: Fingerprint[], from: number, to: number): number[] {
  return fps.map((fp) => {
    let best = from;
    let bestCost = Infinity;
    for (let k = from; k < to; k++) {
      const bucket = buckets[k]!;
      const cost = admittedUnion(bucket, fp) - (bucket.lo[0] ? admitted(bucket) : 0);
      if (cost < bestCost) {
        bestCost = cost;
        best = k;
      }
    }
    const bucket = buckets[best]!;
    for (let j = 0; j < 3; j++) {
      bucket.lo[j]! |= fp.lo[j]!;
      bucket.hi[j]! |= fp.hi[j]!;
    }
    return best;
  });
}

/** The masks the core loads, from 8 bucket fingerprints. */
export function bucketMasks(buckets: readonly Fingerprint[]): Uint8Array {
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

/**
 * The masks of byte patterns (alternatives per position). Patterns are grouped by folded first
 * byte, and the groups placed largest (most patterns) first: a bucket admits every byte whose
 * low and high nibbles each occur at that position in one of its patterns, so patterns sharing
 * a first byte cost least together.
 */
export function patternTeddy(seqs: readonly (readonly (readonly number[])[])[]): Uint8Array {
  const groups = new Map<number, Fingerprint & { size: number }>();
  for (const seq of seqs) {
    const first = seq[0]![0]! | 0x20;
    const group = groups.get(first) ?? { ...emptyFingerprint(), size: 0 };
    groups.set(first, group);
    group.size++;
    for (let j = 0; j < 3; j++) {
      const alts = seq[j];
      if (!alts) {
        admitAll(group, j);
        break;
      }
      for (const b of alts) addByte(group, j, b);
    }
  }
  const buckets = Array.from({ length: 8 }, emptyFingerprint);
  placeInBuckets(
    [...groups.values()].sort((x, y) => y.size - x.size),
    buckets,
    0,
    8,
  );
  return bucketMasks(buckets);
}
