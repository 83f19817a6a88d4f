// UTF-16 length of UTF-8 text: one unit per non-continuation byte, one more per 4-byte lead.

/** (Inlined: the scan calls it twice a match, mostly for a few bytes.) */
@inline export function utf16Units(p: usize, n: i32): i32 {
  let count: i32 = 0;
  let k: i32 = 0;
  if (ASC_FEATURE_SIMD) {
    // Counted in the lanes of a vector (minus the all-ones of each true comparison), summed
    // every 127 blocks, before a lane (at most 2 a block) could overflow.
    const cont = i8x16.splat(-65); // bytes above 0xBF or below 0x80 as signed: > -65
    const lead4 = i8x16.splat(<i8>0xf0);
    while (k + 16 <= n) {
      const stop = min(n - 15, k + 16 * 127);
      let acc = i8x16.splat(0);
      do {
        const v = v128.load(p + <usize>k);
        acc = i8x16.sub(acc, i8x16.gt_s(v, cont));
        acc = i8x16.sub(acc, i8x16.eq(i8x16.min_u(v, lead4), lead4));
        k += 16;
      } while (k < stop);
      count += sum(acc);
    }
    // The last bytes (most calls are a match or the gap before it: all of them) in one vector,
    // the lanes past n made continuation bytes, where 16 bytes can be read.
    if (k < n && p + <usize>k + 16 <= (<usize>memory.size() << 16)) {
      const lanes = i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
      const v = v128.bitselect(v128.load(p + <usize>k), i8x16.splat(<i8>0x80), i8x16.lt_u(lanes, i8x16.splat(<i8>(n - k))));
      count += sum(i8x16.sub(i8x16.sub(i8x16.splat(0), i8x16.gt_s(v, cont)), i8x16.eq(i8x16.min_u(v, lead4), lead4)));
      k = n;
    }
  }
  while (k < n) {
    const b = <u32>load<u8>(p + <usize>k);
    if ((b & 0xc0) != 0x80) count++;
    if (b >= 0xf0) count++;
    k++;
  }
  return count;
}

/** The sum of the sixteen u8 lanes of `acc`. */
@inline function sum(acc: v128): i32 {
  const s = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(acc));
  return i32x4.extract_lane(s, 0) + i32x4.extract_lane(s, 1) + i32x4.extract_lane(s, 2) + i32x4.extract_lane(s, 3);
}
