// UTF-8 validation 16 bytes at a time, after Keiser and Lemire ("Validating UTF-8 in less than
// one instruction per byte", 2021): three nibble lookups classify every pair of adjacent bytes,
// and a saturating subtraction finds the bytes that must be the 3rd or 4th of a sequence. As
// strict as utf8SequenceAt: no overlongs, no surrogates, nothing past U+10FFFF.
import { highNibbles } from './lanes';

// Error bits; a pair of bytes is bad when the three lookups agree on one.
const TOO_SHORT: i32 = 1 << 0; // a lead byte not followed by a continuation byte
const TOO_LONG: i32 = 1 << 1; // a continuation byte after ASCII
const OVERLONG_3: i32 = 1 << 2;
const TOO_LARGE: i32 = 1 << 3;
const SURROGATE: i32 = 1 << 4;
const OVERLONG_2: i32 = 1 << 5;
const TOO_LARGE_1000: i32 = 1 << 6;
const OVERLONG_4: i32 = 1 << 6;
const TWO_CONTS: i32 = 1 << 7; // a continuation after a continuation (fine as a 3rd or 4th byte)
const CARRY: i32 = TOO_SHORT | TOO_LONG | TWO_CONTS;

/**
 * Nonzero lanes where `v` (the 16 bytes after `prev`) breaks UTF-8. A sequence cut off at the
 * end of `v` is not an error here: the next block, or the caller, decides it.
 */
@inline export function utf8BlockErrors(prev: v128, v: v128): v128 {
  return utf8ErrorsWith(prev, v, highNibbles(prev), highNibbles(v));
}

/**
 * utf8BlockErrors with the high nibbles of prev and v at hand (highNibbles): a run of vectors
 * shifts each once, not twice (stage 1's UTF-8 check on CJK text, json/structural.ts).
 */
@inline export function utf8ErrorsWith(prev: v128, v: v128, prevHigh: v128, vHigh: v128): v128 {
  // (Tables are local: a module-level v128 would not compile for the scalar build.)
  // By the high nibble of the first byte of the pair.
  const B1_HIGH = i8x16(
    <i8>TOO_LONG, <i8>TOO_LONG, <i8>TOO_LONG, <i8>TOO_LONG,
    <i8>TOO_LONG, <i8>TOO_LONG, <i8>TOO_LONG, <i8>TOO_LONG,
    <i8>TWO_CONTS, <i8>TWO_CONTS, <i8>TWO_CONTS, <i8>TWO_CONTS,
    <i8>(TOO_SHORT | OVERLONG_2), <i8>TOO_SHORT, <i8>(TOO_SHORT | OVERLONG_3 | SURROGATE), <i8>(TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4),
  );
  // By the low nibble of the first byte.
  const B1_LOW = i8x16(
    <i8>(CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4), <i8>(CARRY | OVERLONG_2), <i8>CARRY, <i8>CARRY,
    <i8>(CARRY | TOO_LARGE), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000),
    <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000),
    <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000), <i8>(CARRY | TOO_LARGE | TOO_LARGE_1000),
  );
  // By the high nibble of the second byte.
  const B2_HIGH = i8x16(
    <i8>TOO_SHORT, <i8>TOO_SHORT, <i8>TOO_SHORT, <i8>TOO_SHORT,
    <i8>TOO_SHORT, <i8>TOO_SHORT, <i8>TOO_SHORT, <i8>TOO_SHORT,
    <i8>(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4), <i8>(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE), <i8>(TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE), <i8>(TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE),
    <i8>TOO_SHORT, <i8>TOO_SHORT, <i8>TOO_SHORT, <i8>TOO_SHORT,
  );
  const prev1 = i8x16.shuffle(prev, v, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  const prev2 = i8x16.shuffle(prev, v, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
  const prev3 = i8x16.shuffle(prev, v, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28);
  const low = i8x16.splat(0x0f);
  // (prev1's high nibbles: those of prev and v, shifted as prev1 is)
  const prev1High = i8x16.shuffle(prevHigh, vHigh, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  const special = v128.and(
    v128.and(i8x16.swizzle(B1_HIGH, prev1High), i8x16.swizzle(B1_LOW, v128.and(prev1, low))),
    i8x16.swizzle(B2_HIGH, vHigh),
  );
  // Only 111xxxxx two back or 1111xxxx three back leave the top bit set.
  const third = i8x16.sub_sat_u(prev2, i8x16.splat(<i8>(0xe0 - 0x80)));
  const fourth = i8x16.sub_sat_u(prev3, i8x16.splat(<i8>(0xf0 - 0x80)));
  const must = v128.and(v128.or(third, fourth), i8x16.splat(<i8>0x80));
  return v128.xor(must, special);
}

/** Start of the character the bytes before `j` (from `i` on) leave unfinished, or `j`. */
@inline export function sequenceStart(p: usize, i: i32, j: i32): i32 {
  if (j - 1 >= i && load<u8>(p + <usize>(j - 1)) >= 0xc0) return j - 1;
  if (j - 2 >= i && load<u8>(p + <usize>(j - 2)) >= 0xe0) return j - 2;
  if (j - 3 >= i && load<u8>(p + <usize>(j - 3)) >= 0xf0) return j - 3;
  return j;
}
