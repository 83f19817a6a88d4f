// Recognises a whole base64 `data:` URI, byte by byte, as src/codec/protocol-fields.ts defines it
// (isBase64DataUri): `data:` and `;base64,` in any ASCII case, a media type of printable ASCII
// without space, '"', ',' or '\', then base64 (standard or URL-safe) with up to two '='.
// Its header (`data:` to the comma) is text and its base64 is kept. One that holds the token
// prefix (any ASCII case; the media type or the URL-safe alphabet can spell it) is not one:
// encoding keeps the base64 as it is and decoding restores a token anywhere, so it is encoded
// like text (its prefix escaped) for the round trip to hold.

import {
  BACKSLASH, CASE_BIT, COMMA, DEL, DIGIT_0, DIGIT_9, EQUALS, LOWER_A, LOWER_Z, MINUS, PLUS, QUOTE, SEMICOLON, SLASH, SPACE, UNDERSCORE,
  UPPER_A, UPPER_Z,
} from './bytes';
import { D_PREFIX, D_PREFIX_LEN, J_DESC } from './abi';
import { get } from './json/state';

// States: 0..4 reading "data:"; HEADER + t, t bytes of ";base64" just read; BODY; PAD1, PAD2.
export const URI_HEADER: u32 = 5;
const BODY: u32 = 13;
/** The shortest whole one, `data:;base64,`: BODY comes after its 13th byte. */
export const MIN_DATA_URI: i32 = 13;
const PAD1: u32 = 14;
const PAD2: u32 = 15;
export const URI_DEAD: u32 = 16;
/** A state's low bits are the URI's; above them, how many bytes of the prefix were just read. */
const URI_BITS: u32 = 0xff;
const PREFIX_SHIFT: u32 = 8;

const DATA = memory.data<u8>([0x64, 0x61, 0x74, 0x61, 0x3a]); // data:
const BASE64 = memory.data<u8>([0x3b, 0x62, 0x61, 0x73, 0x65, 0x36, 0x34]); // ;base64

@inline function lower(b: u32): u32 {
  return b >= UPPER_A && b <= UPPER_Z ? b | CASE_BIT : b;
}

@inline function isBase64Byte(b: u32): bool {
  const l = b | CASE_BIT;
  return (l >= LOWER_A && l <= LOWER_Z) || (b >= DIGIT_0 && b <= DIGIT_9) || b == PLUS || b == SLASH || b == UNDERSCORE || b == MINUS;
}

/** The URI's state after byte b. */
function uriByte(s: u32, b: u32): u32 {
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

/**
 * How many bytes of the prefix (lower case, pl bytes at pre) end at byte b when the k before it
 * were its first k: the longest j such that its first j end there.
 */
function prefixStep(k: u32, b: u32, pre: usize): u32 {
  const l = lower(b);
  if (l == <u32>load<u8>(pre + <usize>k)) return k + 1;
  for (let j = k; j > 0; j--) {
    if (<u32>load<u8>(pre + <usize>(j - 1)) != l) continue;
    let same = true;
    for (let i: u32 = 0; i + 1 < j && same; i++) same = load<u8>(pre + <usize>i) == load<u8>(pre + <usize>(k - j + 1 + i));
    if (same) return j;
  }
  return 0;
}

/** The state after byte b, the prefix (lower case) pl bytes at pre. */
@inline function step(s: u32, b: u32, pre: usize, pl: u32): u32 {
  const u = uriByte(s & URI_BITS, b);
  if (u == URI_DEAD) return URI_DEAD;
  const k = prefixStep(s >> PREFIX_SHIFT, b, pre);
  return k == pl ? URI_DEAD : u | (k << PREFIX_SHIFT);
}

/** Whether the URI's header (`data:` to the comma) ended at the byte that led from s to t. */
@inline export function uriHeaderEnded(s: u32, t: u32): bool {
  return (s & URI_BITS) < BODY && (t & URI_BITS) == BODY;
}

/** Set by uriRun: how many of its bytes end with the header's comma, or -1 if none does. */
export let uriHeaderAt: i32 = -1;

/** The state after byte b. */
export function uriStep(s: u32, b: u32): u32 {
  const desc = get(J_DESC) as usize;
  return step(s, b, load<u32>(desc + D_PREFIX) as usize, load<u32>(desc + D_PREFIX_LEN));
}

/** Whether the URI has not yet read all of `data:`: too little to tell. */
export function uriUndecided(s: u32): bool {
  return (s & URI_BITS) < URI_HEADER;
}

/** The state after n bytes at p. */
export function uriRun(s: u32, p: usize, n: usize): u32 {
  const desc = get(J_DESC) as usize;
  const pre = load<u32>(desc + D_PREFIX) as usize;
  const pl = load<u32>(desc + D_PREFIX_LEN);
  const first = <u32>load<u8>(pre);
  uriHeaderAt = -1;
  for (let k: usize = 0; k < n && s != URI_DEAD; k++) {
    const b = <u32>load<u8>(p + k);
    // (The body, no byte of the prefix just read: a base64 byte that does not begin it changes nothing.)
    if (s == BODY && isBase64Byte(b) && lower(b) != first) continue;
    const t = step(s, b, pre, pl);
    if (uriHeaderEnded(s, t)) uriHeaderAt = <i32>k + 1;
    s = t;
  }
  return s;
}

/** True when the bytes read so far are a whole base64 data URI. */
export function uriComplete(s: u32): bool {
  const u = s & URI_BITS;
  return u == BODY || u == PAD1 || u == PAD2;
}
