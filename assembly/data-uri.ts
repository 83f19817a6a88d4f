// Recognises a whole base64 `data:` URI, byte by byte, as src/protocol-fields.ts defines it
// (isBase64DataUri): `data:` and `;base64,` in any ASCII case, a media type of printable ASCII
// without space, '"', ',' or '\', then base64 (standard or URL-safe) with up to two '='.

import {
  BACKSLASH, CASE_BIT, COMMA, DEL, DIGIT_0, DIGIT_9, EQUALS, LOWER_A, LOWER_Z, MINUS, PLUS, QUOTE, SEMICOLON, SLASH, SPACE, UNDERSCORE,
  UPPER_A, UPPER_Z,
} from './bytes';

// States: 0..4 reading "data:"; HEADER + t, t bytes of ";base64" just read; BODY; PAD1, PAD2.
export const URI_HEADER: u32 = 5;
const BODY: u32 = 13;
const PAD1: u32 = 14;
const PAD2: u32 = 15;
export const URI_DEAD: u32 = 16;

const DATA = memory.data<u8>([0x64, 0x61, 0x74, 0x61, 0x3a]); // data:
const BASE64 = memory.data<u8>([0x3b, 0x62, 0x61, 0x73, 0x65, 0x36, 0x34]); // ;base64

@inline function lower(b: u32): u32 {
  return b >= UPPER_A && b <= UPPER_Z ? b | CASE_BIT : b;
}

@inline function isBase64Byte(b: u32): bool {
  const l = b | CASE_BIT;
  return (l >= LOWER_A && l <= LOWER_Z) || (b >= DIGIT_0 && b <= DIGIT_9) || b == PLUS || b == SLASH || b == UNDERSCORE || b == MINUS;
}

/** The state after byte b. */
export function uriStep(s: u32, b: u32): u32 {
  if (s < URI_HEADER) return lower(b) == <u32>load<u8>(DATA + <usize>s) ? s + 1 : URI_DEAD;
  if (s < BODY) {
    if (b == COMMA) return s == URI_HEADER + 7 ? BODY : URI_DEAD;
    if (b <= SPACE || b >= DEL || b == QUOTE || b == BACKSLASH) return URI_DEAD;
    const t = s - URI_HEADER;
    if (b == SEMICOLON) return URI_HEADER + 1;
    if (t >= 1 && t < 7 && lower(b) == <u32>load<u8>(BASE64 + <usize>t)) return s + 1;
    return URI_HEADER;
  }
  if (s == BODY) return isBase64Byte(b) ? BODY : b == EQUALS ? PAD1 : URI_DEAD;
  if (s == PAD1) return b == EQUALS ? PAD2 : URI_DEAD;
  return URI_DEAD;
}

/** The state after n bytes at p. */
export function uriRun(s: u32, p: usize, n: usize): u32 {
  for (let k: usize = 0; k < n && s != URI_DEAD; k++) s = uriStep(s, <u32>load<u8>(p + k));
  return s;
}

/** True when the bytes read so far are a whole base64 data URI. */
export function uriComplete(s: u32): bool {
  return s == BODY || s == PAD1 || s == PAD2;
}
