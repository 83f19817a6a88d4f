// UTF-16 (as a JS string is held, copied in by the host's Buffer#ucs2Write) to UTF-8: cheaper
// than TextEncoder#encodeInto of a two-byte string, and a lone surrogate is found on the way
// (encodeInto would write it as U+FFFD, to be counted afterwards). ASCII by 16 units at once.

/**
 * Writes `n` UTF-16 units at `src` as UTF-8 at `dst` (at most 3 bytes per unit; `dst` must not
 * overlap what is still to be read); returns the byte count, or -1 at a lone surrogate.
 */
export function utf16ToUtf8(src: usize, n: i32, dst: usize): i32 {
  let i: i32 = 0;
  let o: usize = dst;
  while (i < n) {
    if (ASC_FEATURE_SIMD) {
      const high = i16x8.splat(<i16>0xff80);
      while (i + 16 <= n) {
        const a = v128.load(src + (<usize>i << 1));
        const b = v128.load(src + (<usize>i << 1), 16);
        if (v128.any_true(v128.and(v128.or(a, b), high))) break;
        v128.store(o, i8x16.narrow_i16x8_u(a, b));
        o += 16;
        i += 16;
      }
    }
    // One by one to the next ASCII unit (a run of CJK does not retry the blocks at each unit).
    for (;;) {
      if (i >= n) return <i32>(o - dst);
      let c = <u32>load<u16>(src + (<usize>i << 1));
      i++;
      if (c < 0x80) {
        store<u8>(o++, <u8>c);
        break;
      }
      if (c < 0x800) {
        store<u8>(o++, <u8>(0xc0 | (c >> 6)));
        store<u8>(o++, <u8>(0x80 | (c & 63)));
      } else if (c - 0xd800 >= 0x800) {
        store<u8>(o++, <u8>(0xe0 | (c >> 12)));
        store<u8>(o++, <u8>(0x80 | ((c >> 6) & 63)));
        store<u8>(o++, <u8>(0x80 | (c & 63)));
      } else {
        if (c > 0xdbff || i >= n) return -1;
        const d = <u32>load<u16>(src + (<usize>i << 1));
        if (d - 0xdc00 >= 0x400) return -1;
        i++;
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        store<u8>(o++, <u8>(0xf0 | (c >> 18)));
        store<u8>(o++, <u8>(0x80 | ((c >> 12) & 63)));
        store<u8>(o++, <u8>(0x80 | ((c >> 6) & 63)));
        store<u8>(o++, <u8>(0x80 | (c & 63)));
      }
    }
  }
  return <i32>(o - dst);
}
