// The raw and decoded windows of a payload string: the raw bytes as they came (escapes kept,
// so output is written from them) and the same text decoded (what the matcher or token decoder
// reads). A cursor pair maps decoded offsets back to raw ones, skipping from backslash to
// backslash; flushString writes what is decided and keeps what is not.
import {
  ESC_DEC_END, ESC_DEC_START, ESC_RAW_END, ESCAPE_ENTRY_SIZE, J_CAND_BEST, J_CAND_KNOWN, J_CAND_STATE, J_DEC, J_DEC_LEN, J_MODE, J_RAW,
  J_RAW_ESCAPES, J_RAW_LEN, J_STR, JSON_ENCODE,
} from '../abi';
import { BACKSLASH, LOWER_U } from '../bytes';
import { candidateKnown, forgetCandidate, hexValue } from '../decode';
import { findByte } from '../find';
import { heldBest, heldState, heldWalked } from '../walk';
import { uriCheck } from './media';
import { transformSpan } from './rewrite';
import { get, STR_URI_CHECK, set } from './state';

/** Length of the escape (or plain byte) at raw[r] and how many decoded bytes it stands for. */
let gRawStep: i32 = 0;
let gDecStep: i32 = 0;
function rawUnit(raw: usize, r: i32, rawLen: i32): void {
  const b = <u32>load<u8>(raw + <usize>r);
  if (b != BACKSLASH) {
    gRawStep = 1;
    gDecStep = 1;
    return;
  }
  const e = <u32>load<u8>(raw + <usize>r + 1);
  if (e != LOWER_U) {
    gRawStep = 2;
    gDecStep = 1;
    return;
  }
  let u: u32 = 0;
  for (let k: i32 = 2; k < 6; k++) u = (u << 4) | <u32>hexValue(<u32>load<u8>(raw + <usize>(r + k)));
  gRawStep = 6;
  if (u < 0x80) gDecStep = 1;
  else if (u < 0x800) gDecStep = 2;
  else if (u >= 0xd800 && u <= 0xdbff) {
    // A pair when a low-surrogate escape follows; otherwise a lone surrogate (one 0xFF byte).
    gDecStep = 1;
    if (r + 12 <= rawLen && load<u8>(raw + <usize>(r + 6)) == BACKSLASH && load<u8>(raw + <usize>(r + 7)) == LOWER_U) {
      let w: u32 = 0;
      for (let k: i32 = 8; k < 12; k++) {
        const h = hexValue(<u32>load<u8>(raw + <usize>(r + k)));
        if (h < 0) return;
        w = (w << 4) | <u32>h;
      }
      if (w >= 0xdc00 && w <= 0xdfff) {
        gRawStep = 12;
        gDecStep = 4;
      }
    }
  } else if (u >= 0xdc00 && u <= 0xdfff) gDecStep = 1;
  else gDecStep = 3;
}

// The cursor pair: a raw offset and the decoded offset it stands for.
export let gCurRaw: i32 = 0;
export let gCurDec: i32 = 0;
export let gNoEscapes: bool = false; // no escapes in the raw window: the offsets agree

/** Starts the cursor pair at the start of the windows. */
@inline export function cursorStart(noEscapes: bool): void {
  gCurRaw = 0;
  gCurDec = 0;
  gNoEscapes = noEscapes;
  gMapAt = 0;
}

// The escape map: where a whole string's decoder met each escape (its decoded start and end,
// its raw end, offsets into the string), so the cursor pair jumps from escape to escape instead
// of reading the raw bytes again for each match (prose with a line break every sentence and a
// match in most: the raw bytes were searched for backslashes once per match).
// A large message's call (lines.ts jsonLarge) lends a larger map, made by the host for it.
const ESCAPE_MAP_ENTRIES: i32 = 1024;
const ESCAPE_MAP = memory.data(ESCAPE_MAP_ENTRIES * ESCAPE_ENTRY_SIZE, 16);
let gMap: usize = ESCAPE_MAP;
/** How many escapes the map can hold. */
export let gMapEntries: i32 = ESCAPE_MAP_ENTRIES;
/** Entries of the map for the string being written, or -1: no map (search the raw bytes). */
export let gEscapeMap: i32 = -1;
let gMapAt: i32 = 0;

/** Puts the map at `map`, `entries` of ESCAPE_ENTRY_SIZE bytes (0: the core's own). */
export function escapeMapAt(map: usize, entries: i32): void {
  gMap = map != 0 ? map : ESCAPE_MAP;
  gMapEntries = map != 0 ? entries : ESCAPE_MAP_ENTRIES;
}

/** Notes an escape (entry k of the map; the caller keeps k below gMapEntries). */
@inline export function mapEscape(k: i32, decStart: i32, decEnd: i32, rawEnd: i32): void {
  const m = gMap + <usize>k * ESCAPE_ENTRY_SIZE;
  store<i32>(m, decStart, ESC_DEC_START);
  store<i32>(m, decEnd, ESC_DEC_END);
  store<i32>(m, rawEnd, ESC_RAW_END);
}

/** Lets writeMatches use the first `entries` of the map (-1: none). */
export function useEscapeMap(entries: i32): void {
  gEscapeMap = entries;
}

/** Puts the raw cursor at `at` (everything before it decided, nothing matched). */
@inline export function cursorAt(at: i32): void {
  gCurRaw = at;
}
/** Moves the raw/decoded cursor pair forward to decoded offset `target`. */
export function advance(raw: usize, rawLen: i32, target: i32): void {
  if (gNoEscapes) {
    gCurRaw = target;
    gCurDec = target;
    return;
  }
  if (gEscapeMap >= 0) {
    // Escapes before the target are jumped over whole (a target inside one goes past it, as
    // below); between them raw and decoded bytes correspond one to one.
    while (gMapAt < gEscapeMap) {
      const m = gMap + <usize>gMapAt * ESCAPE_ENTRY_SIZE;
      if (target <= load<i32>(m, ESC_DEC_START) || gCurDec >= target) break;
      gCurDec = load<i32>(m, ESC_DEC_END);
      gCurRaw = load<i32>(m, ESC_RAW_END);
      gMapAt++;
    }
    if (gCurDec < target) {
      gCurRaw += target - gCurDec;
      gCurDec = target;
    }
    return;
  }
  while (gCurDec < target) {
    // Up to the next backslash, raw and decoded bytes correspond one to one.
    const limit = gCurRaw + (target - gCurDec);
    const next = findBackslash(raw, gCurRaw, limit);
    gCurDec += next - gCurRaw;
    gCurRaw = next;
    if (gCurDec >= target) break;
    rawUnit(raw, gCurRaw, rawLen);
    gCurRaw += gRawStep;
    gCurDec += gDecStep;
  }
}

/** Index of the first backslash in raw[from, limit), or `limit`. */
@inline export function findBackslash(raw: usize, from: i32, limit: i32): i32 {
  return findByte(raw, from, limit, <u8>BACKSLASH);
}

function countEscapes(raw: usize, n: i32): u32 {
  let count: u32 = 0;
  for (let k: i32 = 0; k < n; k++) if (load<u8>(raw + <usize>k) == BACKSLASH) count++;
  return count;
}

/**
 * Runs the matcher over the decoded window and writes what is decided: raw bytes between
 * matches, replacements for matches. Undecided bytes (a possible match running past the end of
 * what has arrived) stay in the windows. Costs what was added since the last flush, not what
 * stays: a long undecided candidate is neither scanned nor moved again.
 */
export function flushString(final: bool): void {
  // Empty windows (a string matched in place, as most are): nothing to decide or write, and
  // nothing new for the data: URI check.
  const rawLen = <i32>get(J_RAW_LEN);
  const decLen = <i32>get(J_DEC_LEN);
  if (decLen == 0 && rawLen == 0) return;
  if ((get(J_STR) & STR_URI_CHECK) != 0 && !uriCheck(final)) return;
  const raw = get(J_RAW) as usize;
  const dec = get(J_DEC) as usize;
  forgetCandidate();
  const consumed = transformSpan(raw, rawLen, dec, decLen, final, get(J_RAW_ESCAPES) == 0, <i32>get(J_CAND_KNOWN));
  if (final) set(J_CAND_KNOWN, 0);
  else if (get(J_MODE) == JSON_ENCODE) {
    set(J_CAND_KNOWN, <u32>heldWalked);
    set(J_CAND_STATE, heldState);
    set(J_CAND_BEST, <u32>heldBest);
  } else set(J_CAND_KNOWN, <u32>candidateKnown);
  const keepRaw = final ? rawLen : gCurRaw;
  const kept = rawLen - keepRaw;
  if (keepRaw > 0) memory.copy(raw, raw + <usize>keepRaw, <usize>kept);
  set(J_RAW_LEN, <u32>kept);
  // Escapes left in the raw window: counted when few bytes stay (the common case); a long
  // undecided candidate keeps the count it had (not zero: the cursor then looks for them).
  if (!gNoEscapes && (kept < 64 || keepRaw > 0)) set(J_RAW_ESCAPES, countEscapes(raw, kept));
  if (consumed > 0) memory.copy(dec, dec + <usize>consumed, <usize>(decLen - consumed));
  set(J_DEC_LEN, <u32>(decLen - consumed));
}
