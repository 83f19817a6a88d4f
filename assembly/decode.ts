// Token restoration for the JSON transducer: prefix (any ASCII case) + an even number (>= 2)
// of hex digits + suffix, whose bytes must be valid UTF-8. One pass, left to right; after a
// failed candidate the scan resumes one byte after where it began (the prefix is ASCII, so one
// byte is one character). A record per token goes to `out`: [start, end) in bytes and its
// decoded byte count; the decoded bytes, back to back, go to `aux`. (JS strings are decoded by
// src/codec/token-decode.ts on the same rules: tokens are ASCII, so no UTF-8 is needed there.)
import { D_MATCHES, D_PREFIX, D_PREFIX_LEN, D_SUFFIX, D_SUFFIX_LEN, TOKEN_RECORD_SIZE } from './abi';
import { CASE_BIT, DIGIT_0, LOWER_A, UPPER_A } from './bytes';
import { lanesBelow } from './lanes';
import { isValidUtf8 } from './utf8';

@inline function foldAscii(b: u32): u32 {
  return b - UPPER_A < 26 ? b | CASE_BIT : b;
}

/** The value of a hex digit in either case, or -1. */
@inline export function hexValue(b: u32): i32 {
  if (b - DIGIT_0 < 10) return <i32>(b - DIGIT_0);
  const l = (b | CASE_BIT) - LOWER_A;
  return l < 6 ? <i32>(l + 10) : -1;
}

/** The value of a byte known to be a hex digit: '0'-'9' are 0x3_, 'a'-'f' and 'A'-'F' 0x6_ and 0x4_. */
@inline function hexDigit(b: u32): u32 {
  return (b & 15) + 9 * (b >> 6);
}

/** Whether the `pl` (at most 16) bytes at p, ASCII letters lowered, are the prefix at `pre`. */
@inline function prefixAt(p: usize, pre: usize, pl: i32): bool {
  const v = v128.load(p);
  const upper = lanesBelow(i8x16.sub(v, i8x16.splat(<i8>UPPER_A)), 26);
  const folded = v128.or(v, v128.and(upper, i8x16.splat(<i8>CASE_BIT)));
  // (the descriptor's tables are 16-byte aligned and padded: 16 bytes at `pre` are readable)
  const same = i8x16.bitmask(i8x16.eq(folded, v128.load(pre)));
  const want = pl == 16 ? 0xffff : (1 << pl) - 1;
  return (same & want) == want;
}

/** The end of the run of hex digits (either case) from j. */
function hexRunEnd(inp: usize, j: i32, len: i32): i32 {
  if (ASC_FEATURE_SIMD) {
    while (j + 16 <= len) {
      const v = v128.load(inp + <usize>j);
      const digit = lanesBelow(i8x16.sub(v, i8x16.splat(<i8>DIGIT_0)), 10);
      const letter = lanesBelow(i8x16.sub(v128.or(v, i8x16.splat(<i8>CASE_BIT)), i8x16.splat(<i8>LOWER_A)), 6);
      const hex = i8x16.bitmask(v128.or(digit, letter));
      if (hex != 0xffff) return j + ctz(~hex);
      j += 16;
    }
  }
  while (j < len && hexValue(<u32>load<u8>(inp + <usize>j)) >= 0) j++;
  return j;
}

/**
 * Lane k: whether the two bytes at p + k may begin the prefix, whose first two bytes are v0 and
 * v1 (splatted, with CASE_BIT set): both with CASE_BIT set equal them. Reads 17 bytes.
 */
@inline function prefixPairs(p: usize, v0: v128, v1: v128): v128 {
  const fold = i8x16.splat(<i8>CASE_BIT);
  return v128.and(i8x16.eq(v128.or(v128.load(p), fold), v0), i8x16.eq(v128.or(v128.load(p, 1), fold), v1));
}

/** Next position >= from whose first two bytes may begin the prefix (folded with | CASE_BIT). */
function nextPrefix(inp: usize, from: i32, len: i32, p0: u32, p1: u32, pl: i32): i32 {
  let b = from;
  if (ASC_FEATURE_SIMD) {
    const fold = i8x16.splat(<i8>CASE_BIT);
    const v0 = i8x16.splat(<i8>(p0 | CASE_BIT));
    const v1 = i8x16.splat(<i8>(p1 | CASE_BIT));
    if (pl >= 2) {
      while (b + 17 <= len) {
        const r = prefixPairs(inp + <usize>b, v0, v1);
        if (v128.any_true(r)) return b + ctz(i8x16.bitmask(r));
        b += 16;
      }
    } else {
      while (b + 16 <= len) {
        const r = i8x16.eq(v128.or(v128.load(inp + <usize>b), fold), v0);
        if (v128.any_true(r)) return b + ctz(i8x16.bitmask(r));
        b += 16;
      }
    }
  }
  while (b < len) {
    if (foldAscii(<u32>load<u8>(inp + <usize>b)) == p0) {
      if (pl < 2 || b + 1 >= len || foldAscii(<u32>load<u8>(inp + <usize>b + 1)) == p1) return b;
    }
    b++;
  }
  return len;
}

/** Strings up to this long are looked at by mayHoldToken: eight blocks, each a few instructions. */
export const TOKEN_BLOCKS: i32 = 128;

/**
 * The indexed path's check before it calls decode (SIMD): whether a token (`shortest` bytes at
 * least) may start in the n (at most TOKEN_BLOCKS) bytes at p: false only when no start where
 * it fits holds the prefix's first two bytes as nextPrefix finds them (prefixPairs).
 */
@inline export function mayHoldToken(desc: usize, p: usize, n: i32, shortest: i32): bool {
  const pre = load<u32>(desc + D_PREFIX) as usize;
  if (load<u32>(desc + D_PREFIX_LEN) < 2) return true;
  if (n < 17 && p + 17 > (<usize>memory.size() << 16)) return true;
  const v0 = i8x16.splat(<i8>(load<u8>(pre) | CASE_BIT));
  const v1 = i8x16.splat(<i8>(load<u8>(pre, 1) | CASE_BIT));
  const last = n - shortest;
  for (let b: i32 = 0; b <= last; b += 16) {
    // Lane k of the block at q tests the start q + k: starts b to last are kept.
    const q = n < 17 ? 0 : min(b, n - 17);
    const hit = i8x16.bitmask(prefixPairs(p + <usize>q, v0, v1)) & ~((1 << (b - q)) - 1) & ((2 << min(last - q, 15)) - 1);
    if (hit != 0) return true;
  }
  return false;
}

/**
 * Set by `decode` when a candidate's hex digits ran to the end of the input (not final): how
 * many bytes, from the candidate's start, are its prefix and hex digits; else 0. Passed back
 * as `known` once the candidate starts the input, so a long one is not scanned again and
 * again as its bytes arrive.
 */
export let candidateKnown: i32 = 0;

/** Clears candidateKnown (before a call that may not reach decode). */
@inline export function forgetCandidate(): void {
  candidateKnown = 0;
}

/**
 * Finds tokens in `len` bytes at `inp`. Returns how many input bytes are final; unless
 * `final`, a candidate token that reaches the end of the input is left for the next call.
 * `known`: bytes at the start of the input already found to be a candidate's prefix and hex
 * digits (see candidateKnown), or 0.
 * Room needed: TOKEN_RECORD_SIZE (12) bytes per possible token at `out`, `len` bytes at `aux`.
 */
export function decode(desc: usize, inp: usize, len: i32, out: usize, final: i32, aux: usize, known: i32 = 0): i32 {
  const pre = load<u32>(desc + D_PREFIX) as usize;
  const pl = <i32>load<u32>(desc + D_PREFIX_LEN);
  const suf = load<u32>(desc + D_SUFFIX) as usize;
  const sl = <i32>load<u32>(desc + D_SUFFIX_LEN);
  const p0 = <u32>load<u8>(pre);
  const p1 = pl > 1 ? <u32>load<u8>(pre + 1) : 0;
  let o = out; // next record
  let a = aux; // next decoded byte
  let i: i32 = 0;
  let matches: i32 = 0;
  let consumed = len;
  candidateKnown = 0;
  while (true) {
    const c = nextPrefix(inp, i, len, p0, p1, pl);
    if (c >= len) break;
    i = c + 1; // where the scan resumes if this candidate fails
    let k: i32 = 0;
    if (ASC_FEATURE_SIMD && pl <= 16 && c + 16 <= len) {
      // The whole prefix in one block (no end of input within it).
      if (!prefixAt(inp + <usize>c, pre, pl)) continue;
      k = pl;
    } else {
      while (k < pl && c + k < len && foldAscii(<u32>load<u8>(inp + <usize>(c + k))) == <u32>load<u8>(pre + <usize>k)) k++;
      if (k < pl) {
        if (c + k >= len && !final) { consumed = c; break; }
        continue;
      }
    }
    const hs = c + pl;
    let j = hexRunEnd(inp, c == 0 && known > hs ? min(known, len) : hs, len);
    if (j >= len && !final) {
      consumed = c;
      candidateKnown = len - c;
      break;
    }
    const h = j - hs;
    if (h < 2 || (h & 1) != 0) continue;
    let m: i32 = 0;
    while (m < sl && j + m < len && load<u8>(inp + <usize>(j + m)) == load<u8>(suf + <usize>m)) m++;
    if (m < sl) {
      if (j + m >= len && !final) { consumed = c; break; }
      continue;
    }
    // Decode into aux; it counts only if the bytes are valid UTF-8.
    const n = h >> 1;
    for (let q: i32 = 0; q < n; q++) {
      const hi = hexDigit(<u32>load<u8>(inp + <usize>(hs + 2 * q)));
      const lo = hexDigit(<u32>load<u8>(inp + <usize>(hs + 2 * q + 1)));
      store<u8>(a + <usize>q, <u8>((hi << 4) | lo));
    }
    if (!isValidUtf8(a, n)) continue;
    const end = j + sl;
    store<u32>(o, <u32>c);
    store<u32>(o, <u32>end, 4);
    store<u32>(o, <u32>n, 8);
    o += TOKEN_RECORD_SIZE;
    a += <usize>n;
    matches++;
    i = end;
  }
  store<u32>(desc + D_MATCHES, <u32>matches);
  return consumed;
}
