// UTF-16 length of UTF-8 text: one unit per non-continuation byte, one more per 4-byte lead.

export function utf16Units(p: usize, n: i32): i32 {
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
      const sum = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(acc));
      count += i32x4.extract_lane(sum, 0) + i32x4.extract_lane(sum, 1) + i32x4.extract_lane(sum, 2) + i32x4.extract_lane(sum, 3);
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
