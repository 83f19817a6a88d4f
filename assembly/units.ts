// UTF-16 length of UTF-8 text: one unit per non-continuation byte, one more per 4-byte lead.

export function utf16Units(p: usize, n: i32): i32 {
  let count: i32 = 0;
  let k: i32 = 0;
  if (ASC_FEATURE_SIMD) {
    const cont = i8x16.splat(-65); // bytes above 0xBF or below 0x80 as signed: > -65
    const lead4 = i8x16.splat(<i8>0xef);
    while (k + 16 <= n) {
      const v = v128.load(p + <usize>k);
      count += popcnt(i8x16.bitmask(i8x16.gt_s(v, cont))) + popcnt(i8x16.bitmask(i8x16.gt_u(v, lead4)));
      k += 16;
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
