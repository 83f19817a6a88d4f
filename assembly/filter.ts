// Candidate filter: finds the next position where some pattern could start, so the anchored
// automaton walk runs only there. SIMD build: a three-byte fingerprint per position, looked
// up by nibble in 8 bucket masks (the "Teddy" technique). Bytes are folded with `| 0x20` on
// both sides, so ASCII case never causes a miss; folding only adds false positives, which
// the automaton rejects.

/** First position >= from where a pattern may start, or len. */
export function nextCandidate(
  teddy: usize, trans: usize, classes: usize, nc: u32, inp: usize, from: i32, len: i32,
): i32 {
  let b = from;
  if (ASC_FEATURE_SIMD) {
    const lo0 = v128.load(teddy);
    const hi0 = v128.load(teddy, 16);
    const lo1 = v128.load(teddy, 32);
    const hi1 = v128.load(teddy, 48);
    const lo2 = v128.load(teddy, 64);
    const hi2 = v128.load(teddy, 80);
    const nib = i8x16.splat(0x0f);
    const fold = i8x16.splat(0x20);
    let p0 = i8x16.splat(0);
    let p1 = i8x16.splat(0);
    while (b + 16 <= len) {
      const v = v128.or(v128.load(inp + <usize>b), fold);
      const l = v128.and(v, nib);
      const h = i8x16.shr_u(v, 4);
      const m0 = v128.and(i8x16.swizzle(lo0, l), i8x16.swizzle(hi0, h));
      const m1 = v128.and(i8x16.swizzle(lo1, l), i8x16.swizzle(hi1, h));
      const m2 = v128.and(i8x16.swizzle(lo2, l), i8x16.swizzle(hi2, h));
      // Lane k tests the fingerprint that ends at b + k, i.e. starts at b + k - 2.
      const a0 = i8x16.shuffle(p0, m0, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
      const a1 = i8x16.shuffle(p1, m1, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
      const r = v128.and(v128.and(a0, a1), m2);
      if (v128.any_true(r)) {
        const bits = i8x16.bitmask(i8x16.ne(r, i8x16.splat(0)));
        return b + ctz(bits) - 2; // lanes 0 and 1 of the first block are 0: p0 = p1 = 0
      }
      p0 = m0;
      p1 = m1;
      b += 16;
    }
    if (b > from + 1) b -= 2; // fingerprints that end past the last full block
    else b = from;
  }
  // Scalar: a position is a candidate when the automaton can leave its start state there.
  const row = <usize>nc; // start state 1
  while (b < len) {
    const cls = <usize>load<u8>(classes + <usize>load<u8>(inp + <usize>b));
    if (load<u16>(trans + ((row + cls) << 1)) != 0) return b;
    b++;
  }
  return len;
}
