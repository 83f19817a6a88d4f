// UTF-8, checked strictly: no overlongs, no surrogates, nothing past U+10FFFF.

/**
 * What a lead byte allows: (continuation count) | (lowest second byte << 8) | (highest second
 * byte << 16), or 0 if it cannot start a multi-byte sequence.
 */
@inline export function utf8Lead(b0: u32): u32 {
  if (b0 >= 0xc2 && b0 <= 0xdf) return 1 | (0x80 << 8) | (0xbf << 16);
  if (b0 >= 0xe0 && b0 <= 0xef) return 2 | ((b0 == 0xe0 ? 0xa0 : 0x80) << 8) | ((b0 == 0xed ? 0x9f : 0xbf) << 16);
  if (b0 >= 0xf0 && b0 <= 0xf4) return 3 | ((b0 == 0xf0 ? 0x90 : 0x80) << 8) | ((b0 == 0xf4 ? 0x8f : 0xbf) << 16);
  return 0;
}

/** Length of the complete, valid multi-byte sequence at p[j], or 0 (invalid or cut off at `end`). */
export function utf8SequenceAt(p: usize, j: i32, end: i32): i32 {
  const lead = utf8Lead(<u32>load<u8>(p + <usize>j));
  if (lead == 0) return 0;
  const n = <i32>(lead & 3) + 1;
  if (j + n > end) return 0;
  const b1 = <u32>load<u8>(p + <usize>(j + 1));
  if (b1 < ((lead >> 8) & 0xff) || b1 > (lead >> 16)) return 0;
  for (let k = 2; k < n; k++) if ((<u32>load<u8>(p + <usize>(j + k)) & 0xc0) != 0x80) return 0;
  return n;
}

/**
 * Writes code point cp (not a surrogate) at p as UTF-8; returns its length. (Inlined: as a call,
 * utf8-from16.ts's unit-at-a-time path took 1.3-2.2x as long on text with emoji.)
 */
@inline export function utf8Encode(p: usize, cp: u32): i32 {
  if (cp < 0x80) {
    store<u8>(p, <u8>cp);
    return 1;
  }
  if (cp < 0x800) {
    store<u8>(p, <u8>(0xc0 | (cp >> 6)));
    store<u8>(p, <u8>(0x80 | (cp & 63)), 1);
    return 2;
  }
  if (cp < 0x10000) {
    store<u8>(p, <u8>(0xe0 | (cp >> 12)));
    store<u8>(p, <u8>(0x80 | ((cp >> 6) & 63)), 1);
    store<u8>(p, <u8>(0x80 | (cp & 63)), 2);
    return 3;
  }
  store<u8>(p, <u8>(0xf0 | (cp >> 18)));
  store<u8>(p, <u8>(0x80 | ((cp >> 12) & 63)), 1);
  store<u8>(p, <u8>(0x80 | ((cp >> 6) & 63)), 2);
  store<u8>(p, <u8>(0x80 | (cp & 63)), 3);
  return 4;
}

export function isValidUtf8(p: usize, n: i32): bool {
  let i: i32 = 0;
  while (i < n) {
    if (load<u8>(p + <usize>i) < 0x80) {
      i++;
      continue;
    }
    const k = utf8SequenceAt(p, i, n);
    if (k == 0) return false;
    i += k;
  }
  return true;
}
