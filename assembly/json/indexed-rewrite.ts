// The indexed path's output (indexed.ts): the input copied in long runs, broken only where a
// string changes (its matches or tokens rewritten, escapes kept) or a tool schema's maxLength is
// widened. Under terms that cannot hold a quote, a long message with no escapes is matched in
// one pass over all of it rather than string by string.
import {
  D_MATCHES, D_QUOTE_FREE, J_AUX, J_DEC_CAP, J_DESC, J_MODE, J_NUM, J_NUM_LEN, J_REC, JSON_ENCODE, MATCH_RECORD_SIZE,
  MODE_BYTE_RECORDS, TOKEN_RECORD_SIZE,
} from '../abi';
import { BACKSLASH } from '../bytes';
import { decode, mayHoldToken, TOKEN_BLOCKS } from '../decode';
import { mayStartIn, mayStartInBlocks, SHORT_BLOCKS } from '../filter';
import { findByte } from '../find';
import { scan, shortestMatch } from '../match';
import { decodeRawText, escapeLetterAt, gDec, gDecLen, gEscapeEntries, gEscapes, gIn, gRawText } from './indexed-text';
import { rawOffset, uriHeaderEnd } from './media';
import { shortestToken, writeMatches, writeMaxLength, writeToken } from './rewrite';
import { emit, get, set, st } from './state';
import { useEscapeMap } from './windows';

let gCopied: i32 = 0; // input before this is written out (or replaced)
// Strings up to this long are looked at by the start filter before the matcher is called; with
// SIMD, longer ones up to filter.ts SHORT_BLOCKS by Teddy's blocks, which cost less than the
// filter from 10 bytes (about 9 ns a block; the filter 1.5 ns a start).
const GRAMS_FIRST: i32 = ASC_FEATURE_SIMD ? 9 : 16;

/** Starts a message of n bytes at gIn: nothing written yet; matched in one pass if it may be. */
export function startRewrite(n: i32, encoding: bool): void {
  gCopied = 0;
  gRecords = encoding && wholeScan(gIn, n);
}

/** Writes the input up to `end` that is not written yet. */
export function copyTo(end: i32): void {
  emit(gIn + <usize>gCopied, <usize>(end - gCopied));
  gCopied = end;
}

/** A tool schema's maxLength, the number at [start, end) of the input, written widened (as lexer.ts holds one). */
export function widenMaxLength(start: i32, end: i32): void {
  emit(gIn + <usize>gCopied, <usize>(start - gCopied));
  memory.copy(st + J_NUM, gIn + <usize>start, <usize>(end - start));
  set(J_NUM_LEN, <u32>(end - start + 1));
  writeMaxLength();
  gCopied = end;
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

/** Writes the whole message's matches inside the string at [a, e) as tokens (writeTokens); false if none. */
function writeRecords(a: i32, e: i32): bool {
  const rec = get(J_REC) as usize;
  let k = gRecNext;
  while (k < gRecCount && <i32>load<u32>(rec + <usize>k * MATCH_RECORD_SIZE) < a) k++; // (in strings not transformed)
  const first = k;
  while (k < gRecCount && <i32>load<u32>(rec + <usize>k * MATCH_RECORD_SIZE) < e) k++;
  gRecNext = k;
  if (k == first) return false;
  writeTokens(0, first, k);
  return true;
}

/**
 * A whole base64 data: URI at [a, e) of the input (its decoded text in gDec): its header is
 * transformed as text on its own, its base64 copied as it is (media.ts writeUri). False when
 * the whole message's matches (gRecords) hold one that runs from the header into the base64:
 * the header alone may match otherwise, so the per-message path takes the message.
 */
export function transformUriHeader(a: i32, e: i32): bool {
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
 * `n`: only the first n decoded bytes are read and written (gDecLen; fewer for a data: URI's
 * header, encoding).
 */
@inline export function transformText(a: i32, e: i32, n: i32): bool {
  if (gRecords) {
    // (Most strings hold no match: the next record starts past them, which needs no call.)
    if (gRecNext >= gRecCount || <i32>load<u32>(get(J_REC) as usize + <usize>gRecNext * MATCH_RECORD_SIZE) >= e) return false;
    return writeRecords(a, e);
  }
  // Too short to hold a match or a token (many keys and names), or short with no position a
  // match or a token may start at (most short values): no call.
  const desc = get(J_DESC) as usize;
  if (get(J_MODE) == JSON_ENCODE) {
    const shortest = shortestMatch(desc);
    if (n < shortest) return false;
    if (n <= GRAMS_FIRST) {
      if (!mayStartIn(desc, gDec, n, shortest)) return false;
    } else if (ASC_FEATURE_SIMD) {
      if (n <= SHORT_BLOCKS && !mayStartInBlocks(desc, gDec, n, shortest)) return false;
    }
  } else {
    const shortest = shortestToken(desc);
    if (gDecLen < shortest) return false;
    if (ASC_FEATURE_SIMD) {
      if (gDecLen <= TOKEN_BLOCKS && !mayHoldToken(desc, gDec, gDecLen, shortest)) return false;
    }
  }
  return matchText(a, e, n);
}

/** transformText of one string alone: the matcher (or the token decoder) called on its text. */
function matchText(a: i32, e: i32, n: i32): bool {
  const raw = gIn + <usize>a;
  const desc = get(J_DESC) as usize;
  const encoding = get(J_MODE) == JSON_ENCODE;
  let count = findIn(desc, encoding, n);
  if (count == 0) return false;
  // Escapes with text read raw (readString): its matches are the decoded text's, at raw offsets,
  // unless one starts at an escape's letter; then decoded after all, and matched again.
  let escapes = gEscapes && !gRawText;
  if (gEscapes && gRawText && escapeLetterAt(raw, get(J_REC) as usize, count, encoding ? MATCH_RECORD_SIZE : TOKEN_RECORD_SIZE)) {
    decodeRawText(a, e);
    n = gDecLen;
    escapes = true;
    count = findIn(desc, encoding, n);
    if (count == 0) return false;
  }
  if (!escapes && encoding) {
    writeTokens(a, 0, count);
    return true;
  }
  emit(gIn + <usize>gCopied, <usize>(a - gCopied));
  if (escapes) useEscapeMap(gEscapeEntries);
  const rawLen = n == gDecLen ? e - a : rawOffset(raw, e - a, n, !escapes);
  writeMatches(raw, rawLen, gDec, count, n, true, !escapes);
  useEscapeMap(-1);
  gCopied = a + rawLen;
  return true;
}

/** The matcher (or the token decoder) over the first n bytes of gDec (gDecLen decoding): how many it found, in J_REC. */
@inline function findIn(desc: usize, encoding: bool, n: i32): i32 {
  if (encoding) scan(desc, gDec, n, get(J_REC) as usize, 1, MODE_BYTE_RECORDS);
  else decode(desc, gDec, gDecLen, get(J_REC) as usize, 1, get(J_AUX) as usize, 0);
  return <i32>load<u32>(desc + D_MATCHES);
}

/**
 * The matches [first, end) in J_REC, at offsets from `base` in the input, written as tokens:
 * each after one copy of everything since the last (the message before the string included);
 * what follows the last is left to the next copy. For a string with no escapes, encoding: its
 * raw bytes are its decoded ones (writeRecords: the whole message's matches; matchText: a
 * string's own).
 */
function writeTokens(base: i32, first: i32, end: i32): void {
  const desc = get(J_DESC) as usize;
  const rec = get(J_REC) as usize;
  for (let k = first; k < end; k++) {
    const r = rec + <usize>k * MATCH_RECORD_SIZE;
    const start = base + <i32>load<u32>(r);
    copyTo(start);
    const n = <i32>load<u32>(r, 4) - <i32>load<u32>(r);
    writeToken(desc, gIn + <usize>start, n);
    gCopied = start + n;
  }
}
