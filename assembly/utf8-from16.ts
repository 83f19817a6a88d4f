// UTF-16 to UTF-8 as TextEncoder writes it (a lone surrogate becomes U+FFFD, EF BF BD), for
// encodeText's input where the host copies the string in as UTF-16 (Node's Buffer: ucs2Write).
// V8's encodeInto goes a unit at a time through any string with a character past ASCII (2.2-2.6
// µs for 4 KiB of mixed or Latin-1 text); here ASCII goes 16 units a step and the rest of the
// BMP 4 units a step, each unit's bytes made in a vector lane and packed by a shuffle from a
// table. Only blocks with a surrogate go a unit at a time.
import { utf8Encode } from './utf8';

// Shuffles from a table, made on the first call: PACK8 packs eight 2-byte lanes of 1 or 2
// bytes each, indexed by which lanes are past U+007F; PACK4 packs four 4-byte lanes of 1, 2 or
// 3 bytes, indexed by which are past U+007F (bits 0-3) and past U+07FF (bits 4-7). An index of
// 0xFF picks nothing (zero).
const PACK8 = memory.data(256 * 16, 16);
const PACK4 = memory.data(256 * 16, 16);
// For eight lanes of 1 or 3 bytes (ASCII among CJK), indexed by which lanes are past U+007F:
// four shuffles per row, of the lanes' first two bytes and of their third, into two vectors.
const PACK13 = memory.data(256 * 64, 16);
let packsMade = false;

function makePacks(): void {
  for (let m = 0; m < 256; m++) {
    let row = PACK8 + (<usize>m << 4);
    let o: usize = 0;
    for (let lane = 0; lane < 8; lane++) {
      store<u8>(row + o++, <u8>(lane * 2));
      if ((m >> lane) & 1) store<u8>(row + o++, <u8>(lane * 2 + 1));
    }
    for (; o < 16; o++) store<u8>(row + o, 0xff);
    row = PACK4 + (<usize>m << 4);
    o = 0;
    for (let lane = 0; lane < 4; lane++) {
      const len = 1 + ((m >> lane) & 1) + ((m >> (lane + 4)) & 1);
      for (let b = 0; b < len; b++) store<u8>(row + o++, <u8>(lane * 4 + b));
    }
    for (; o < 16; o++) store<u8>(row + o, 0xff);
    // PACK13: output byte k (0-31) from the first two bytes (row + k) or the third (row + 32 + k).
    row = PACK13 + (<usize>m << 6);
    for (let k: usize = 0; k < 64; k++) store<u8>(row + k, 0xff);
    o = 0;
    for (let lane = 0; lane < 8; lane++) {
      store<u8>(row + o++, <u8>(lane * 2));
      if ((m >> lane) & 1) {
        store<u8>(row + o++, <u8>(lane * 2 + 1));
        store<u8>(row + 32 + o++, <u8>(lane * 2));
      }
    }
  }
  packsMade = true;
}

/** Eight units below U+0800 in `c` as UTF-8 at `o`; returns the end (16 bytes written). */
@inline function below800(o: usize, c: v128): usize {
  const two = v128.or(v128.or(i16x8.shr_u(c, 6), i16x8.splat(0xc0)), i16x8.shl(v128.or(v128.and(c, i16x8.splat(0x3f)), i16x8.splat(0x80)), 8));
  const past7f = i16x8.gt_u(c, i16x8.splat(0x7f));
  const m = <u32>i16x8.bitmask(past7f);
  v128.store(o, i8x16.swizzle(v128.bitselect(two, c, past7f), v128.load(PACK8 + (<usize>m << 4))));
  return o + 8 + <usize>popcnt(m);
}

/** Eight units from U+0800 on, no surrogate, in `c` as UTF-8 at `o` (24 bytes; 32 written). */
@inline function threeBytes(o: usize, c: v128): usize {
  const cont = i16x8.splat(0x80);
  const six = i16x8.splat(0x3f);
  const lead = v128.or(i16x8.shr_u(c, 12), i16x8.splat(0xe0));
  const first2 = v128.or(lead, i16x8.shl(v128.or(v128.and(i16x8.shr_u(c, 6), six), cont), 8));
  const last = v128.or(v128.and(c, six), cont);
  v128.store(o, i8x16.shuffle(first2, last, 0, 1, 16, 2, 3, 18, 4, 5, 20, 6, 7, 22, 8, 9, 24, 10));
  v128.store(o, i8x16.shuffle(first2, last, 11, 26, 12, 13, 28, 14, 15, 30, 0, 0, 0, 0, 0, 0, 0, 0), 16);
  return o + 24;
}

/**
 * Eight units, each ASCII or from U+0800 on (no surrogate), in `c` as UTF-8 at `o`; returns the
 * end (32 bytes written).
 */
@inline function oneOrThree(o: usize, c: v128): usize {
  const cont = i16x8.splat(0x80);
  const six = i16x8.splat(0x3f);
  const past7f = i16x8.gt_u(c, i16x8.splat(0x7f));
  const lead = v128.bitselect(v128.or(i16x8.shr_u(c, 12), i16x8.splat(0xe0)), c, past7f);
  const first2 = v128.or(lead, i16x8.shl(v128.or(v128.and(i16x8.shr_u(c, 6), six), cont), 8));
  const last = v128.or(v128.and(c, six), cont);
  const m = <u32>i16x8.bitmask(past7f);
  const row = PACK13 + (<usize>m << 6);
  v128.store(o, v128.or(i8x16.swizzle(first2, v128.load(row)), i8x16.swizzle(last, v128.load(row, 32))));
  v128.store(o, v128.or(i8x16.swizzle(first2, v128.load(row, 16)), i8x16.swizzle(last, v128.load(row, 48))), 16);
  return o + 8 + 2 * <usize>popcnt(m);
}

/** Four BMP units (not surrogates) in u32 lanes as UTF-8 at `o`; returns the end (16 bytes written). */
@inline function bmp4(o: usize, c: v128): usize {
  const low6 = v128.or(v128.and(c, i32x4.splat(0x3f)), i32x4.splat(0x80));
  const mid6 = v128.or(v128.and(i32x4.shr_u(c, 6), i32x4.splat(0x3f)), i32x4.splat(0x80));
  const two = v128.or(v128.or(i32x4.shr_u(c, 6), i32x4.splat(0xc0)), i32x4.shl(low6, 8));
  const three = v128.or(v128.or(i32x4.shr_u(c, 12), i32x4.splat(0xe0)), v128.or(i32x4.shl(mid6, 8), i32x4.shl(low6, 16)));
  const past7f = i32x4.gt_u(c, i32x4.splat(0x7f));
  const past7ff = i32x4.gt_u(c, i32x4.splat(0x7ff));
  const lanes = v128.bitselect(three, v128.bitselect(two, c, past7f), past7ff);
  const m = <u32>(i32x4.bitmask(past7f) | (i32x4.bitmask(past7ff) << 4));
  v128.store(o, i8x16.swizzle(lanes, v128.load(PACK4 + (<usize>m << 4))));
  return o + 4 + <usize>popcnt(m);
}

/**
 * Writes the UTF-8 of `units` UTF-16 units at `src` to `dst` (room for 3 bytes a unit and 16
 * more, which it may write past its output); returns the bytes written and stores, as a u32 at
 * `lone`, how many lone surrogates it wrote as U+FFFD. A high surrogate that ends the units is
 * lone: the caller ends a piece of a longer string before one.
 */
export function utf16ToUtf8(src: usize, units: i32, dst: usize, lone: usize): i32 {
  if (ASC_FEATURE_SIMD && !packsMade) makePacks();
  let i: i32 = 0;
  let o = dst;
  let bad: u32 = 0;
  let stop: i32 = 0; // units before this go one by one (a block with a surrogate)
  while (i < units) {
    if (ASC_FEATURE_SIMD && i >= stop && i + 16 <= units) {
      // Each kind of block in a loop of its own while it lasts: ASCII 32 units a step (a
      // step through the outer loop cost as much as the block), below U+0800, three bytes.
      const notAscii = i16x8.splat(<i16>0xff80);
      const past7ff = i16x8.splat(<i16>0xf800);
      while (i + 32 <= units) {
        const p = src + (<usize>i << 1);
        const a0 = v128.load(p);
        const a1 = v128.load(p, 16);
        const a2 = v128.load(p, 32);
        const a3 = v128.load(p, 48);
        if (v128.any_true(v128.and(v128.or(v128.or(a0, a1), v128.or(a2, a3)), notAscii))) break;
        v128.store(o, i8x16.narrow_i16x8_u(a0, a1));
        v128.store(o, i8x16.narrow_i16x8_u(a2, a3), 16);
        o += 32;
        i += 32;
      }
      if (i + 16 > units) continue;
      let a = v128.load(src + (<usize>i << 1));
      let b = v128.load(src + (<usize>i << 1), 16);
      if (!v128.any_true(v128.and(v128.or(a, b), notAscii))) {
        v128.store(o, i8x16.narrow_i16x8_u(a, b));
        o += 16;
        i += 16;
        continue;
      }
      // (The two runs below share a shape but stay two loops: one loop choosing its kind once was
      // 1.2-1.6x slower on Latin-1 and CJK text; the kind test is not hoisted out of it.)
      if (!v128.any_true(v128.and(v128.or(a, b), past7ff))) {
        // Below U+0800 (Latin-1 text): until a block is all ASCII or has more.
        do {
          o = below800(below800(o, a), b);
          i += 16;
          if (i + 16 > units) break;
          a = v128.load(src + (<usize>i << 1));
          b = v128.load(src + (<usize>i << 1), 16);
        } while (!v128.any_true(v128.and(v128.or(a, b), past7ff)) && v128.any_true(v128.and(v128.or(a, b), notAscii)));
        continue;
      }
      const surrogate = i16x8.splat(<i16>0xd800);
      if (threeEach(a, b)) {
        // Three bytes each (CJK text) while it lasts.
        do {
          o = threeBytes(threeBytes(o, a), b);
          i += 16;
          if (i + 16 > units) break;
          a = v128.load(src + (<usize>i << 1));
          b = v128.load(src + (<usize>i << 1), 16);
        } while (threeEach(a, b));
        continue;
      }
      // Kinds mixed (scattered CJK words): eight units at a time, ASCII; ASCII and three
      // bytes each; the BMP without surrogates; else one by one.
      if (!v128.any_true(v128.and(a, notAscii))) {
        v128.store(o, i8x16.narrow_i16x8_u(a, a));
        o += 8;
        i += 8;
        continue;
      }
      const high = v128.and(a, past7ff);
      if (!v128.any_true(i16x8.eq(high, surrogate))) {
        // (a lane below U+0800 but past ASCII)
        if (!v128.any_true(v128.andnot(i16x8.eq(high, i16x8.splat(0)), i16x8.eq(v128.and(a, notAscii), i16x8.splat(0))))) o = oneOrThree(o, a);
        else o = bmp4(bmp4(o, i32x4.extend_low_i16x8_u(a)), i32x4.extend_high_i16x8_u(a));
        i += 8;
        continue;
      }
      stop = i + 8;
    } else if (!ASC_FEATURE_SIMD && i + 4 <= units) {
      // Four ASCII units at a time in a 64-bit word.
      const x = load<u64>(src + (<usize>i << 1));
      if ((x & 0xff80ff80ff80ff80) == 0) {
        store<u32>(o, <u32>((x & 0xff) | ((x >> 8) & 0xff00) | ((x >> 16) & 0xff0000) | ((x >> 24) & 0xff000000)));
        o += 4;
        i += 4;
        continue;
      }
    }
    const n = character(src, i, units, o);
    if (n == 0) {
      o += 3;
      bad++;
      i++;
    } else {
      o += <usize>n;
      i += n == 4 ? 2 : 1;
    }
  }
  store<u32>(lone, bad);
  return <i32>(o - dst);
}

/** Whether all sixteen units in a and b are from U+0800 on and none is a surrogate. */
@inline function threeEach(a: v128, b: v128): bool {
  const past7ff = i16x8.splat(<i16>0xf800);
  const surrogate = i16x8.splat(<i16>0xd800);
  const ha = v128.and(a, past7ff);
  const hb = v128.and(b, past7ff);
  return i16x8.all_true(ha) && i16x8.all_true(hb) && !v128.any_true(v128.or(i16x8.eq(ha, surrogate), i16x8.eq(hb, surrogate)));
}

/**
 * Writes the character at unit i at `o` (utf8Encode): returns its bytes (4 for a surrogate pair,
 * its two units), or 0 for a lone surrogate, written as U+FFFD (3 bytes).
 */
@inline function character(src: usize, i: i32, units: i32, o: usize): u32 {
  const c = <u32>load<u16>(src + (<usize>i << 1));
  if ((c & 0xf800) != 0xd800) return <u32>utf8Encode(o, c);
  const d = c <= 0xdbff && i + 1 < units ? <u32>load<u16>(src + (<usize>(i + 1) << 1)) : 0;
  if ((d & 0xfc00) != 0xdc00) {
    utf8Encode(o, 0xfffd);
    return 0;
  }
  return <u32>utf8Encode(o, 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00));
}
