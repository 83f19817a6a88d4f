// Stage 2 of the indexed path: a whole message transformed by visiting its structure and its
// strings, not each byte. Stage 1 (structural.ts) hands over the strings' delimiting quotes;
// the few bytes between strings (structure, whitespace, numbers, literals) are read here with
// the parser's state in locals; what a key or a value means to MCP is asked of the same rules
// the byte-by-byte transducer asks (envelope.ts, media.ts), once per key and value. The output
// is the input copied in long runs, broken only where a string changes.
//
// It takes the common case and refuses the rest before anything is kept, and the per-message
// path takes that message (whole.ts): anything that is not valid JSON (that path reports where),
// values the host must hold (a `data` before its `type`, a `blob` before its `uri`), and,
// decoding, a key that decoding changes.
import {
  D_MATCHES, D_QUOTE_FREE, J_AUX, J_DEC, J_DEC_CAP, J_DEPTH, J_DESC, J_MODE, J_NUM, J_NUM_LEN, J_NUM_SIZE, J_REC, J_ROOT_PAYLOAD, J_STACK_CAP,
  J_VALUE, JSON_ENCODE, MATCH_RECORD_SIZE, MODE_BYTE_RECORDS, P_AFTER, P_COLON, P_DONE, P_KEY, P_VALUE, ROOT_TEXT,
} from '../abi';
import {
  BACKSLASH, BRACE_CLOSE, BRACE_OPEN, BRACKET_CLOSE, BRACKET_OPEN, COLON, COMMA, DIGIT_0, DIGIT_9, LONE_SURROGATE, LOWER_U, MINUS,
  QUOTE,
} from '../bytes';
import { decode, hexValue } from '../decode';
import { findByte } from '../find';
import { scan } from '../match';
import { utf8Encode } from '../utf8';
import { keyRules, valueFlags } from './envelope';
import { enterContainer, isWs, LITERALS, leaveContainer, literalAt, literalLength, numberComplete, numberNext, numberStart } from './lexer';
import { isMediaType, isWholeDataUri, rawOffset, resolveMedia, uriHeaderEnd } from './media';
import { shortestToken, writeMatches, writeMaxLength, writeToken } from './rewrite';
import {
  begin, done, emit, get, K_FIRST, K_MEDIA_SHIFT, K_OBJ, K_PAYLOAD, K_URI, MEDIA_UNKNOWN, MEDIA_YES, o, set, setTop, st, top, V_BLOB,
  V_DATA, V_MAX_LENGTH, V_PAYLOAD, V_TYPE,
} from './state';
import { shortEscape } from './strings';
import { gBackslashesBeforeQuote, gUnfit, indexStart, nextQuote } from './structural';
import { resetMessage } from './transducer';
import { findBackslash, gMapEntries, mapEscape, useEscapeMap } from './windows';

/** indexedMessage's answer when the per-message path may still take the message whole. */
export const INDEXED_REFUSED: i32 = -1;
/**
 * Its answer when that path would refuse it too (not valid JSON, a value the host must hold, a
 * key decoding changes): the host takes it at once, and it is not read a third time.
 */
export const INDEXED_HOST: i32 = -2;

let gIn: usize = 0;
let gCopied: i32 = 0; // input before this is written out (or replaced)

/**
 * Transforms the n bytes at `inp` (one whole message) into `out`, as the per-message path would
 * and with the same state left for the rules; returns the bytes written, INDEXED_REFUSED or
 * INDEXED_HOST.
 */
export function indexedMessage(state: usize, inp: usize, n: i32, out: usize): i32 {
  begin(state, out);
  resetMessage();
  indexStart(inp, n);
  gIn = inp;
  gCopied = 0;
  const encoding = get(J_MODE) == JSON_ENCODE;
  gRecords = encoding && wholeScan(inp, n);
  let i: i32 = 0;
  let phase = P_VALUE;
  let depth: u32 = 0;
  while (true) {
    let b: u32 = 0;
    while (i < n) {
      b = <u32>load<u8>(inp + <usize>i);
      if (!isWs(b)) break;
      i++;
    }
    if (i >= n) break;
    let closes = false;
    if (phase == P_VALUE) {
      if (b == BRACKET_CLOSE && depth > 0 && (top() & (K_OBJ | K_FIRST)) == K_FIRST) closes = true;
      else {
        let v = valueFlags();
        if (depth > 0) setTop(top() & ~K_FIRST);
        if ((v & V_DATA) != 0) {
          const media = (top() >> K_MEDIA_SHIFT) & 3;
          if (media == MEDIA_UNKNOWN) return INDEXED_HOST; // the host holds it until the type is known
          if (media == MEDIA_YES) v &= ~V_PAYLOAD;
        } else if ((v & V_BLOB) != 0) {
          if ((top() & K_URI) == 0) return INDEXED_HOST; // held until the object's `uri` is known
          v &= ~V_PAYLOAD;
        }
        if ((v & V_TYPE) != 0 && b != QUOTE && !resolveMedia(false)) return INDEXED_HOST;
        set(J_VALUE, v);
        if (b == BRACE_OPEN || b == BRACKET_OPEN) {
          if (depth + 1 >= get(J_STACK_CAP)) return INDEXED_HOST;
          const obj = b == BRACE_OPEN;
          enterContainer(obj, v, depth);
          depth++;
          phase = obj ? P_KEY : P_VALUE;
          i++;
          continue;
        }
        if (b == QUOTE) {
          const e = stringEnd(i);
          if (e < 0) return e;
          const decoded = decodeText(i + 1, e);
          if (decoded < 0) return decoded;
          if ((v & V_PAYLOAD) != 0) {
            // (A bare string the host already knows is not a data: URI is not looked at again;
            // decoding looks at none: a token in a data: URI is restored.)
            const uriCheck = get(J_MODE) == JSON_ENCODE && (depth > 0 || get(J_ROOT_PAYLOAD) != ROOT_TEXT);
            if (!(uriCheck && gDecLen > 0 && isWholeDataUri(gDec, gDecLen))) transformText(i + 1, e);
            else if (!transformUriHeader(i + 1, e)) return INDEXED_REFUSED;
          }
          if ((v & V_TYPE) != 0 && !resolveMedia(isMediaType(gDec, <u32>gDecLen))) return INDEXED_HOST;
          i = e + 1;
        } else if (b == MINUS || (b >= DIGIT_0 && b <= DIGIT_9)) {
          const start = i;
          let s = numberStart(b);
          i++;
          while (i < n) {
            const next = numberNext(s, <u32>load<u8>(inp + <usize>i));
            if (next == 0) break;
            s = next;
            i++;
          }
          if (!numberComplete(s)) return INDEXED_HOST;
          // A tool schema's maxLength, written widened (as lexer.ts holds one: up to J_NUM_SIZE bytes).
          if ((v & V_MAX_LENGTH) != 0 && b != MINUS && i - start <= <i32>J_NUM_SIZE) {
            emit(inp + <usize>gCopied, <usize>(start - gCopied));
            memory.copy(st + J_NUM, inp + <usize>start, <usize>(i - start));
            set(J_NUM_LEN, <u32>(i - start + 1));
            writeMaxLength();
            gCopied = i;
          }
        } else {
          const lit = literalAt(b);
          const litLen = <i32>literalLength(b);
          if (lit < 0 || i + litLen > n) return INDEXED_HOST;
          for (let k: i32 = 1; k < litLen; k++) {
            if (load<u8>(inp + <usize>(i + k)) != load<u8>(LITERALS + <usize>(lit + k))) return INDEXED_HOST;
          }
          i += litLen;
        }
        set(J_VALUE, 0);
        phase = depth == 0 ? P_DONE : P_AFTER;
        continue;
      }
    } else if (phase == P_KEY) {
      if (b == BRACE_CLOSE && (top() & K_FIRST) != 0) closes = true;
      else {
        if (b != QUOTE) return INDEXED_HOST;
        const e = stringEnd(i);
        if (e < 0) return e;
        const decoded = decodeText(i + 1, e);
        if (decoded < 0) return decoded;
        // A key that decoding changes may collide with another: the host checks it.
        if ((top() & K_PAYLOAD) != 0 && transformText(i + 1, e) && !encoding) return INDEXED_HOST;
        set(J_VALUE, keyRules(gDec, <u32>gDecLen));
        phase = P_COLON;
        i = e + 1;
        continue;
      }
    } else if (phase == P_COLON) {
      if (b != COLON) return INDEXED_HOST;
      phase = P_VALUE;
      i++;
      continue;
    } else if (phase == P_AFTER) {
      const obj = (top() & K_OBJ) != 0;
      if (b == COMMA) {
        phase = obj ? P_KEY : P_VALUE;
        i++;
        continue;
      }
      if (b != (obj ? BRACE_CLOSE : BRACKET_CLOSE)) return INDEXED_HOST;
      closes = true;
    } else return INDEXED_HOST; // P_DONE: only whitespace may follow the value
    if (!closes) return INDEXED_HOST;
    // (No `data` or `blob` of this object waits: those were refused.)
    leaveContainer(depth);
    depth--;
    set(J_DEPTH, depth);
    set(J_VALUE, 0);
    phase = depth == 0 ? P_DONE : P_AFTER;
    i++;
  }
  if (phase != P_DONE) return phase == P_VALUE && depth == 0 ? INDEXED_REFUSED : INDEXED_HOST; // only whitespace (a blank line), or cut short
  emit(inp + <usize>gCopied, <usize>(n - gCopied));
  done();
  return <i32>(o - out);
}

/**
 * The closing quote of the string whose opening quote is at i; or INDEXED_REFUSED when the index
 * disagrees with stage 2 on where it starts, INDEXED_HOST when it is not closed or holds a byte
 * stage 1 found unfit. Notes whether it holds escapes.
 */
@inline function stringEnd(i: i32): i32 {
  if (nextQuote() != i) return INDEXED_REFUSED;
  const before = gBackslashesBeforeQuote;
  const e = nextQuote();
  if (e < 0 || gUnfit) return INDEXED_HOST;
  gEscapes = gBackslashesBeforeQuote != before;
  return e;
}

// The decoded text of the current string: the input itself, or the decoded window when it has
// escapes.
let gEscapes = false;
let gDec: usize = 0;
let gDecLen: i32 = 0;
let gEscapeEntries: i32 = -1; // the escape map's entries for the decoded string (-1: too many to map)

/**
 * Decodes the string text at [a, e) of the input: 0, or INDEXED_HOST for an escape that is not
 * valid, INDEXED_REFUSED for text longer than the decoded window.
 */
function decodeText(a: i32, e: i32): i32 {
  if (!gEscapes) {
    gDec = gIn + <usize>a;
    gDecLen = e - a;
    return 0;
  }
  const dec = get(J_DEC) as usize;
  // (Decoded text is never longer than raw; a copy may write up to 16 bytes past its run.)
  if (e - a > <i32>get(J_DEC_CAP) - 16) return INDEXED_REFUSED;
  let n: usize = 0;
  let high: u32 = 0; // a high surrogate escape waiting for its low half
  let highEnd: i32 = 0; // (its raw end)
  let escapes: i32 = 0; // entries of the escape map (past gMapEntries: no map)
  let k = a;
  while (k < e) {
    if (load<u8>(gIn + <usize>k) != BACKSLASH) {
      if (high != 0) {
        if (escapes < gMapEntries) mapEscape(escapes, <i32>n, <i32>n + 1, highEnd - a);
        escapes++;
        store<u8>(dec + n++, <u8>LONE_SURROGATE);
        high = 0;
      }
      const run = copyToBackslash(gIn + <usize>k, e - k, dec + n);
      n += <usize>run;
      k += run;
      continue;
    }
    const x = <u32>load<u8>(gIn + <usize>(k + 1)); // (a backslash is never last: the quote after it would be escaped)
    if (x != LOWER_U) {
      const d = shortEscape(x);
      if (d < 0) return INDEXED_HOST;
      if (high != 0) {
        if (escapes < gMapEntries) mapEscape(escapes, <i32>n, <i32>n + 1, highEnd - a);
        escapes++;
        store<u8>(dec + n++, <u8>LONE_SURROGATE);
        high = 0;
      }
      if (escapes < gMapEntries) mapEscape(escapes, <i32>n, <i32>n + 1, k + 2 - a);
      escapes++;
      store<u8>(dec + n++, <u8>d);
      k += 2;
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
    const start = <i32>n;
    if (high != 0 && u >= 0xdc00 && u <= 0xdfff) {
      // The pair is one unit, from the high half's decoded start to the low half's raw end.
      n += <usize>utf8Encode(dec + n, 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00));
      if (escapes < gMapEntries) mapEscape(escapes, start, <i32>n, k - a);
      escapes++;
      high = 0;
      continue;
    }
    if (high != 0) {
      if (escapes < gMapEntries) mapEscape(escapes, <i32>n, <i32>n + 1, highEnd - a);
      escapes++;
      store<u8>(dec + n++, <u8>LONE_SURROGATE);
      high = 0;
    }
    if (u >= 0xd800 && u <= 0xdbff) {
      high = u;
      highEnd = k;
      continue;
    }
    const from = <i32>n;
    if (u >= 0xdc00 && u <= 0xdfff) store<u8>(dec + n++, <u8>LONE_SURROGATE);
    else n += <usize>utf8Encode(dec + n, u);
    if (escapes < gMapEntries) mapEscape(escapes, from, <i32>n, k - a);
    escapes++;
  }
  if (high != 0) {
    if (escapes < gMapEntries) mapEscape(escapes, <i32>n, <i32>n + 1, highEnd - a);
    escapes++;
    store<u8>(dec + n++, <u8>LONE_SURROGATE);
  }
  gDec = dec;
  gDecLen = <i32>n;
  gEscapeEntries = escapes <= gMapEntries ? escapes : -1;
  return 0;
}

/**
 * Copies the bytes at src (up to n) before the first backslash to dst, in one pass; returns how
 * many. With SIMD it stores 16 bytes at a time, so up to 16 bytes past them are written.
 */
function copyToBackslash(src: usize, n: i32, dst: usize): i32 {
  if (ASC_FEATURE_SIMD) {
    let j: i32 = 0;
    while (j + 16 <= n) {
      const v = v128.load(src + <usize>j);
      v128.store(dst + <usize>j, v);
      const m = i8x16.bitmask(i8x16.eq(v, i8x16.splat(<i8>BACKSLASH)));
      if (m != 0) return j + ctz(m);
      j += 16;
    }
    const end = findBackslash(src, j, n);
    memory.copy(dst + <usize>j, src + <usize>j, <usize>(end - j));
    return end;
  }
  const end = findBackslash(src, 0, n);
  memory.copy(dst, src, <usize>end);
  return end;
}

// One matcher pass over the whole message, when encoding a long message with no escapes under
// terms that cannot hold a quote: every match then lies inside one string (or between strings,
// where it is ignored), as it would if each string were scanned alone, and the per-call cost is
// paid once. (Measured against one call per string, same process: app lists 1.11x; short
// messages and escaped text lose, so they keep the per-string calls. Past a lines region's
// 16 KiB, an image's or a blob's base64, which no per-string call reads, costs it more than
// it saves: a 48 KiB screenshot encoded at about half the speed.)
const WHOLE_SCAN_MIN: i32 = 1024;
const WHOLE_SCAN_MAX: i32 = 16 * 1024;
let gRecords: bool = false; // the whole message's matches are in J_REC
let gRecCount: i32 = 0;
let gRecNext: i32 = 0; // the first not yet written or passed
let gWholeScans: u32 = 0;

/** Tests: how many messages were matched in one pass. */
export function wholeScans(): u32 {
  return gWholeScans;
}

function wholeScan(inp: usize, n: i32): bool {
  const desc = get(J_DESC) as usize;
  // (Records: one per byte at most, and the host makes room for a window's worth.)
  if (n < WHOLE_SCAN_MIN || n > min(WHOLE_SCAN_MAX, <i32>get(J_DEC_CAP)) || load<u32>(desc + D_QUOTE_FREE) == 0) return false;
  if (findByte(inp, 0, n, <u8>BACKSLASH) < n) return false;
  scan(desc, inp, n, get(J_REC) as usize, 1, MODE_BYTE_RECORDS);
  gRecCount = <i32>load<u32>(desc + D_MATCHES);
  gRecNext = 0;
  gWholeScans++;
  return true;
}

/** Writes the string at [a, e) with the whole message's matches inside it replaced; false if none. */
function writeRecords(a: i32, e: i32): bool {
  const rec = get(J_REC) as usize;
  let k = gRecNext;
  while (k < gRecCount && <i32>load<u32>(rec + <usize>k * MATCH_RECORD_SIZE) < a) k++; // (in strings not transformed)
  const first = k;
  while (k < gRecCount && <i32>load<u32>(rec + <usize>k * MATCH_RECORD_SIZE) < e) k++;
  gRecNext = k;
  if (k == first) return false;
  const desc = get(J_DESC) as usize;
  let emitted = gCopied;
  for (let r = first; r < k; r++) {
    const at = rec + <usize>r * MATCH_RECORD_SIZE;
    const start = <i32>load<u32>(at);
    const end = <i32>load<u32>(at, 4);
    emit(gIn + <usize>emitted, <usize>(start - emitted));
    writeToken(desc, gIn + <usize>start, end - start);
    emitted = end;
  }
  emit(gIn + <usize>emitted, <usize>(e - emitted));
  gCopied = e;
  return true;
}

/**
 * A whole base64 data: URI at [a, e) of the input (its decoded text in gDec): its header is
 * transformed as text on its own, its base64 copied as it is (media.ts writeUri). False when
 * the whole message's matches (gRecords) hold one that runs from the header into the base64:
 * the header alone may match otherwise, so the per-message path takes the message.
 */
function transformUriHeader(a: i32, e: i32): bool {
  const h = uriHeaderEnd(gDec, gDecLen);
  if (gRecords) {
    // (No escapes in the message: raw and decoded offsets agree.)
    const rec = get(J_REC) as usize;
    for (let k = gRecNext; k < gRecCount; k++) {
      const at = rec + <usize>k * MATCH_RECORD_SIZE;
      if (<i32>load<u32>(at) >= a + h) break;
      if (<i32>load<u32>(at, 4) > a + h) return false;
    }
    e = a + h;
  }
  transformText(a, e, h);
  return true;
}

/**
 * Runs the matcher (or the token decoder) over the decoded text of the string at [a, e) of the
 * input and, where it finds something, writes the output up to the string and the string
 * rewritten (its raw bytes, escapes kept, between the replacements). Returns whether it changed.
 * `n`: only the first n decoded bytes are read and written (a data: URI's header; encoding).
 */
function transformText(a: i32, e: i32, n: i32 = gDecLen): bool {
  if (gRecords) {
    // (Most strings hold no match: the next record starts past them, which needs no call.)
    if (gRecNext >= gRecCount || <i32>load<u32>(get(J_REC) as usize + <usize>gRecNext * MATCH_RECORD_SIZE) >= e) return false;
    return writeRecords(a, e);
  }
  const raw = gIn + <usize>a;
  const desc = get(J_DESC) as usize;
  if (get(J_MODE) == JSON_ENCODE) scan(desc, gDec, n, get(J_REC) as usize, 1, MODE_BYTE_RECORDS);
  else {
    if (gDecLen < shortestToken(desc)) return false; // too short to hold a token (most keys and names)
    decode(desc, gDec, gDecLen, get(J_REC) as usize, 1, get(J_AUX) as usize, 0);
  }
  const count = <i32>load<u32>(desc + D_MATCHES);
  if (count == 0) return false;
  emit(gIn + <usize>gCopied, <usize>(a - gCopied));
  if (gEscapes) useEscapeMap(gEscapeEntries);
  const rawLen = n == gDecLen ? e - a : rawOffset(raw, e - a, n, !gEscapes);
  writeMatches(raw, rawLen, gDec, count, n, true, !gEscapes);
  useEscapeMap(-1);
  gCopied = a + rawLen;
  return true;
}
