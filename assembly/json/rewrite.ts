// Output rewriting: the decided part of a payload string written from the raw window, with a
// token for each match (encoding) or the JSON-escaped decoded text of each token (decoding),
// and a tool schema's `maxLength` written widened.
import {
  D_HEX, D_MATCHES, D_PREFIX_LEN, D_PREFIX_OUT, D_SUFFIX, D_SUFFIX_LEN, D_WIDEN, J_AUX, J_CAND_BEST, J_CAND_STATE, J_DESC, J_MODE,
  J_NUM, J_NUM_LEN, J_REC, J_STR_CHANGED, JSON_ENCODE, MATCH_RECORD_SIZE, MODE_BYTE_RECORDS, TOKEN_RECORD_SIZE,
} from '../abi';
import { BACKSLASH, BS, CR, DIGIT_0, DIGIT_9, DOT, FF, FIRST_PRINTABLE, LF, LOWER_A, LOWER_B, LOWER_F, LOWER_N, LOWER_R, LOWER_T, LOWER_U, QUOTE, TAB } from '../bytes';
import { copyBytes } from '../copy';
import { decode } from '../decode';
import { scanHeld } from '../match';
import { emit, get, o, put, set, st, wrote } from './state';
import { advance, cursorAt, cursorStart, gCurRaw } from './windows';

/**
 * Writes a held maxLength number widened by the descriptor's factor (so encoded values stay
 * within it), when it is a count: digits, optionally `.0…`, and the product a safe integer.
 * Anything else is written as it came (protocol-fields.ts widenMaxLength is the same rule).
 */
export function writeMaxLength(): void {
  const n = get(J_NUM_LEN) - 1;
  set(J_NUM_LEN, 0);
  const p = st + J_NUM;
  let value: u64 = 0;
  let k: u32 = 0;
  while (k < n && k < 17) {
    const c = <u32>load<u8>(p + <usize>k);
    if (c < DIGIT_0 || c > DIGIT_9) break;
    value = value * 10 + <u64>(c - DIGIT_0);
    k++;
  }
  let count = k > 0 && k < 17;
  if (count && k < n) {
    count = load<u8>(p + <usize>k) == DOT;
    for (let j = k + 1; j < n && count; j++) count = load<u8>(p + <usize>j) == DIGIT_0;
  }
  const wide = value * <u64>load<u32>((get(J_DESC) as usize) + D_WIDEN);
  if (!count || wide > 9007199254740991) {
    for (let j: u32 = 0; j < n; j++) put(<u32>load<u8>(p + <usize>j));
    return;
  }
  let digits: u32 = 1;
  for (let t = wide; t >= 10; t /= 10) digits++;
  let rest = wide;
  for (let j = digits; j > 0; j--) {
    store<u8>(o + <usize>(j - 1), <u8>(DIGIT_0 + <u32>(rest % 10)));
    rest /= 10;
  }
  wrote(<usize>digits);
}

/** Writes bytes into a JSON string: quote, backslash and control characters escaped. */
function putEscaped(p: usize, n: i32): void {
  for (let k: i32 = 0; k < n; k++) {
    const c = <u32>load<u8>(p + <usize>k);
    if (c == QUOTE || c == BACKSLASH) {
      put(BACKSLASH);
      put(c);
    } else if (c >= FIRST_PRINTABLE) put(c);
    else if (c == LF) { put(BACKSLASH); put(LOWER_N); }
    else if (c == CR) { put(BACKSLASH); put(LOWER_R); }
    else if (c == TAB) { put(BACKSLASH); put(LOWER_T); }
    else if (c == BS) { put(BACKSLASH); put(LOWER_B); }
    else if (c == FF) { put(BACKSLASH); put(LOWER_F); }
    else {
      put(BACKSLASH); put(LOWER_U); put(DIGIT_0); put(DIGIT_0);
      put(DIGIT_0 + (c >> 4));
      const l = c & 15;
      put(l < 10 ? DIGIT_0 + l : LOWER_A + l - 10);
    }
  }
}

/** The length of the shortest token: prefix, two hex digits, suffix. */
@inline export function shortestToken(desc: usize): i32 {
  return <i32>(load<u32>(desc + D_PREFIX_LEN) + load<u32>(desc + D_SUFFIX_LEN)) + 2;
}

/**
 * Runs the matcher over decoded bytes and writes the decided part of the raw text: raw bytes
 * between matches, a replacement per match. Returns how many decoded bytes were decided; the
 * raw offset where they end is left in gCurRaw. With `final` everything is written. `known`:
 * bytes at the start already read as an undecided candidate's (J_CAND_KNOWN), or 0.
 */
export function transformSpan(raw: usize, rawLen: i32, dec: usize, decLen: i32, final: bool, noEscapes: bool, known: i32): i32 {
  const desc = get(J_DESC) as usize;
  const rec = get(J_REC) as usize;
  const aux = get(J_AUX) as usize;
  const encoding = get(J_MODE) == JSON_ENCODE;
  if (final && !encoding && decLen < shortestToken(desc)) {
    // Too short to hold a token (most keys and names): nothing to decode.
    emit(raw, <usize>rawLen);
    cursorAt(rawLen);
    return decLen;
  }
  const consumed = encoding
    ? scanHeld(desc, dec, decLen, rec, final ? 1 : 0, MODE_BYTE_RECORDS, known, get(J_CAND_STATE), <i32>get(J_CAND_BEST))
    : decode(desc, dec, decLen, rec, final ? 1 : 0, aux, known);
  const count = <i32>load<u32>(desc + D_MATCHES);
  if (count == 0 && final) {
    // Nothing found (most strings): written as it came.
    emit(raw, <usize>rawLen);
    return consumed;
  }
  writeMatches(raw, rawLen, dec, count, consumed, final, noEscapes);
  return consumed;
}

/**
 * Writes the raw text with the `count` matches (or tokens) the last scan (or decode) recorded
 * replaced, up to `consumed` decoded bytes (all of it when `final`); the raw offset where that
 * ends is left in gCurRaw.
 */
export function writeMatches(raw: usize, rawLen: i32, dec: usize, count: i32, consumed: i32, final: bool, noEscapes: bool): void {
  const desc = get(J_DESC) as usize;
  const rec = get(J_REC) as usize;
  const encoding = get(J_MODE) == JSON_ENCODE;
  cursorStart(noEscapes);
  let emitted: i32 = 0;
  let a = get(J_AUX) as usize;
  const stride: usize = encoding ? MATCH_RECORD_SIZE : TOKEN_RECORD_SIZE;
  for (let k: i32 = 0; k < count; k++) {
    const r = rec + <usize>k * stride;
    const start = <i32>load<u32>(r);
    const end = <i32>load<u32>(r, 4);
    advance(raw, rawLen, start);
    emit(raw + <usize>emitted, <usize>(gCurRaw - emitted));
    if (encoding) writeToken(desc, dec + <usize>start, end - start);
    else {
      const n = <i32>load<u32>(r, 8);
      putEscaped(a, n);
      a += <usize>n;
    }
    advance(raw, rawLen, end);
    emitted = gCurRaw;
  }
  if (count > 0) set(J_STR_CHANGED, 1);
  advance(raw, rawLen, consumed);
  const upTo = final ? rawLen : gCurRaw;
  emit(raw + <usize>emitted, <usize>(upTo - emitted));
}

/** prefix + hex + suffix (the options forbid '"' and '\' in them, so no escaping is needed). */
export function writeToken(desc: usize, src: usize, n: i32): void {
  let p = o;
  const pl = <usize>load<u32>(desc + D_PREFIX_LEN);
  copyBytes(p, load<u32>(desc + D_PREFIX_OUT) as usize, pl);
  p += pl;
  const hex = load<u32>(desc + D_HEX) as usize;
  let k: i32 = 0;
  if (ASC_FEATURE_SIMD) {
    k = hexBlocks(hex, src, n, p);
    p += <usize>(2 * k);
  }
  for (; k < n; k++) {
    const b = <usize>load<u8>(src + <usize>k);
    store<u8>(p, load<u8>(hex + (b >> 4)));
    store<u8>(p, load<u8>(hex + (b & 15)), 1);
    p += 2;
  }
  const sl = <usize>load<u32>(desc + D_SUFFIX_LEN);
  copyBytes(p, load<u32>(desc + D_SUFFIX) as usize, sl);
  wrote(p + sl - o);
}

/**
 * The hex of the n bytes at src written at p, eight bytes (sixteen digits) a step by a table
 * lookup in a vector (the digits at `hex`, 16 bytes); a last step of fewer writes only its own
 * digits. Returns how many bytes it wrote the hex of: all, unless reading 8 bytes at src for
 * the last step would run past memory (the rest is the caller's byte loop). (Terms are mostly
 * 4-12 bytes: one step, where the byte loop does a table load and a store per digit.)
 */
@inline function hexBlocks(hex: usize, src: usize, n: i32, p: usize): i32 {
  const digits = v128.load(hex);
  const nibble = i8x16.splat(0x0f);
  const end = <usize>memory.size() << 16;
  let k: i32 = 0;
  while (k < n && src + <usize>k + 8 <= end) {
    const v = v128.load64_zero(src + <usize>k);
    // (digit pairs: the high nibble of byte i to lane 2i, the low one to lane 2i + 1)
    const pairs = i8x16.shuffle(v128.and(i16x8.shr_u(v, 4), nibble), v128.and(v, nibble), 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const out = i8x16.swizzle(digits, pairs);
    const q = p + <usize>(2 * k);
    const left = n - k;
    if (left >= 8) {
      v128.store(q, out);
      k += 8;
      continue;
    }
    // The last 2 to 14 digits: 8, 4 and 2 at a time from the low end.
    let lo = i64x2.extract_lane(out, 0);
    let at = q;
    let m = 2 * left;
    if (m >= 8) {
      store<u64>(at, lo);
      lo = i64x2.extract_lane(out, 1);
      at += 8;
      m -= 8;
    }
    if (m >= 4) {
      store<u32>(at, <u32>lo);
      lo >>= 32;
      at += 4;
      m -= 4;
    }
    if (m >= 2) store<u16>(at, <u16>lo);
    k = n;
  }
  return k;
}
