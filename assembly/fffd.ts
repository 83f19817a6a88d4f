// U+FFFD in UTF-8 bytes (EF BF BD): how many, and where the first one starts. SIMD compares
// three shifted loads per 16 positions; the rare hits are counted one by one.

export function countReplacement(p: usize, n: i32, result: usize): void {
  let count: u32 = 0;
  let first: i32 = -1;
  let i: i32 = 0;
  if (ASC_FEATURE_SIMD) {
    const ef = i8x16.splat(<i8>0xef);
    const bf = i8x16.splat(<i8>0xbf);
    const bd = i8x16.splat(<i8>0xbd);
    while (i + 18 <= n) {
      const a = i8x16.eq(v128.load(p + <usize>i), ef);
      if (!v128.any_true(a)) {
        i += 16; // (EF is rare: most blocks need no more)
        continue;
      }
      const b = i8x16.eq(v128.load(p + <usize>i + 1), bf);
      const c = i8x16.eq(v128.load(p + <usize>i + 2), bd);
      let mask = i8x16.bitmask(v128.and(v128.and(a, b), c));
      if (mask != 0) {
        if (first < 0) first = i + ctz(mask);
        count += <u32>popcnt(mask);
      }
      i += 16;
    }
  }
  for (; i + 3 <= n; i++) {
    if (load<u8>(p + <usize>i) == 0xef && load<u8>(p + <usize>i + 1) == 0xbf && load<u8>(p + <usize>i + 2) == 0xbd) {
      if (first < 0) first = i;
      count++;
    }
  }
  store<u32>(result, count);
  store<i32>(result, first, 4);
}
