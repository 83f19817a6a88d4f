// JSON strings, lexed: runs of plain bytes (64 or 16 at a time with SIMD, UTF-8 validated on
// the way), escapes, and strict UTF-8 byte by byte. A string that is not transformed goes straight
// to the output; a payload string goes into the raw and decoded windows (windows.ts), and the
// start of a key or a `type` value is collected for comparisons.
import {
  E_CONTROL, E_ESCAPE, E_NEED_MEMORY, E_UTF8, J_DEC, J_DEC_CAP, J_DEC_LEN, J_DEPTH, J_ESC, J_HIGH, J_PHASE, J_RAW,
  J_RAW_CAP, J_RAW_ESCAPES, J_RAW_LEN, J_ROOT_PAYLOAD, J_SMALL, J_SMALL_LEN, J_STR, J_STR_CHANGED, J_STR_START, J_UACC, J_URI,
  J_URI_FED, J_URI_HEAD, J_UTF8_HI, J_UTF8_LO, J_UTF8_NEED, J_VALUE, P_AFTER, P_STRING, RESOLVE_STRING, RESOLVE_URI, DEFER_STRING,
  EV_RESOLVE, EV_URI_HEADER, J_MODE, JSON_ENCODE, ROOT_TEXT,
} from '../abi';
import { BACKSLASH, FIRST_PRINTABLE, LONE_SURROGATE, LOWER_U, QUOTE, shortEscape } from '../bytes';
import { copyBytes } from '../copy';
import { uriComplete, uriHeaderEnded, uriStep } from '../data-uri';
import { hexValue } from '../decode';
import { LONGEST_KEY } from '../fields';
import { utf8Lead, utf8SequenceAt } from '../utf8';
import { sequenceStart, utf8BlockErrors } from '../utf8-simd';
import { keyEnd } from './envelope';
import { valueEnd } from './lexer';
import { collectedIsMedia, resolveMedia } from './media';
import {
  error, event, get, K_PAYLOAD, outPos, put, set, st, STR_COLLECT, STR_KEY, STR_TRANSFORM, STR_URI, STR_URI_CHECK, top,
  V_PAYLOAD, V_TYPE,
} from './state';
import { flushString } from './windows';

/** Lanes of v that hold a quote, a backslash or a control byte: all ones there. */
@inline function specialBytes(v: v128): v128 {
  return v128.or(
    v128.or(i8x16.eq(v, i8x16.splat(<i8>QUOTE)), i8x16.eq(v, i8x16.splat(<i8>BACKSLASH))),
    i8x16.lt_u(v, i8x16.splat(<i8>FIRST_PRINTABLE)),
  );
}

/**
 * End of the run of plain string bytes starting at i (before `end`): no quote, backslash or
 * control byte, and only complete, valid UTF-8 sequences. With SIMD, 64 ASCII bytes at a time,
 * then 16 at a time with UTF-8 checked; a block with an error, and the tail, go byte by byte.
 */
export function plainRun(inp: usize, i: i32, end: i32): i32 {
  let j = i;
  if (ASC_FEATURE_SIMD) {
    let prev = i8x16.splat(0); // i is a character boundary
    // Long ASCII runs (base64, English) 64 bytes a step: one test for a non-ASCII byte and one
    // for a special byte in four blocks; where either is, the loop below reads them again.
    while (j + 64 <= end) {
      const p = inp + <usize>j;
      const a = v128.load(p);
      const b = v128.load(p, 16);
      const c = v128.load(p, 32);
      const d = v128.load(p, 48);
      if (i8x16.bitmask(v128.or(v128.or(a, b), v128.or(c, d))) != 0) break;
      if (v128.any_true(v128.or(v128.or(specialBytes(a), specialBytes(b)), v128.or(specialBytes(c), specialBytes(d))))) break;
      prev = d;
      j += 64;
    }
    while (j + 16 <= end) {
      const v = v128.load(inp + <usize>j);
      const special = specialBytes(v);
      const stop = i8x16.bitmask(special);
      let bad = 0;
      if ((i8x16.bitmask(v) | i8x16.bitmask(prev)) != 0) bad = i8x16.bitmask(i8x16.ne(utf8BlockErrors(prev, v), i8x16.splat(0)));
      if (stop != 0) {
        const at = ctz(stop);
        // The stop byte is ASCII: an error in its lane means the character before it is cut off.
        if ((bad & ((2 << at) - 1)) == 0) return j + at;
        break;
      }
      if (bad != 0) break;
      prev = v;
      j += 16;
    }
    j = sequenceStart(inp, i, j);
  }
  while (j < end) {
    const c = <u32>load<u8>(inp + <usize>j);
    if (c >= FIRST_PRINTABLE && c < 0x80 && c != QUOTE && c != BACKSLASH) {
      j++;
      continue;
    }
    if (c < 0x80) break;
    const n = utf8SequenceAt(inp, j, end);
    if (n == 0) break;
    j += n;
  }
  return j;
}

export function stringStart(key: bool): bool {
  put(QUOTE);
  let flags: u32 = 0;
  if (key) {
    flags = STR_KEY | STR_COLLECT;
    if ((top() & K_PAYLOAD) != 0) flags |= STR_TRANSFORM;
  } else {
    const v = get(J_VALUE); // set by valueStart for this value
    if ((v & V_PAYLOAD) != 0) {
      flags |= STR_TRANSFORM;
      // (A bare string the host already knows is not a data: URI is not looked at again.
      // Decoding looks at none: a token in a data: URI is restored, see media.ts.)
      if (get(J_MODE) == JSON_ENCODE && (get(J_DEPTH) > 0 || get(J_ROOT_PAYLOAD) != ROOT_TEXT)) flags |= STR_URI_CHECK;
    }
    if ((v & V_TYPE) != 0) flags |= STR_COLLECT;
  }
  // Only what the string's flags will read is reset.
  if ((flags & STR_URI_CHECK) != 0) {
    set(J_URI, 0);
    set(J_URI_FED, 0);
  }
  if ((flags & STR_TRANSFORM) != 0) {
    set(J_RAW_ESCAPES, 0);
    set(J_STR_CHANGED, 0);
  }
  if ((flags & STR_COLLECT) != 0) set(J_SMALL_LEN, 0);
  set(J_STR, flags);
  set(J_STR_START, outPos());
  set(J_PHASE, P_STRING);
  return true;
}

/**
 * Decodes the string from i (its first escape at j) into the decoded window, if it ends before
 * `len` and holds no escape but the two-byte ones (\n, \", \\ ...) and fits the window.
 * Returns the index of its closing quote (the decoded length in J_DEC_LEN), or -1 to leave the
 * string to the byte-by-byte path, which also reports any error.
 */
export function decodeShortEscapes(inp: usize, i: i32, j: i32, len: i32): i32 {
  const dec = get(J_DEC) as usize;
  const cap = <i32>get(J_DEC_CAP) - 8;
  let n = j - i;
  if (n > cap) return -1;
  memory.copy(dec, inp + <usize>i, <usize>n);
  while (j < len) {
    const b = <u32>load<u8>(inp + <usize>j);
    if (b == QUOTE) {
      set(J_DEC_LEN, <u32>n);
      return j;
    }
    if (b != BACKSLASH || j + 1 >= len || n + 1 > cap) return -1;
    const d = shortEscape(<u32>load<u8>(inp + <usize>j + 1));
    if (d < 0) return -1;
    store<u8>(dec + <usize>n, <u8>d);
    n++;
    const k = plainRun(inp, j + 2, len);
    const run = k - (j + 2);
    if (n + run > cap) return -1;
    memory.copy(dec + <usize>n, inp + <usize>(j + 2), <usize>run);
    n += run;
    j = k;
  }
  return -1;
}

/** Keeps the first decoded bytes of a key (or `type` value) for comparisons; counts the rest. */
export function collect(p: usize, n: u32): void {
  const have = get(J_SMALL_LEN);
  if (have < LONGEST_KEY) copyBytes(st + J_SMALL + <usize>have, p, <usize>min(n, LONGEST_KEY - have));
  set(J_SMALL_LEN, have + n);
}

/** One decoded byte of the current string. */
export function decoded(d: u32): void {
  const flags = get(J_STR);
  if ((flags & STR_COLLECT) != 0) {
    const n = get(J_SMALL_LEN);
    if (n < LONGEST_KEY) store<u8>(st + J_SMALL + <usize>n, <u8>d);
    set(J_SMALL_LEN, n + 1);
  }
  if ((flags & STR_URI) != 0) {
    const u = get(J_URI);
    const t = uriStep(u, d);
    if (uriHeaderEnded(u, t)) set(J_URI_HEAD, outPos()); // (its raw bytes are written)
    set(J_URI, t);
  }
  if ((flags & STR_TRANSFORM) != 0) {
    const n = get(J_DEC_LEN);
    store<u8>((get(J_DEC) as usize) + <usize>n, <u8>d);
    set(J_DEC_LEN, n + 1);
  }
}

function decodedCodePoint(cp: u32): void {
  if (cp < 0x80) decoded(cp);
  else if (cp < 0x800) {
    decoded(0xc0 | (cp >> 6));
    decoded(0x80 | (cp & 63));
  } else if (cp < 0x10000) {
    decoded(0xe0 | (cp >> 12));
    decoded(0x80 | ((cp >> 6) & 63));
    decoded(0x80 | (cp & 63));
  } else {
    decoded(0xf0 | (cp >> 18));
    decoded(0x80 | ((cp >> 12) & 63));
    decoded(0x80 | ((cp >> 6) & 63));
    decoded(0x80 | (cp & 63));
  }
}

/** A lone surrogate escape: LONE_SURROGATE (0xFF) stands for it (no pattern or token contains that byte). */
@inline export function flushLoneHigh(): void {
  if (get(J_HIGH) != 0) {
    decoded(LONE_SURROGATE);
    set(J_HIGH, 0);
  }
}

/** The raw byte goes to the output, or to the raw window of a transformed string. */
function rawByte(b: u32): void {
  if ((get(J_STR) & STR_TRANSFORM) == 0) {
    put(b);
    return;
  }
  const n = get(J_RAW_LEN); // room was made by ensureRoom
  store<u8>((get(J_RAW) as usize) + <usize>n, <u8>b);
  set(J_RAW_LEN, n + 1);
}

/** Makes room in the windows for one more raw byte (and its decoded bytes) before any change. */
function ensureRoom(): bool {
  if (get(J_RAW_LEN) < get(J_RAW_CAP) && get(J_DEC_LEN) + 8 < get(J_DEC_CAP)) return true;
  flushString(false);
  if (get(J_RAW_LEN) < get(J_RAW_CAP) && get(J_DEC_LEN) + 8 < get(J_DEC_CAP)) return true;
  return error(E_NEED_MEMORY);
}

export function stringByte(b: u32): bool {
  if ((get(J_STR) & STR_TRANSFORM) != 0 && !ensureRoom()) return false;
  // Inside a multi-byte character only its continuation bytes may come (not '\\' or '"').
  if (get(J_UTF8_NEED) != 0 && (b < get(J_UTF8_LO) || b > get(J_UTF8_HI))) return error(E_UTF8);
  const esc = get(J_ESC);
  if (esc == 1) {
    rawByte(b);
    const d = shortEscape(b);
    if (b == LOWER_U) {
      set(J_ESC, 2);
      set(J_UACC, 0);
      return true;
    }
    if (d < 0) return error(E_ESCAPE);
    flushLoneHigh();
    decoded(<u32>d);
    set(J_ESC, 0);
    return true;
  }
  if (esc >= 2) {
    const h = hexValue(b);
    if (h < 0) return error(E_ESCAPE);
    rawByte(b);
    const u = (get(J_UACC) << 4) | <u32>h;
    if (esc < 5) {
      set(J_UACC, u);
      set(J_ESC, esc + 1);
      return true;
    }
    set(J_ESC, 0);
    const high = get(J_HIGH);
    if (high != 0 && u >= 0xdc00 && u <= 0xdfff) {
      set(J_HIGH, 0);
      decodedCodePoint(0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00));
      return true;
    }
    flushLoneHigh();
    if (u >= 0xd800 && u <= 0xdbff) set(J_HIGH, u);
    else if (u >= 0xdc00 && u <= 0xdfff) decoded(LONE_SURROGATE);
    else decodedCodePoint(u);
    return true;
  }
  if (b == BACKSLASH) {
    rawByte(b);
    set(J_RAW_ESCAPES, get(J_RAW_ESCAPES) + 1);
    set(J_ESC, 1);
    return true;
  }
  if (b == QUOTE) {
    flushLoneHigh();
    return stringEnd();
  }
  if (b < FIRST_PRINTABLE) return error(E_CONTROL);
  // UTF-8, checked strictly (no overlongs, no surrogates, nothing past U+10FFFF).
  const need = get(J_UTF8_NEED);
  if (need != 0) {
    set(J_UTF8_NEED, need - 1); // (its range was checked on entry)
    set(J_UTF8_LO, 0x80);
    set(J_UTF8_HI, 0xbf);
  } else if (b >= 0x80) {
    const lead = utf8Lead(b);
    if (lead == 0) return error(E_UTF8);
    set(J_UTF8_NEED, lead & 3);
    set(J_UTF8_LO, (lead >> 8) & 0xff);
    set(J_UTF8_HI, lead >> 16);
  }
  flushLoneHigh();
  rawByte(b);
  decoded(b);
  return true;
}

export function stringEnd(): bool {
  const flags = get(J_STR);
  if ((flags & STR_TRANSFORM) != 0) flushString(true);
  const end = outPos();
  put(QUOTE);
  set(J_PHASE, P_AFTER);
  if ((flags & STR_KEY) != 0) return keyEnd(end);
  if ((get(J_VALUE) & V_TYPE) != 0 && !resolveMedia(collectedIsMedia())) return false;
  const ok = valueEnd();
  if ((flags & STR_URI) != 0) {
    // A whole base64 data: URI: the host transforms its header and keeps the rest.
    const whole = uriComplete(get(J_URI));
    if (whole) event(EV_URI_HEADER, get(J_URI_HEAD), 0);
    event(EV_RESOLVE, whole ? RESOLVE_URI : RESOLVE_STRING, DEFER_STRING);
  }
  return ok;
}
