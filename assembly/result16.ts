// encodeText's result built in memory as UTF-16, for a host that makes a string of UTF-16 bytes
// in one native call (Node's Buffer): the text between matches copied from a UTF-16 copy of the
// input, each match replaced by its token (prefix, the hex of its UTF-8 bytes, suffix). The host
// then builds no rope of slices and tokens, which it would have to flatten, and hashes no match.
import { D_HEX, D_PREFIX_LEN, D_PREFIX_OUT, D_SUFFIX, D_SUFFIX_LEN } from './abi';

/**
 * Latin-1 bytes (the token's prefix or suffix) widened to UTF-16 at `o`; returns the end. Up to
 * 16 bytes go in one or two vector stores (32 bytes from `o` for 9-16, 16 for 0-8: up to 16
 * past the end, which the caller keeps or writes next), reading 16 bytes from `p` (within the
 * descriptor's tables).
 */
@inline function widened(o: usize, p: usize, n: u32): usize {
  if (ASC_FEATURE_SIMD && n <= 16) {
    const v = v128.load(p);
    v128.store(o, i16x8.extend_low_i8x16_u(v));
    if (n > 8) v128.store(o, i16x8.extend_high_i8x16_u(v), 16);
  } else for (let i: usize = 0; i < <usize>n; i++) store<u16>(o + (i << 1), load<u8>(p + i));
  return o + (<usize>n << 1);
}

/**
 * Copies n bytes, writing up to 15 more past dst + n (room the caller keeps, or what it writes
 * next): the text between two matches is mostly short, and memory.copy is a call.
 */
@inline function copyOver(dst: usize, src: usize, n: usize): void {
  if (n > 256) memory.copy(dst, src, n);
  else if (ASC_FEATURE_SIMD) for (let i: usize = 0; i < n; i += 16) v128.store(dst + i, v128.load(src + i));
  else for (let i: usize = 0; i < n; i += 8) store<u64>(dst + i, load<u64>(src + i));
}

/** A byte's two hex digits as UTF-16 at `o`. */
@inline function hexPair(o: usize, hex: usize, b: u32): usize {
  store<u16>(o, load<u8>(hex + <usize>(b >> 4)));
  store<u16>(o, load<u8>(hex + <usize>(b & 15)), 2);
  return o + 4;
}

/**
 * Writes the result at `out` from the string's `units` UTF-16 units at `src` (well-formed) and
 * `count` match records at `records` (u32 start, u32 end in units, in order, not overlapping);
 * returns the units written. It may write 16 bytes past them, and read 16 past the input's.
 */
export function result16(desc: usize, src: usize, units: i32, records: usize, count: i32, out: usize): i32 {
  const prefix = load<u32>(desc + D_PREFIX_OUT) as usize;
  const prefixLen = load<u32>(desc + D_PREFIX_LEN);
  const suffix = load<u32>(desc + D_SUFFIX) as usize;
  const suffixLen = load<u32>(desc + D_SUFFIX_LEN);
  const hex = load<u32>(desc + D_HEX) as usize;
  let o = out;
  let from: usize = 0;
  for (let k: usize = 0; k < <usize>count; k++) {
    const start = <usize>load<u32>(records + (k << 3));
    const stop = <usize>load<u32>(records + (k << 3), 4);
    copyOver(o, src + (from << 1), (start - from) << 1);
    o = widened(o + ((start - from) << 1), prefix, prefixLen);
    for (let i = start; i < stop; i++) {
      let c = <u32>load<u16>(src + (i << 1));
      if (c < 0x80) {
        o = hexPair(o, hex, c);
      } else if (c < 0x800) {
        o = hexPair(o, hex, 0xc0 | (c >> 6));
        o = hexPair(o, hex, 0x80 | (c & 63));
      } else if (c < 0xd800 || c > 0xdbff) {
        o = hexPair(o, hex, 0xe0 | (c >> 12));
        o = hexPair(o, hex, 0x80 | ((c >> 6) & 63));
        o = hexPair(o, hex, 0x80 | (c & 63));
      } else {
        i++; // a high surrogate: its low one follows (the string is well-formed)
        c = 0x10000 + ((c - 0xd800) << 10) + (<u32>load<u16>(src + (i << 1)) - 0xdc00);
        o = hexPair(o, hex, 0xf0 | (c >> 18));
        o = hexPair(o, hex, 0x80 | ((c >> 12) & 63));
        o = hexPair(o, hex, 0x80 | ((c >> 6) & 63));
        o = hexPair(o, hex, 0x80 | (c & 63));
      }
    }
    o = widened(o, suffix, suffixLen);
    from = stop;
  }
  copyOver(o, src + (from << 1), (<usize>units - from) << 1);
  o += (<usize>units - from) << 1;
  return <i32>((o - out) >> 1);
}
