// The indexed path's strings (indexed.ts): where each ends, from stage 1's quotes
// (structural.ts), and its decoded text: the input itself, or, when it has escapes, the decoded
// window, with an escape map from decoded to raw offsets for the rewrite (indexed-rewrite.ts).
import { D_RAW_ESCAPES, J_DEC, J_DEC_CAP, J_DESC } from '../abi';
import { BACKSLASH, LONE_SURROGATE, LOWER_U, shortEscape } from '../bytes';
import { hexValue } from '../decode';
import { copyBytes } from '../copy';
import { utf8Encode } from '../utf8';
import { get } from './state';
import {
  backslashBits, backslashCount, backslashesBefore, backslashesBeforeIn, gOtherEscapes, gUnfit, nextQuote, surelyNoBackslash,
} from './structural';
import { findBackslash, gMapEntries, mapEscape } from './windows';

/** indexedMessage's answer when the per-message path may still take the message whole. */
export const INDEXED_REFUSED: i32 = -1;
/**
 * Its answer when that path would refuse it too (not valid JSON, a value the host must hold, a
 * key decoding changes): the host takes it at once, and it is not read a third time.
 */
export const INDEXED_HOST: i32 = -2;

/** The message's input. */
export let gIn: usize = 0;
// Whether a text string's raw bytes may stand for its decoded text when its escapes are short
// ones other than `\/` (readString): encoding, the codec's D_RAW_ESCAPES; decoding, always (a
// token's prefix and suffix are printable ASCII without quotes or backslashes: createCodec).
let gRawMay = false;

/** Starts a message at `inp`. */
export function startText(inp: usize, encoding: bool): void {
  gIn = inp;
  gRawMay = !encoding || load<u32>(get(J_DESC) as usize + D_RAW_ESCAPES) != 0;
}

// The decoded text of the current string: the input itself, or the decoded window when it has
// escapes, or (gRawText) its raw bytes, escapes and all.
export let gEscapes = false;
export let gRawText = false; // (read only when gEscapes)
let gRawStrings: u32 = 0;
let gRawDecoded: u32 = 0;
export let gDec: usize = 0;
export let gDecLen: i32 = 0;
export let gEscapeEntries: i32 = -1; // the escape map's entries for the decoded string (-1: too many to map)

/**
 * Reads the string whose opening quote is at i: returns its closing quote, its decoded text in
 * gDec and gDecLen; or INDEXED_REFUSED when the index disagrees with stage 2 on where it starts
 * or its text is longer than the decoded window, INDEXED_HOST when it is not closed, holds a
 * byte stage 1 found unfit or an escape that is not valid.
 *
 * `text`: the string is only matched (transformText) or not read at all, never compared. Then,
 * when its escapes are all short ones other than `\/` (stage 1 found no other so far) and the
 * codec allows it (gRawMay), its text is its raw bytes (gRawText), not decoded: what those
 * escapes stand for (`"`, `\\`, control bytes) is in no match or token (D_RAW_ESCAPES) and a
 * backslash in none either, so every match of the decoded text lies between two escapes and is
 * found at the same place in the raw bytes; the raw bytes hold no other, unless one starts at an
 * escape's letter (`\tongyi`), which matchText checks (escapeLetterAt). Nor is either text a
 * whole data: URI (a backslash, a quote or a control byte ends one).
 */
@inline export function readString(i: i32, text: bool): i32 {
  // (The backslash counts and the escape flag in locals, not globals written and read back;
  // most strings need nothing past the two quotes.)
  if (nextQuote() != i) return INDEXED_REFUSED;
  const bsAt = backslashBits();
  const beforeAt = backslashCount();
  const e = nextQuote();
  if (e < 0 || gUnfit) return INDEXED_HOST;
  // (No backslash in the blocks the string spans: no counting; otherwise the counts before each quote.)
  const escapes = !surelyNoBackslash(beforeAt) && backslashesBefore(e) != backslashesBeforeIn(i, bsAt, beforeAt);
  gEscapes = escapes;
  if (!escapes) {
    gDec = gIn + <usize>(i + 1);
    gDecLen = e - i - 1;
    return e;
  }
  gRawText = false;
  if (text && gRawMay && !gOtherEscapes) {
    // (The same refusal as decodeEscapes': matchText may decode it yet.)
    if (e - i - 1 > <i32>get(J_DEC_CAP) - 16) return INDEXED_REFUSED;
    gRawText = true;
    gDec = gIn + <usize>(i + 1);
    gDecLen = e - i - 1;
    gRawStrings++;
    return e;
  }
  const decoded = decodeEscapes(i + 1, e);
  return decoded < 0 ? decoded : e;
}

/**
 * The string at [a, e) read as raw text (gRawText) decoded after all, as readString would have:
 * a match found in its raw bytes starts at an escape's letter. (It cannot fail: its escapes are
 * valid and it fits the decoded window, as readString checked.)
 */
export function decodeRawText(a: i32, e: i32): void {
  decodeEscapes(a, e);
  gRawText = false;
  gRawDecoded++;
}

/**
 * Whether one of the `count` records at `rec` (`size` bytes each, a start offset first) of a
 * match or token found in the raw text at `raw` starts at an escape's letter: right after a
 * backslash that escapes (an odd run of them before it).
 */
export function escapeLetterAt(raw: usize, rec: usize, count: i32, size: u32): bool {
  for (let k: i32 = 0; k < count; k++) {
    const s = <i32>load<u32>(rec + <usize>k * <usize>size);
    let b = s;
    while (b > 0 && load<u8>(raw + <usize>(b - 1)) == BACKSLASH) b--;
    if (((s - b) & 1) != 0) return true;
  }
  return false;
}

/** Tests: how many strings were read as raw text, and how many of them decoded after all. */
export function rawStrings(): u32 {
  return gRawStrings;
}
export function rawDecoded(): u32 {
  return gRawDecoded;
}

/** readString's text of a string that holds escapes: decoded into the window, with the escape map. */
function decodeEscapes(a: i32, e: i32): i32 {
  const dec = get(J_DEC) as usize;
  // (Decoded text is never longer than raw; a copy may write up to 16 bytes past its run.)
  if (e - a > <i32>get(J_DEC_CAP) - 16) return INDEXED_REFUSED;
  const entries = gMapEntries;
  let n: usize = 0;
  // A high surrogate escape is written as a lone one at once; `high` is its value while the
  // escape is the last thing written (its unit starts at n - 1), so that a low half right after
  // it takes its place as the pair.
  let high: u32 = 0;
  let escapes: i32 = 0; // entries of the escape map (past entries: no map)
  let k = a;
  while (k < e) {
    // The plain bytes up to the next backslash, copied.
    const run = copyToBackslash(k, e, dec + n);
    if (run != 0) {
      n += <usize>run;
      k += run;
      high = 0;
      if (k >= e) break;
    }
    const x = <u32>load<u8>(gIn + <usize>(k + 1)); // (a backslash is never last: the quote after it would be escaped)
    if (x != LOWER_U) {
      const d = shortEscape(x);
      if (d < 0) return INDEXED_HOST;
      if (escapes < entries) mapEscape(escapes, <i32>n, <i32>n + 1, k + 2 - a);
      escapes++;
      store<u8>(dec + n++, <u8>d);
      k += 2;
      high = 0;
      continue;
    }
    if (k + 6 > e) return INDEXED_HOST;
    let u: u32 = 0;
    for (let h = k + 2; h < k + 6; h++) {
      const v = hexValue(<u32>load<u8>(gIn + <usize>h));
      if (v < 0) return INDEXED_HOST;
      u = (u << 4) | <u32>v;
    }
    k += 6;
    if (high != 0 && u >= 0xdc00 && u <= 0xdfff) {
      // The pair is one unit, from the high half's decoded start to the low half's raw end:
      // it replaces the high half's lone one (its byte and its map entry).
      const start = <i32>--n;
      escapes--;
      n += <usize>utf8Encode(dec + n, 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00));
      if (escapes < entries) mapEscape(escapes, start, <i32>n, k - a);
      escapes++;
      high = 0;
      continue;
    }
    const from = <i32>n;
    if (u >= 0xd800 && u <= 0xdfff) store<u8>(dec + n++, <u8>LONE_SURROGATE);
    else n += <usize>utf8Encode(dec + n, u);
    if (escapes < entries) mapEscape(escapes, from, <i32>n, k - a);
    escapes++;
    high = u <= 0xdbff && u >= 0xd800 ? u : 0;
  }
  gDec = dec;
  gDecLen = <i32>n;
  gEscapeEntries = escapes <= entries ? escapes : -1;
  return 0;
}

/**
 * Copies the input's bytes from k up to the first backslash before e (or e) to dst; returns how
 * many. With SIMD 16 bytes at a time, the last ones too (loaded as the 16 ending at e, shifted),
 * so up to 16 bytes past them are written.
 */
@inline function copyToBackslash(k: i32, e: i32, dst: usize): i32 {
  const src = gIn + <usize>k;
  const n = e - k;
  if (ASC_FEATURE_SIMD) {
    const bs = i8x16.splat(<i8>BACKSLASH);
    let j: i32 = 0;
    for (; j + 16 <= n; j += 16) {
      const v = v128.load(src + <usize>j);
      v128.store(dst + <usize>j, v);
      const m = i8x16.bitmask(i8x16.eq(v, bs));
      if (m != 0) return j + ctz(m);
    }
    if (j == n) return n;
    // (The 16 bytes before e are in memory: the input lies past the module's data.)
    const s = 16 - (n - j); // lanes before the run's last bytes
    const v = v128.load(src + <usize>(n - 16));
    v128.store(dst + <usize>j, i8x16.swizzle(v, i8x16.add(i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), i8x16.splat(<i8>s))));
    const m = <u32>i8x16.bitmask(i8x16.eq(v, bs)) >> <u32>s;
    return m != 0 ? j + ctz(m) : n;
  }
  const end = findBackslash(src, 0, n);
  copyBytes(dst, src, <usize>end);
  return end;
}
