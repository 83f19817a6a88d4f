// Candidate filtering, stage 2 (stage 1, the SIMD fingerprint, is inline in match.ts's loop):
// a hashed set of the patterns' folded first four bytes (fewer for short patterns). It drops
// most stage-1 false positives (English trigrams such as "tio", "ing") before any automaton
// walk.
import { D_GRAMS, D_GRAM_MASK } from './abi';

/** False only when no pattern can start at p. Reads 4 bytes at p. */
@inline export function gramMayStart(desc: usize, p: usize): bool {
  const key = (load<u32>(p) | 0x20202020) & load<u32>(desc + D_GRAM_MASK);
  const h = (key * 0x9e3779b1) >> 17;
  return (load<u8>((load<u32>(desc + D_GRAMS) as usize) + <usize>(h >> 3)) & (1 << (h & 7))) != 0;
}

/**
 * Whether a match may start in the n final bytes at p: false only when no position where the
 * shortest match (`shortest` bytes) fits passes gramMayStart, which match.ts asks of every
 * candidate it walks but those fewer than 4 bytes from the end (tried whenever the shortest
 * match is that short). For a short string the loop costs less than the matcher's call.
 */
@inline export function mayStartIn(desc: usize, p: usize, n: i32, shortest: i32): bool {
  if (shortest < 4) return true;
  for (let c: i32 = 0; c <= n - shortest; c++) if (gramMayStart(desc, p + <usize>c)) return true;
  return false;
}
