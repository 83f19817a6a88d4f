// Values that can only be judged once later bytes arrive, and are deferred until then: copied
// as they are while the host holds them, then kept (opaque) or transformed on their own. A
// `data` waits for its object's `type` (image/audio or not), a `blob` for its object's `uri`,
// and a string that begins like a data: URI for its own end (a whole base64 data: URI keeps its
// base64; its header is text).
import {
  DEFER_BLOB, DEFER_DATA, DEFER_STRING, E_TYPE_CONFLICT, EV_DEFER_START, EV_RESOLVE, J_CAND_KNOWN, J_DEC, J_DEC_LEN, J_DEFER_AT,
  J_DEPTH, J_RAW, J_RAW_ESCAPES, J_RAW_LEN, J_SMALL, J_SMALL_LEN, J_STR, J_URI, J_URI_FED, J_URI_HEAD, RESOLVE_KEEP,
  RESOLVE_TRANSFORM,
} from '../abi';
import { CASE_BIT, COMMA, LOWER_D } from '../bytes';
import { MIN_DATA_URI, uriComplete, uriHeaderAt, uriRun, URI_DEAD, uriUndecided } from '../data-uri';
import { findByte } from '../find';
import { transformSpan } from './rewrite';
import { advance, cursorStart, gCurRaw } from './windows';
import {
  emit, error, event, get, K_BLOB_PENDING, K_MEDIA_SHIFT, K_PENDING, K_URI, MEDIA_NO, MEDIA_UNKNOWN, MEDIA_YES, outPos, set, setTop,
  st, STR_TRANSFORM, STR_URI, STR_URI_CHECK, top,
} from './state';

/**
 * The value starting now is copied as it is, and the host holds it from here until it is
 * resolved (EV_RESOLVE of the same kind): kept, or transformed on its own.
 */
export function defer(pending: u32, kind: u32): void {
  // A second `data` (or `blob`) in one object: JSON.parse keeps the last, so the first one's
  // fate does not matter; keep it, and wait for the new one.
  if ((top() & pending) != 0) event(EV_RESOLVE, RESOLVE_KEEP, kind);
  setTop(top() | pending);
  set(J_DEFER_AT, get(J_DEPTH) + 1);
  event(EV_DEFER_START, outPos(), kind);
}

/** The object has a `uri`: a `blob` waiting for it is opaque, and so is any later one. */
export function sawUri(): void {
  const k = top();
  if ((k & K_BLOB_PENDING) != 0) event(EV_RESOLVE, RESOLVE_KEEP, DEFER_BLOB);
  setTop((k & ~K_BLOB_PENDING) | K_URI);
}

/**
 * The `type` of the innermost object is known: media or not. A second `type` key that would
 * change the verdict is refused: JSON.parse keeps the last one, and a `data` value may
 * already have been written out under the first.
 */
export function resolveMedia(media: bool): bool {
  const before = (top() >> K_MEDIA_SHIFT) & 3;
  if (before != MEDIA_UNKNOWN && before != (media ? MEDIA_YES : MEDIA_NO)) return error(E_TYPE_CONFLICT);
  let k = top() & ~(3 << K_MEDIA_SHIFT);
  k |= (media ? MEDIA_YES : MEDIA_NO) << K_MEDIA_SHIFT;
  if ((k & K_PENDING) != 0) {
    event(EV_RESOLVE, media ? RESOLVE_KEEP : RESOLVE_TRANSFORM, DEFER_DATA);
    k &= ~K_PENDING;
  }
  setTop(k);
  return true;
}

/**
 * A payload string wholly in view (raw bytes at raw, decoded at dec) that is a whole base64
 * data: URI is written (writeUri); returns false to have it transformed.
 */
export function keptAsUri(flags: u32, raw: usize, rawLen: i32, dec: usize, decLen: i32, noEscapes: bool): bool {
  if ((flags & STR_URI_CHECK) == 0 || !isWholeDataUri(dec, decLen)) return false;
  writeUri(raw, rawLen, dec, decLen, noEscapes);
  return true;
}

/** Where the header of the whole data: URI decoded at dec ends: just past its first comma. */
@inline export function uriHeaderEnd(dec: usize, decLen: i32): i32 {
  return findByte(dec, 0, decLen, <u8>COMMA) + 1;
}

/** The raw offset (in raw, rawLen bytes) of decoded offset `at`. */
export function rawOffset(raw: usize, rawLen: i32, at: i32, noEscapes: bool): i32 {
  cursorStart(noEscapes);
  advance(raw, rawLen, at);
  return gCurRaw;
}

/**
 * Writes a whole base64 data: URI wholly in view: its header (`data:`, media type and
 * parameters, `;base64,`) transformed as text on its own, its base64 as it is.
 */
export function writeUri(raw: usize, rawLen: i32, dec: usize, decLen: i32, noEscapes: bool): void {
  const h = uriHeaderEnd(dec, decLen);
  const rh = rawOffset(raw, rawLen, h, noEscapes);
  transformSpan(raw, rh, dec, h, true, noEscapes, 0);
  emit(raw + <usize>rh, <usize>(rawLen - rh));
}

/**
 * Whether the decoded string at dec (n bytes, at least one readable) is a whole base64 data: URI
 * (a key-heavy message's many short strings need no run: 2.5% of its encode).
 */
@inline export function isWholeDataUri(dec: usize, n: i32): bool {
  return n >= MIN_DATA_URI && (<u32>load<u8>(dec) | CASE_BIT) == LOWER_D && uriComplete(uriRun(0, dec, <usize>n)); // 'd' or 'D'
}

/**
 * Before a payload string's windows are flushed: reads what is new in them for a data: URI.
 * Returns true to go on transforming. Otherwise the string's text is still undecided (kept in
 * the windows), or was written as it is: a whole data: URI, or one that may still be and is
 * now deferred to its end (the host holds it; the rest is copied as it comes).
 */
export function uriCheck(final: bool): bool {
  const dec = get(J_DEC) as usize;
  const decLen = get(J_DEC_LEN);
  const fed = get(J_URI_FED);
  const s = uriRun(get(J_URI), dec + <usize>fed, <usize>(decLen - fed));
  set(J_URI, s);
  set(J_URI_FED, decLen);
  const flags = get(J_STR);
  if (s == URI_DEAD || (final && !uriComplete(s))) {
    set(J_STR, flags & ~STR_URI_CHECK);
    return true;
  }
  if (!final && uriUndecided(s)) return false; // too little to tell
  const raw = get(J_RAW) as usize;
  const rawLen = get(J_RAW_LEN);
  const noEscapes = get(J_RAW_ESCAPES) == 0;
  if (final) writeUri(raw, <i32>rawLen, dec, <i32>decLen, noEscapes);
  else {
    // Held by the host from here to its end, then resolved; where its header ends, if that is here.
    if (uriHeaderAt >= 0) set(J_URI_HEAD, outPos() + <u32>rawOffset(raw, <i32>rawLen, <i32>fed + uriHeaderAt, noEscapes));
    event(EV_DEFER_START, outPos(), DEFER_STRING);
    set(J_DEFER_AT, get(J_DEPTH) + 1);
    set(J_STR, (flags & ~(STR_URI_CHECK | STR_TRANSFORM)) | STR_URI);
    emit(raw, <usize>rawLen);
  }
  set(J_RAW_LEN, 0);
  set(J_DEC_LEN, 0);
  set(J_RAW_ESCAPES, 0);
  set(J_CAND_KNOWN, 0);
  return false;
}

const IMAGE = memory.data<u8>([0x69, 0x6d, 0x61, 0x67, 0x65]); // image
const AUDIO = memory.data<u8>([0x61, 0x75, 0x64, 0x69, 0x6f]); // audio

/** Whether the collected start of the current string (a `type` value) is `image` or `audio`. */
export function collectedIsMedia(): bool {
  return isMediaType(st + J_SMALL, get(J_SMALL_LEN));
}

/** Whether the decoded `type` value at p (n bytes) is `image` or `audio`. */
export function isMediaType(p: usize, n: u32): bool {
  return n == 5 && (sameWord(p, IMAGE) || sameWord(p, AUDIO));
}

@inline function sameWord(p: usize, word: usize): bool {
  for (let k: usize = 0; k < 5; k++) if (load<u8>(p + k) != load<u8>(word + k)) return false;
  return true;
}
