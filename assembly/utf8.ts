// UTF-8 validation (strict: no overlongs, no surrogates, nothing above U+10FFFF).

export function isValidUtf8(p: usize, n: i32): bool {
  let i: i32 = 0;
  while (i < n) {
    const b0 = <u32>load<u8>(p + <usize>i);
    if (b0 < 0x80) { i++; continue; }
    let need: i32;
    let lo: u32 = 0x80;
    let hi: u32 = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) need = 1;
    else if (b0 >= 0xe0 && b0 <= 0xef) {
      need = 2;
      if (b0 == 0xe0) lo = 0xa0;
      else if (b0 == 0xed) hi = 0x9f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      need = 3;
      if (b0 == 0xf0) lo = 0x90;
      else if (b0 == 0xf4) hi = 0x8f;
    } else return false;
    if (i + need >= n) return false; // truncated sequence
    const b1 = <u32>load<u8>(p + <usize>(i + 1));
    if (b1 < lo || b1 > hi) return false;
    for (let k: i32 = 2; k <= need; k++) {
      const bk = <u32>load<u8>(p + <usize>(i + k));
      if ((bk & 0xc0) != 0x80) return false;
    }
    i += need + 1;
  }
  return true;
}
