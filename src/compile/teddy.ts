// Teddy, the core's first filter stage (SIMD, in assembly/match.ts): 8 buckets, each a
// fingerprint of the first four bytes of its patterns. Per position j (0..3) a bucket holds a
// set of low nibbles and a set of high nibbles of the folded byte (`| 0x20`, as the core folds
// its input); a position passes when some bucket admits all four of its bytes. The masks are
// 4 positions x (16 low-nibble + 16 high-nibble bytes), bit k for bucket k.
import { expectedPasses } from './teddy-cost.js';

/** Bytes of a match the fingerprint tests (the core's loop is written for this many). */
export const TEDDY_POSITIONS = 4;
/** Size of the masks the core loads. */
export const TEDDY_BYTES = TEDDY_POSITIONS * 32;

/** Per-position nibble sets (bit masks of 16) of a bucket or of a group of patterns. */
export interface Fingerprint {
  lo: number[];
  hi: number[];
}

export const emptyFingerprint = (): Fingerprint => ({ lo: Array(TEDDY_POSITIONS).fill(0), hi: Array(TEDDY_POSITIONS).fill(0) });

/** Adds the folded byte `b` at position `j`. */
export function addByte(fp: Fingerprint, j: number, b: number): void {
  fp.lo[j]! |= 1 << ((b | 0x20) & 15);
  fp.hi[j]! |= 1 << ((b | 0x20) >> 4);
}

/** Admits every byte at positions from `from` on (past the end of a short pattern, or past a match). */
export function admitAll(fp: Fingerprint, from: number): void {
  for (let j = from; j < TEDDY_POSITIONS; j++) fp.lo[j] = fp.hi[j] = 0xffff;
}

/** x |= y, position by position. */
export function merge(x: Fingerprint, y: Fingerprint): void {
  for (let j = 0; j < TEDDY_POSITIONS; j++) {
    x.lo[j]! |= y.lo[j]!;
    x.hi[j]! |= y.hi[j]!;
  }
}

/** The union of fingerprints (a new one). */
function union(fps: readonly Fingerprint[]): Fingerprint {
  const u = emptyFingerprint();
  for (const fp of fps) merge(u, fp);
  return u;
}

const scratch = emptyFingerprint();

/** expectedPasses of the union of x and y, built in a scratch fingerprint. */
function unionPasses(x: Fingerprint, y: Fingerprint): number {
  for (let j = 0; j < TEDDY_POSITIONS; j++) {
    scratch.lo[j] = x.lo[j]! | y.lo[j]!;
    scratch.hi[j] = x.hi[j]! | y.hi[j]!;
  }
  return expectedPasses(scratch);
}

/** Set bits of a 16-bit mask. */
const bits = (x: number) => {
  const a = x - ((x >> 1) & 0x5555);
  const b = (a & 0x3333) + ((a >> 2) & 0x3333);
  const c = (b + (b >> 4)) & 0x0f0f;
  return (c + (c >> 8)) & 0x1f;
};

/** How many byte strings the union of x and y admits (y may be x); no union is built. */
function admittedUnion(x: Fingerprint, y: Fingerprint): number {
  let acc = 1;
  for (let j = 0; j < TEDDY_POSITIONS; j++) acc *= Math.max(1, bits(x.lo[j]! | y.lo[j]!) * bits(x.hi[j]! | y.hi[j]!));
  return acc;
}

/** How many byte strings a fingerprint admits (what mixing patterns in one bucket multiplies). */
export const admitted = (fp: Fingerprint): number => admittedUnion(fp, fp);

/**
 * Greedy: each fingerprint, in the order given (the caller puts the largest first), goes to the
 * bucket in [from, to) where it adds the fewest admitted strings. Returns the bucket of each.
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
    merge(buckets[best]!, fp);
    return best;
  });
}

/** The masks the core loads, from 8 bucket fingerprints. */
export function bucketMasks(buckets: readonly Fingerprint[]): Uint8Array {
  const masks = new Uint8Array(TEDDY_BYTES);
  buckets.forEach((fp, k) => {
    for (let j = 0; j < TEDDY_POSITIONS; j++) {
      for (let n = 0; n < 16; n++) {
        if (fp.lo[j]! & (1 << n)) masks[j * 32 + n]! |= 1 << k;
        if (fp.hi[j]! & (1 << n)) masks[j * 32 + 16 + n]! |= 1 << k;
      }
    }
  });
  return masks;
}

/** Rounds of moving one group to another bucket while that lowers the expected passes. */
const IMPROVE_ROUNDS = 1;

/**
 * The masks of byte patterns (alternatives per position). Patterns are grouped, ASCII ones by
 * folded first byte (patterns sharing one cost least together: "ali", "ant"), the others by
 * their first three bytes (a CJK term's first character: their lead bytes E4-E9 are in every
 * CJK text, so only the whole character tells them apart). Groups are placed by the passes they
 * are expected to cause in text (teddy-cost.ts): greedily, costliest first, then improved by
 * moving single groups while the total drops.
 */
export function patternTeddy(seqs: readonly (readonly (readonly number[])[])[]): Uint8Array {
  const groups = new Map<string, Fingerprint>();
  for (const seq of seqs) {
    const first = seq[0]![0]! | 0x20;
    const key =
      first < 0x80
        ? String(first)
        : seq
            .slice(0, 3)
            .map((alts) => alts[0]! | 0x20)
            .join();
    const group = groups.get(key) ?? emptyFingerprint();
    groups.set(key, group);
    for (let j = 0; j < TEDDY_POSITIONS; j++) {
      const alts = seq[j];
      if (!alts) {
        admitAll(group, j);
        break;
      }
      for (const b of alts) addByte(group, j, b);
    }
  }
  const buckets = Array.from({ length: 8 }, emptyFingerprint);
  placeByPasses([...groups.values()], buckets, 0, 8);
  return bucketMasks(buckets);
}

/**
 * Places groups in buckets [from, to) (empty so far) by the passes they are expected to cause
 * in text (teddy-cost.ts): greedily, costliest first, then improved by moving single groups
 * while the total drops.
 */
export function placeByPasses(groups: readonly Fingerprint[], buckets: Fingerprint[], from: number, to: number): void {
  const fps = groups.map((fp) => ({ fp, cost: expectedPasses(fp) })).sort((x, y) => y.cost - x.cost);
  const members: Fingerprint[][] = buckets.map(() => []);
  const cost = buckets.map(() => 0); // expectedPasses of each bucket
  const at: number[] = [];
  for (const { fp } of fps) {
    let best = from;
    let bestAdded = Infinity;
    for (let k = from; k < to; k++) {
      const added = unionPasses(buckets[k]!, fp) - cost[k]!;
      if (added < bestAdded) {
        bestAdded = added;
        best = k;
      }
    }
    merge(buckets[best]!, fp);
    members[best]!.push(fp);
    cost[best]! += bestAdded;
    at.push(best);
  }
  for (let round = 0; round < IMPROVE_ROUNDS; round++) {
    let moved = false;
    fps.forEach(({ fp }, i) => {
      const was = at[i]!;
      const rest = union(members[was]!.filter((x) => x !== fp));
      const saved = cost[was]! - expectedPasses(rest);
      let best = was;
      let bestGain = 1e-9 * saved; // (not for a rounding error)
      for (let k = from; k < to; k++) {
        if (k === was) continue;
        const gain = saved - (unionPasses(buckets[k]!, fp) - cost[k]!);
        if (gain > bestGain) {
          bestGain = gain;
          best = k;
        }
      }
      if (best === was) return;
      members[was] = members[was]!.filter((x) => x !== fp);
      buckets[was] = rest;
      cost[was] = expectedPasses(rest);
      members[best]!.push(fp);
      merge(buckets[best]!, fp);
      cost[best] = expectedPasses(buckets[best]!);
      at[i] = best;
      moved = true;
    });
    if (!moved) break;
  }
}
