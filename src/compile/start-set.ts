// The hashed start set (the core's second filter stage, assembly/filter.ts): a 32768-bit set
// of hashed keys, a key being the first four bytes a match can start with, folded with
// `| 0x20` and masked (fewer bytes for short patterns).

/** Must match gramMayStart in assembly/filter.ts. */
export function gramHash(key: number): number {
  return Math.imul(key, 0x9e3779b1) >>> 17;
}

/** The set of the hashed keys, as the core reads it. */
export function startSet(keys: Iterable<number>): Uint8Array {
  const bits = new Uint8Array(4096);
  for (const key of keys) {
    const h = gramHash(key);
    bits[h >> 3]! |= 1 << (h & 7);
  }
  return bits;
}

/** The mask of the first `n` bytes (at most 4) of a key. */
export const keyMask = (n: number): number => (n >= 4 ? 0xffffffff : 2 ** (8 * n) - 1);

/**
 * The start set of byte patterns (alternatives per position, cased letters as [lower, upper]):
 * each pattern's first four bytes, folded and masked to the shortest pattern's length.
 */
export function patternStartSet(seqs: readonly (readonly (readonly number[])[])[]): { grams: Uint8Array; gramMask: number } {
  const gramMask = keyMask(Math.min(4, ...seqs.map((s) => s.length)));
  const keys = seqs.map((seq) => {
    let key = 0;
    for (let j = 0; j < 4; j++) key |= ((seq[j]?.[0] ?? 0) | 0x20) << (8 * j);
    return (key & gramMask) >>> 0;
  });
  return { grams: startSet(keys), gramMask };
}
