// Candidate filtering. Stage 1, Teddy's SIMD fingerprint (teddyBlock), runs in match.ts's loop;
// stage 2 is a hashed set of the patterns' folded first four bytes (fewer for short patterns),
// which drops most stage-1 false positives (English trigrams such as "tio", "ing") before any
// automaton walk. The indexed path (json/indexed-rewrite.ts) asks the same of a short string
// before it calls the matcher (and decode.ts mayHoldToken of a short decoded string whether a
// token may start in it).
import { D_GRAMS, D_GRAM_MASK, D_TEDDY, D_TEDDY_ASCII } from './abi';
import { CASE_BIT } from './bytes';
import { highNibbles } from './lanes';

/** False only when no pattern can start at p. Reads 4 bytes at p. */
@inline export function gramMayStart(desc: usize, p: usize): bool {
  const key = (load<u32>(p) | 0x20202020) & load<u32>(desc + D_GRAM_MASK);
  const h = (key * 0x9e3779b1) >> 17;
  return (load<u8>((load<u32>(desc + D_GRAMS) as usize) + <usize>(h >> 3)) & (1 << (h & 7))) != 0;
}

/**
 * Stage 1 (Teddy) on one block with nothing before it, the masks at `t`: lane k (3-15) of the
 * result is not zero when the 4-byte fingerprint starting at lane k - 3 of `raw` is a
 * candidate. match.ts's loop carries lanes 0-2 from the block before; a short string needs none.
 */
@inline export function teddyBlock(t: usize, raw: v128): v128 {
  const v = v128.or(raw, i8x16.splat(<i8>CASE_BIT));
  const l = v128.and(v, i8x16.splat(0x0f));
  const h = highNibbles(v);
  const zero = i8x16.splat(0);
  const m0 = v128.and(i8x16.swizzle(v128.load(t), l), i8x16.swizzle(v128.load(t, 16), h));
  const m1 = v128.and(i8x16.swizzle(v128.load(t, 32), l), i8x16.swizzle(v128.load(t, 48), h));
  const m2 = v128.and(i8x16.swizzle(v128.load(t, 64), l), i8x16.swizzle(v128.load(t, 80), h));
  const m3 = v128.and(i8x16.swizzle(v128.load(t, 96), l), i8x16.swizzle(v128.load(t, 112), h));
  const a0 = i8x16.shuffle(zero, m0, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28);
  const a1 = i8x16.shuffle(zero, m1, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
  const a2 = i8x16.shuffle(zero, m2, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  return v128.and(v128.and(a0, a1), v128.and(a2, m3));
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

/** Strings up to this long are looked at by mayStartInBlocks: three blocks at most. */
export const SHORT_BLOCKS: i32 = 32;
/**
 * mayStartIn (SIMD) for n (at most SHORT_BLOCKS) final bytes at p, with the matcher's own two
 * tests: Teddy's fingerprints (teddyBlock) on blocks of 16 that overlap to cover every start
 * where the shortest match fits, then gramMayStart on each candidate. False only when the
 * matcher would walk no candidate; about one block's cost where its call costs some 12 ns.
 */
@inline export function mayStartInBlocks(desc: usize, p: usize, n: i32, shortest: i32): bool {
  if (shortest < 4) return true;
  // (under 16 bytes the block reads what follows, its lanes dropped: within memory only)
  if (n < 16 && p + 16 > (<usize>memory.size() << 16)) return mayStartIn(desc, p, n, shortest);
  const ascii = load<u32>(desc + D_TEDDY_ASCII) as usize;
  const t = ascii != 0 && isAscii(p, n) ? ascii : (load<u32>(desc + D_TEDDY) as usize);
  const last = n - shortest; // (the last start)
  for (let b: i32 = 0; b <= last; b += 13) {
    // Lane k of the block at q tests the start q + k - 3 (k >= 3): starts b to last are kept.
    const q = n < 16 ? 0 : min(b, n - 16);
    const hit = i8x16.bitmask(i8x16.ne(teddyBlock(t, v128.load(p + <usize>q)), i8x16.splat(0)));
    let mask = hit & ~((1 << (b - q + 3)) - 1) & ((2 << min(last - q + 3, 15)) - 1);
    while (mask != 0) {
      if (gramMayStart(desc, p + <usize>(q + ctz(mask) - 3))) return true;
      mask &= mask - 1;
    }
  }
  return false;
}

/** Whether the n bytes at p (n < 16: within memory) are ASCII. */
@inline export function isAscii(p: usize, n: i32): bool {
  if (n < 16) return (i8x16.bitmask(v128.load(p)) & ((1 << n) - 1)) == 0;
  let high = i8x16.bitmask(v128.load(p + <usize>(n - 16)));
  for (let q: i32 = 0; q < n - 16; q += 16) high |= i8x16.bitmask(v128.load(p + <usize>q));
  return high == 0;
}

/** Where the first block of 16 from inp holding a byte >= 0x80 starts (or the last whole block ends). */
@inline export function asciiBlocksEnd(inp: usize, len: i32): i32 {
  let q: i32 = 0;
  for (; q + 64 <= len; q += 64) {
    const v = v128.or(v128.or(v128.load(inp + <usize>q), v128.load(inp + <usize>q, 16)), v128.or(v128.load(inp + <usize>q, 32), v128.load(inp + <usize>q, 48)));
    if (i8x16.bitmask(v) != 0) break;
  }
  while (q + 16 <= len && i8x16.bitmask(v128.load(inp + <usize>q)) == 0) q += 16;
  return q;
}
