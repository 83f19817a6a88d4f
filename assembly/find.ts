// The first of one byte value in a range: 16 bytes at a time with SIMD, eight without.

/** Index of the first byte equal to `byte` in p[from, limit), or `limit`. */
@inline export function findByte(p: usize, from: i32, limit: i32, byte: u8): i32 {
  let j = from;
  if (ASC_FEATURE_SIMD) {
    const wanted = i8x16.splat(<i8>byte);
    while (j + 16 <= limit) {
      const m = i8x16.bitmask(i8x16.eq(v128.load(p + <usize>j), wanted));
      if (m != 0) return j + ctz(m);
      j += 16;
    }
  } else {
    // A zero byte of x ^ (byte in every lane) is the byte (the lowest one found exactly).
    const lanes = <u64>byte * 0x0101010101010101;
    while (j + 8 <= limit) {
      const x = load<u64>(p + <usize>j) ^ lanes;
      const z = (x - 0x0101010101010101) & ~x & 0x8080808080808080;
      if (z != 0) return j + <i32>(ctz(z) >> 3);
      j += 8;
    }
  }
  while (j < limit && load<u8>(p + <usize>j) != byte) j++;
  return j;
}
