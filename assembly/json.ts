// The streaming JSON transducer: transforms one JSON-RPC message (or batch) as its bytes
// arrive, chunk by chunk, keeping only its state between calls, never the message.
//
// Bytes outside transformed strings are copied as they are. Strings in payload (the values
// of `params`, `result` and `error`) are decoded (escapes resolved) into a window that the
// term matcher or token decoder runs over; the raw bytes between matches are copied verbatim
// (original escapes kept) and each match is replaced by its token (encode) or its JSON-escaped
// text (decode). So a message with nothing to change comes out byte-identical.
//
// The host learns what it must act on through events: the message id, where a `data` value
// seen before its object's `type` starts and ends (the host holds that output until the type
// is known), and, when decoding, every payload key (for collision checks).
import { candidateKnown, decode, hexValue } from './decode';
import { MODE_BYTE_RECORDS, scan } from './match';
import { copyBytes } from './copy';
import { utf8Lead, utf8SequenceAt } from './utf8';
import { sequenceStart, utf8BlockErrors } from './utf8-simd';
import { D_HEX, D_MATCHES, D_PREFIX_LEN, D_PREFIX_OUT, D_SUFFIX, D_SUFFIX_LEN, D_WIDEN } from './layout';
import { uriComplete, uriRun, uriStep, URI_DEAD, URI_HEADER } from './data-uri';
import {
  isDataKeyword, isNameMapKeyword, keyId, KEY_BLOB, KEY_DATA, KEY_ERROR, KEY_ID, KEY_INPUT_SCHEMA, KEY_MAX_LENGTH, KEY_META,
  KEY_OUTPUT_SCHEMA, KEY_PARAMS, KEY_RESULT, KEY_TASK, KEY_TASK_ID, KEY_TASKS, KEY_TOOLS, KEY_TYPE, KEY_URI, LONGEST_KEY,
  paramsKeeps, resultKeeps,
} from './fields';

// State struct (u32 fields), laid out by src/stream/transducer.ts.
const J_DESC: usize = 0;
const J_MODE: usize = 4; // 0 encode, 1 decode
const J_PHASE: usize = 8;
const J_DEPTH: usize = 12;
const J_STACK: usize = 16; // u16 per depth, see K_*
const J_STACK_CAP: usize = 20;
const J_STR: usize = 24; // string flags, see STR_*
const J_ESC: usize = 28; // 0, 1 after '\', 2..5 reading \u hex digits
const J_UACC: usize = 32;
const J_HIGH: usize = 36; // pending high surrogate of a \u escape, or 0
const J_UTF8_NEED: usize = 40;
const J_UTF8_LO: usize = 44;
const J_UTF8_HI: usize = 48;
const J_SCALAR: usize = 52;
const J_RAW: usize = 56;
const J_RAW_CAP: usize = 60;
const J_RAW_LEN: usize = 64;
const J_DEC: usize = 68;
const J_DEC_CAP: usize = 72;
const J_DEC_LEN: usize = 76;
const J_REC: usize = 80;
const J_AUX: usize = 84;
const J_SMALL_LEN: usize = 96;
const J_EVENTS: usize = 100;
const J_EV_COUNT: usize = 104;
const J_OUT_LEN: usize = 108;
const J_ERROR: usize = 112;
const J_MSG_LEVEL: usize = 120;
const J_VALUE: usize = 124; // flags for the value that follows a key, see V_*
const J_STR_START: usize = 128; // message output offset where the current string's text begins
const J_OUT_TOTAL: usize = 132; // message output bytes before this call
const J_LIT: usize = 136; // literal being matched: pointer
const J_LIT_POS: usize = 140;
const J_LIT_LEN: usize = 144;
const J_DEFER_AT: usize = 148; // 1 + depth of the value being deferred (held by the host), or 0
const J_ID_START: usize = 152;
const J_STR_CHANGED: usize = 156;
const J_ROOT_PAYLOAD: usize = 160; // 1: the top-level value is payload (a bare value, not a message); 2: and not a data: URI
const J_RAW_ESCAPES: usize = 164; // escapes in the raw window (none: raw and decoded offsets agree)
const J_URI: usize = 168; // data: URI recogniser state of the current string (data-uri.ts)
const J_ENV: usize = 172; // the envelope member being read: KEY_PARAMS, KEY_RESULT, KEY_ERROR or 0
const J_L1: usize = 176; // key id of the member of params/result being read
const J_SCHEMA_AT: usize = 180; // 1 + depth of a tool schema's root container, or 0
const J_SKIP_AT: usize = 184; // 1 + depth of a schema's data container (const, enum...), or 0
const J_NUM_LEN: usize = 188; // bytes of a maxLength number held in J_NUM (0: none held)
const J_SMALL: usize = 192; // LONGEST_KEY + 7 bytes: the decoded start of a key or of a `type` value
const J_NUM: usize = 216; // 24 bytes: a maxLength number, written when it ends
const J_URI_FED: usize = 240; // decoded window bytes the data: URI recogniser has read
// Decoding: bytes at the start of the windows already found to be a token candidate's prefix
// and hex digits (a long candidate stays in the windows until it is decided; this keeps each
// flush from scanning it again).
const J_CAND_KNOWN: usize = 244;

// Phases outside strings.
const P_VALUE = 0;
const P_KEY = 1;
const P_COLON = 2;
const P_AFTER = 3;
const P_SCALAR = 4;
const P_DONE = 5;
const P_STRING = 6;

// Stack entry per container.
const K_OBJ: u32 = 1;
const K_PAYLOAD: u32 = 2;
const K_MEDIA_SHIFT: u32 = 2; // 2 bits: 0 unknown, 1 image/audio, 2 other
const K_PENDING: u32 = 16; // a `data` value was deferred; resolve when `type` is known
const K_FIRST: u32 = 32; // no member yet
const K_URI: u32 = 64; // has a `uri` member: its `blob` is opaque
const K_BLOB_PENDING: u32 = 128; // a `blob` value was deferred; resolve when `uri` is seen or not
const K_NAME_MAP: u32 = 256; // a schema's `properties` (or the like): its members are names

// String flags.
const STR_KEY: u32 = 1;
const STR_TRANSFORM: u32 = 2;
const STR_COLLECT: u32 = 4; // keep the decoded start in J_SMALL
const STR_URI_CHECK: u32 = 8; // a payload value that may be a data: URI; not decided yet
const STR_URI: u32 = 16; // began with "data:": deferred, copied as it is while J_URI reads it

// Value flags (set at a key, used when its value starts).
const V_PAYLOAD: u32 = 1;
const V_TYPE: u32 = 2;
const V_DATA: u32 = 4;
const V_ID: u32 = 8;
const V_BLOB: u32 = 16;
const V_SCHEMA: u32 = 32; // a tool's inputSchema or outputSchema
const V_NAME_MAP: u32 = 64;
const V_SKIP: u32 = 128; // schema data: no widening inside
const V_MAX_LENGTH: u32 = 256;

// Events: [kind, a, b] u32 each; offsets are message output offsets.
const EV_DEFER_START: u32 = 1;
const EV_DEFER_END: u32 = 2;
const EV_RESOLVE: u32 = 3; // a: RESOLVE_*, b: where the deferred value starts
export const RESOLVE_TRANSFORM: u32 = 0; // a JSON value to transform
export const RESOLVE_KEEP: u32 = 1; // opaque: kept as it is
export const RESOLVE_STRING: u32 = 2; // a string's text and closing quote, to transform (not a data: URI)
const EV_OBJ_OPEN: u32 = 4;
const EV_KEY: u32 = 5; // a..b: the key's text in the output; kind 6 if decoding changed it
const EV_KEY_CHANGED: u32 = 6;
const EV_OBJ_CLOSE: u32 = 7;
const EV_ID: u32 = 8; // a..b: the id value's JSON text in the output
const EV_MSG_END: u32 = 9; // a message object ended (decoding: tells batch elements apart)

// Errors.
export const E_SYNTAX = 1;
export const E_UTF8 = 2;
export const E_CONTROL = 3;
export const E_ESCAPE = 4;
export const E_DEPTH = 5;
export const E_INCOMPLETE = 6;
export const E_NEED_MEMORY = 7;
export const E_TYPE_CONFLICT = 8;

const LITERALS = memory.data<u8>([0x74, 0x72, 0x75, 0x65, 0x66, 0x61, 0x6c, 0x73, 0x65, 0x6e, 0x75, 0x6c, 0x6c]); // true false null

// Per-call working state.
let st: usize = 0;
let o: usize = 0; // next output byte
let outStart: usize = 0;

@inline function get(f: usize): u32 { return load<u32>(st + f); }
@inline function set(f: usize, v: u32): void { store<u32>(st + f, v); }
@inline function outPos(): u32 { return get(J_OUT_TOTAL) + <u32>(o - outStart); }
@inline function put(b: u32): void { store<u8>(o, <u8>b); o++; }
@inline function isWs(b: u32): bool { return b == 0x20 || b == 0x0a || b == 0x0d || b == 0x09; }

function event(kind: u32, a: u32, b: u32): void {
  const n = get(J_EV_COUNT);
  const p = (get(J_EVENTS) as usize) + <usize>n * 12;
  store<u32>(p, kind);
  store<u32>(p, a, 4);
  store<u32>(p, b, 8);
  set(J_EV_COUNT, n + 1);
}

@inline function entry(depth: u32): u32 {
  return <u32>load<u16>((get(J_STACK) as usize) + (<usize>depth << 1));
}
@inline function top(): u32 {
  return entry(get(J_DEPTH));
}
@inline function setTop(v: u32): void {
  store<u16>((get(J_STACK) as usize) + (<usize>get(J_DEPTH) << 1), <u16>v);
}

/** Starts a message: clears everything but the buffers the host laid out. */
export function jsonReset(state: usize): void {
  st = state;
  set(J_PHASE, P_VALUE);
  set(J_DEPTH, 0);
  set(J_STR, 0);
  set(J_ESC, 0);
  set(J_HIGH, 0);
  set(J_UTF8_NEED, 0);
  set(J_SCALAR, 0);
  set(J_RAW_LEN, 0);
  set(J_DEC_LEN, 0);
  set(J_SMALL_LEN, 0);
  set(J_EV_COUNT, 0);
  set(J_ERROR, 0);
  set(J_MSG_LEVEL, 0);
  set(J_VALUE, 0);
  set(J_OUT_TOTAL, 0);
  set(J_DEFER_AT, 0);
  set(J_STR_CHANGED, 0);
  set(J_ENV, 0);
  set(J_L1, 0);
  set(J_SCHEMA_AT, 0);
  set(J_SKIP_AT, 0);
  set(J_NUM_LEN, 0);
  set(J_CAND_KNOWN, 0);
  store<u16>(get(J_STACK) as usize, 0);
}

/**
 * Feeds `len` bytes. Returns how many were consumed: all of them, unless an error stopped it
 * (J_ERROR; E_NEED_MEMORY means the string windows must grow, then the rest is fed again).
 * Output goes to `out` (J_OUT_LEN bytes); events are appended at J_EVENTS.
 */
export function jsonStep(state: usize, inp: usize, len: i32, out: usize): i32 {
  st = state;
  o = out;
  outStart = out;
  let i: i32 = 0;
  while (i < len) {
    const b = <u32>load<u8>(inp + <usize>i);
    const phase = get(J_PHASE);
    if (phase == P_STRING) {
      // Fast path: a run of plain bytes (no quote, backslash or control byte; valid UTF-8).
      if (get(J_ESC) == 0 && get(J_UTF8_NEED) == 0 && get(J_HIGH) == 0) {
        const flags = get(J_STR);
        if ((flags & STR_TRANSFORM) == 0) {
          const j = plainRun(inp, i, len);
          const n = j - i;
          if (n > 0) {
            if ((flags & STR_COLLECT) != 0) collect(inp + <usize>i, <u32>n);
            if ((flags & STR_URI) != 0) set(J_URI, uriRun(get(J_URI), inp + <usize>i, <usize>n));
            copyBytes(o, inp + <usize>i, <usize>n);
            o += <usize>n;
          }
          if (j < len && load<u8>(inp + <usize>j) == 0x22) {
            i = j + 1;
            if (!stringEnd()) return fail(j);
            continue;
          }
          if (n > 0) {
            i = j;
            continue;
          }
        } else {
          if (get(J_RAW_LEN) == 0 && get(J_DEC_LEN) == 0) {
            // The rest of the string is here (all before it is written), without escapes:
            // match on the input bytes themselves.
            const j = plainRun(inp, i, len);
            if (j < len && load<u8>(inp + <usize>j) == 0x22) {
              const n = j - i;
              if (n > 0) {
                if ((flags & STR_COLLECT) != 0) collect(inp + <usize>i, <u32>n);
                if (!keptAsUri(flags, inp + <usize>i, n, inp + <usize>i, n)) transformSpan(inp + <usize>i, n, inp + <usize>i, n, true, true);
              }
              i = j + 1;
              if (!stringEnd()) return fail(j);
              continue;
            }
            // The rest of the string is here (all before it is written), with short escapes
            // only: decode it into the decoded window and write from the input itself.
            const q = j < len && load<u8>(inp + <usize>j) == 0x5c ? decodeShortEscapes(inp, i, j, len) : -1;
            if (q >= 0) {
              const dec = get(J_DEC) as usize;
              const n = <i32>get(J_DEC_LEN);
              set(J_DEC_LEN, 0);
              if ((flags & STR_COLLECT) != 0) collect(dec, <u32>n);
              if (!keptAsUri(flags, inp + <usize>i, q - i, dec, n)) transformSpan(inp + <usize>i, q - i, dec, n, true, false);
              i = q + 1;
              if (!stringEnd()) return fail(q);
              continue;
            }
          }
          let room = <i32>min(get(J_RAW_CAP) - get(J_RAW_LEN), get(J_DEC_CAP) - 8 - get(J_DEC_LEN));
          if (room <= 16) {
            flushString(false);
            if ((get(J_STR) & STR_TRANSFORM) == 0) continue; // (it turned out a data: URI)
            room = <i32>min(get(J_RAW_CAP) - get(J_RAW_LEN), get(J_DEC_CAP) - 8 - get(J_DEC_LEN));
          }
          const j = plainRun(inp, i, min(len, i + room));
          if (j > i) {
            const n = <usize>(j - i);
            if ((flags & STR_COLLECT) != 0) collect(inp + <usize>i, <u32>n);
            memory.copy((get(J_RAW) as usize) + <usize>get(J_RAW_LEN), inp + <usize>i, n);
            memory.copy((get(J_DEC) as usize) + <usize>get(J_DEC_LEN), inp + <usize>i, n);
            set(J_RAW_LEN, get(J_RAW_LEN) + <u32>n);
            set(J_DEC_LEN, get(J_DEC_LEN) + <u32>n);
            i = j;
            continue;
          }
        }
      }
      if (!stringByte(b)) return fail(i);
      i++;
      continue;
    }
    if (phase == P_SCALAR) {
      if (scalarByte(b)) {
        scalarOut(b);
        i++;
        continue;
      }
      if (!scalarEnd()) return fail(i);
      continue; // the delimiter is handled in the new phase
    }
    if (!structuralByte(b)) return fail(i);
    i++;
  }
  if (get(J_PHASE) == P_STRING && (get(J_STR) & STR_TRANSFORM) != 0) flushString(false);
  done();
  return len;
}

/** Records this call's output length and adds it to the message total. */
function done(): void {
  const n = <u32>(o - outStart);
  set(J_OUT_LEN, n);
  set(J_OUT_TOTAL, get(J_OUT_TOTAL) + n);
}

/** Ends the message: flushes and checks it is one complete JSON value. 0 or an error code. */
export function jsonFinish(state: usize, out: usize): i32 {
  st = state;
  o = out;
  outStart = out;
  if (get(J_PHASE) == P_SCALAR && !scalarEnd()) {
    done();
    return <i32>get(J_ERROR);
  }
  done();
  if (get(J_PHASE) != P_DONE) {
    set(J_ERROR, E_INCOMPLETE);
    return E_INCOMPLETE;
  }
  return 0;
}

function fail(i: i32): i32 {
  if (get(J_ERROR) == 0) set(J_ERROR, E_SYNTAX);
  done();
  return i;
}

function error(code: u32): bool {
  set(J_ERROR, code);
  return false;
}

// ---- structure ----

function structuralByte(b: u32): bool {
  const phase = get(J_PHASE);
  if (isWs(b)) {
    put(b);
    return true;
  }
  if (phase == P_VALUE) return valueStart(b);
  if (phase == P_KEY) {
    if (b == 0x22) return stringStart(true);
    if (b == 0x7d && (top() & K_FIRST) != 0) return closeContainer(b);
    return error(E_SYNTAX);
  }
  if (phase == P_COLON) {
    if (b != 0x3a) return error(E_SYNTAX);
    put(b);
    set(J_PHASE, P_VALUE);
    return true;
  }
  if (phase == P_AFTER) {
    const k = top();
    if (b == 0x2c) {
      put(b);
      set(J_PHASE, (k & K_OBJ) != 0 ? P_KEY : P_VALUE);
      return true;
    }
    if ((b == 0x7d && (k & K_OBJ) != 0) || (b == 0x5d && (k & K_OBJ) == 0)) return closeContainer(b);
    return error(E_SYNTAX);
  }
  return error(E_SYNTAX); // P_DONE: only whitespace may follow the value
}

/** Payload flag for a value starting now, and the deferral of a `data` value. */
function valueFlags(): u32 {
  const depth = get(J_DEPTH);
  if (depth == 0) return get(J_ROOT_PAYLOAD) != 0 ? V_PAYLOAD : 0;
  const k = top();
  if ((k & K_OBJ) == 0) return k & K_PAYLOAD ? V_PAYLOAD : 0;
  return get(J_VALUE);
}

function valueStart(b: u32): bool {
  const depth = get(J_DEPTH);
  if (b == 0x5d && depth > 0 && (top() & (K_OBJ | K_FIRST)) == K_FIRST) return closeContainer(b);
  let v = valueFlags();
  if (depth > 0) setTop(top() & ~K_FIRST);
  if ((v & V_DATA) != 0) {
    const media = (top() >> K_MEDIA_SHIFT) & 3;
    if (media == 1) v &= ~V_PAYLOAD;
    else if (media == 0) {
      // `data` before `type`: copy it as it is, and let the host hold it until the type is known.
      v &= ~V_PAYLOAD;
      defer(K_PENDING, DEFER_DATA);
    }
  } else if ((v & V_BLOB) != 0) {
    v &= ~V_PAYLOAD;
    // `blob` before `uri`: the same, until the object has a `uri` or ends without one.
    if ((top() & K_URI) == 0) defer(K_BLOB_PENDING, DEFER_BLOB);
  }
  if ((v & V_ID) != 0) set(J_ID_START, outPos());
  if ((v & V_TYPE) != 0 && b != 0x22 && !resolveMedia(false)) return false; // a `type` that is not a string
  set(J_VALUE, v);
  if (b == 0x7b || b == 0x5b) {
    if (depth + 1 >= get(J_STACK_CAP)) return error(E_DEPTH);
    put(b);
    const obj = b == 0x7b;
    if (depth == 0 && get(J_ROOT_PAYLOAD) == 0) set(J_MSG_LEVEL, obj ? 1 : 2);
    set(J_DEPTH, depth + 1);
    setTop((obj ? K_OBJ : 0) | ((v & V_PAYLOAD) != 0 ? K_PAYLOAD : 0) | K_FIRST | ((v & V_NAME_MAP) != 0 ? K_NAME_MAP : 0));
    if ((v & V_SCHEMA) != 0) set(J_SCHEMA_AT, depth + 2);
    if ((v & V_SKIP) != 0) set(J_SKIP_AT, depth + 2);
    if (obj && (v & V_PAYLOAD) != 0 && get(J_MODE) == 1) event(EV_OBJ_OPEN, 0, 0);
    set(J_PHASE, obj ? P_KEY : P_VALUE);
    return true;
  }
  if (b == 0x22) return stringStart(false);
  if (b == 0x2d || (b >= 0x30 && b <= 0x39)) {
    set(J_SCALAR, b == 0x2d ? 1 : b == 0x30 ? 2 : 3);
    set(J_NUM_LEN, 0);
    if ((v & V_MAX_LENGTH) != 0 && b != 0x2d) set(J_NUM_LEN, 1); // held until it ends, then widened
    scalarOut(b);
    set(J_PHASE, P_SCALAR);
    return true;
  }
  const lit: i32 = b == 0x74 ? 0 : b == 0x66 ? 4 : b == 0x6e ? 9 : -1;
  if (lit < 0) return error(E_SYNTAX);
  set(J_SCALAR, 10);
  set(J_LIT, <u32>(LITERALS + <usize>lit));
  set(J_LIT_POS, 1);
  set(J_LIT_LEN, b == 0x66 ? 5 : 4);
  put(b);
  set(J_PHASE, P_SCALAR);
  return true;
}

/** What a deferred value waits for (EV_DEFER_START's and EV_RESOLVE's b). */
const DEFER_DATA: u32 = 0; // its object's `type`
const DEFER_BLOB: u32 = 1; // its object's `uri`, or the object's end
const DEFER_STRING: u32 = 2; // its own end (a string that begins like a data: URI)

/**
 * The value starting now is copied as it is, and the host holds it from here until it is
 * resolved (EV_RESOLVE of the same kind): kept, or transformed on its own.
 */
function defer(pending: u32, kind: u32): void {
  // A second `data` (or `blob`) in one object: JSON.parse keeps the last, so the first one's
  // fate does not matter; keep it, and wait for the new one.
  if ((top() & pending) != 0) event(EV_RESOLVE, RESOLVE_KEEP, kind);
  setTop(top() | pending);
  set(J_DEFER_AT, get(J_DEPTH) + 1);
  event(EV_DEFER_START, outPos(), kind);
}

/** The object has a `uri`: a `blob` waiting for it is opaque, and so is any later one. */
function sawUri(): void {
  const k = top();
  if ((k & K_BLOB_PENDING) != 0) event(EV_RESOLVE, RESOLVE_KEEP, DEFER_BLOB);
  setTop((k & ~K_BLOB_PENDING) | K_URI);
}

function closeContainer(b: u32): bool {
  const k = top();
  const depth = get(J_DEPTH);
  if (get(J_SCHEMA_AT) == depth + 1) set(J_SCHEMA_AT, 0);
  if (get(J_SKIP_AT) == depth + 1) set(J_SKIP_AT, 0);
  if ((k & K_OBJ) != 0) {
    if ((k & K_PENDING) != 0) resolveMedia(false); // no `type`: not media
    if ((k & K_BLOB_PENDING) != 0) event(EV_RESOLVE, RESOLVE_TRANSFORM, DEFER_BLOB); // no `uri`: text
    if ((k & K_PAYLOAD) != 0 && get(J_MODE) == 1) event(EV_OBJ_CLOSE, 0, 0);
    if (get(J_DEPTH) == get(J_MSG_LEVEL) && get(J_MODE) == 1) event(EV_MSG_END, 0, 0);
  }
  put(b);
  set(J_DEPTH, get(J_DEPTH) - 1);
  return valueEnd();
}

/** A value just ended at the current depth. */
function valueEnd(): bool {
  const depth = get(J_DEPTH);
  const v = get(J_VALUE);
  if (get(J_DEFER_AT) == depth + 1) {
    event(EV_DEFER_END, outPos(), 0);
    set(J_DEFER_AT, 0);
  }
  if ((v & V_ID) != 0 && depth == get(J_MSG_LEVEL)) event(EV_ID, get(J_ID_START), outPos());
  set(J_VALUE, 0);
  set(J_PHASE, depth == 0 ? P_DONE : P_AFTER);
  return true;
}

/**
 * The `type` of the innermost object is known: media or not. A second `type` key that would
 * change the verdict is refused: JSON.parse keeps the last one, and a `data` value may
 * already have been written out under the first.
 */
function resolveMedia(media: bool): bool {
  const before = (top() >> K_MEDIA_SHIFT) & 3;
  if (before != 0 && before != (media ? 1 : 2)) return error(E_TYPE_CONFLICT);
  let k = top() & ~(3 << K_MEDIA_SHIFT);
  k |= (media ? 1 : 2) << K_MEDIA_SHIFT;
  if ((k & K_PENDING) != 0) {
    event(EV_RESOLVE, media ? RESOLVE_KEEP : RESOLVE_TRANSFORM, DEFER_DATA);
    k &= ~K_PENDING;
  }
  setTop(k);
  return true;
}

// ---- scalars ----

function scalarByte(b: u32): bool {
  const s = get(J_SCALAR);
  const digit = b >= 0x30 && b <= 0x39;
  let next: u32 = 0;
  if (s == 10) {
    const pos = get(J_LIT_POS);
    if (pos < get(J_LIT_LEN) && b == <u32>load<u8>((get(J_LIT) as usize) + <usize>pos)) {
      set(J_LIT_POS, pos + 1);
      return true;
    }
    return false;
  }
  if (s == 1) next = b == 0x30 ? 2 : digit ? 3 : 0;
  else if (s == 2) next = b == 0x2e ? 4 : (b | 0x20) == 0x65 ? 6 : 0;
  else if (s == 3) next = digit ? 3 : b == 0x2e ? 4 : (b | 0x20) == 0x65 ? 6 : 0;
  else if (s == 4) next = digit ? 5 : 0;
  else if (s == 5) next = digit ? 5 : (b | 0x20) == 0x65 ? 6 : 0;
  else if (s == 6) next = digit ? 8 : b == 0x2b || b == 0x2d ? 7 : 0;
  else if (s == 7) next = digit ? 8 : 0;
  else if (s == 8) next = digit ? 8 : 0;
  if (next == 0) return false;
  set(J_SCALAR, next);
  return true;
}

/** A byte of a scalar goes out, or into J_NUM while a maxLength number is held. */
function scalarOut(b: u32): void {
  const n = get(J_NUM_LEN);
  if (n == 0) {
    put(b);
    return;
  }
  if (n > 24) {
    // Too long to be a count it could widen: write what is held, and the rest as it comes.
    for (let k: u32 = 0; k < n - 1; k++) put(<u32>load<u8>(st + J_NUM + <usize>k));
    set(J_NUM_LEN, 0);
    put(b);
    return;
  }
  store<u8>(st + J_NUM + <usize>(n - 1), <u8>b);
  set(J_NUM_LEN, n + 1);
}

/**
 * Writes a held maxLength number widened by the descriptor's factor (so encoded values stay
 * within it), when it is a count: digits, optionally `.0…`, and the product a safe integer.
 * Anything else is written as it came (protocol-fields.ts widenMaxLength is the same rule).
 */
function writeMaxLength(): void {
  const n = get(J_NUM_LEN) - 1;
  set(J_NUM_LEN, 0);
  const p = st + J_NUM;
  let value: u64 = 0;
  let k: u32 = 0;
  while (k < n && k < 17) {
    const c = <u32>load<u8>(p + <usize>k);
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + <u64>(c - 0x30);
    k++;
  }
  let count = k > 0 && k < 17;
  if (count && k < n) {
    count = load<u8>(p + <usize>k) == 0x2e;
    for (let j = k + 1; j < n && count; j++) count = load<u8>(p + <usize>j) == 0x30;
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
    store<u8>(o + <usize>(j - 1), <u8>(0x30 + <u32>(rest % 10)));
    rest /= 10;
  }
  o += <usize>digits;
}

/** The scalar ended (a delimiter or the end of the message): it must be complete. */
function scalarEnd(): bool {
  const s = get(J_SCALAR);
  const ok = s == 10 ? get(J_LIT_POS) == get(J_LIT_LEN) : s == 2 || s == 3 || s == 5 || s == 8;
  if (!ok) return error(E_SYNTAX);
  if (get(J_NUM_LEN) != 0) writeMaxLength();
  set(J_SCALAR, 0);
  return valueEnd();
}

// ---- strings ----

/**
 * End of the run of plain string bytes starting at i (before `end`): no quote, backslash or
 * control byte, and only complete, valid UTF-8 sequences. 16 bytes at a time with SIMD, UTF-8
 * included; a block with an error, and the tail, go byte by byte.
 */
function plainRun(inp: usize, i: i32, end: i32): i32 {
  let j = i;
  if (ASC_FEATURE_SIMD) {
    let prev = i8x16.splat(0); // i is a character boundary
    while (j + 16 <= end) {
      const v = v128.load(inp + <usize>j);
      const special = v128.or(
        v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))),
        i8x16.lt_u(v, i8x16.splat(0x20)),
      );
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
    if (c >= 0x20 && c < 0x80 && c != 0x22 && c != 0x5c) {
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

function stringStart(key: bool): bool {
  put(0x22);
  let flags: u32 = 0;
  if (key) {
    flags = STR_KEY | STR_COLLECT;
    if ((top() & K_PAYLOAD) != 0) flags |= STR_TRANSFORM;
  } else {
    const v = get(J_VALUE); // set by valueStart for this value
    if ((v & V_PAYLOAD) != 0) {
      flags |= STR_TRANSFORM;
      // (A bare string the host already knows is not a data: URI is not looked at again.)
      if (get(J_DEPTH) > 0 || get(J_ROOT_PAYLOAD) != 2) flags |= STR_URI_CHECK;
    }
    if ((v & V_TYPE) != 0) flags |= STR_COLLECT;
  }
  set(J_URI, 0);
  set(J_URI_FED, 0);
  set(J_STR, flags);
  set(J_RAW_ESCAPES, 0);
  set(J_SMALL_LEN, 0);
  set(J_STR_START, outPos());
  set(J_STR_CHANGED, 0);
  set(J_PHASE, P_STRING);
  return true;
}

/**
 * Decodes the string from i (its first escape at j) into the decoded window, if it ends before
 * `len` and holds no escape but the two-byte ones (\n, \", \\ ...) and fits the window.
 * Returns the index of its closing quote (the decoded length in J_DEC_LEN), or -1 to leave the
 * string to the byte-by-byte path, which also reports any error.
 */
function decodeShortEscapes(inp: usize, i: i32, j: i32, len: i32): i32 {
  const dec = get(J_DEC) as usize;
  const cap = <i32>get(J_DEC_CAP) - 8;
  let n = j - i;
  if (n > cap) return -1;
  memory.copy(dec, inp + <usize>i, <usize>n);
  while (j < len) {
    const b = <u32>load<u8>(inp + <usize>j);
    if (b == 0x22) {
      set(J_DEC_LEN, <u32>n);
      return j;
    }
    if (b != 0x5c || j + 1 >= len || n + 1 > cap) return -1;
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

/** The byte a two-byte escape stands for (\" \\ \/ \b \f \n \r \t), or -1. */
@inline function shortEscape(e: u32): i32 {
  if (e == 0x22 || e == 0x5c || e == 0x2f) return <i32>e;
  if (e == 0x6e) return 10;
  if (e == 0x74) return 9;
  if (e == 0x72) return 13;
  if (e == 0x62) return 8;
  if (e == 0x66) return 12;
  return -1;
}

/** Keeps the first decoded bytes of a key (or `type` value) for comparisons; counts the rest. */
function collect(p: usize, n: u32): void {
  const have = get(J_SMALL_LEN);
  for (let k: u32 = 0; k < n && have + k < LONGEST_KEY; k++) store<u8>(st + J_SMALL + <usize>(have + k), load<u8>(p + <usize>k));
  set(J_SMALL_LEN, have + n);
}

/** One decoded byte of the current string. */
function decoded(d: u32): void {
  const flags = get(J_STR);
  if ((flags & STR_COLLECT) != 0) {
    const n = get(J_SMALL_LEN);
    if (n < LONGEST_KEY) store<u8>(st + J_SMALL + <usize>n, <u8>d);
    set(J_SMALL_LEN, n + 1);
  }
  if ((flags & STR_URI) != 0) set(J_URI, uriStep(get(J_URI), d));
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

/** A lone surrogate escape: 0xFF stands for it (no pattern or token contains that byte). */
@inline function flushLoneHigh(): void {
  if (get(J_HIGH) != 0) {
    decoded(0xff);
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

function stringByte(b: u32): bool {
  if ((get(J_STR) & STR_TRANSFORM) != 0 && !ensureRoom()) return false;
  // Inside a multi-byte character only its continuation bytes may come (not '\\' or '"').
  if (get(J_UTF8_NEED) != 0 && (b < get(J_UTF8_LO) || b > get(J_UTF8_HI))) return error(E_UTF8);
  const esc = get(J_ESC);
  if (esc == 1) {
    rawByte(b);
    const d = shortEscape(b);
    if (b == 0x75) {
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
    else if (u >= 0xdc00 && u <= 0xdfff) decoded(0xff);
    else decodedCodePoint(u);
    return true;
  }
  if (b == 0x5c) {
    rawByte(b);
    set(J_RAW_ESCAPES, get(J_RAW_ESCAPES) + 1);
    set(J_ESC, 1);
    return true;
  }
  if (b == 0x22) {
    flushLoneHigh();
    return stringEnd();
  }
  if (b < 0x20) return error(E_CONTROL);
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

function stringEnd(): bool {
  const flags = get(J_STR);
  if ((flags & STR_TRANSFORM) != 0) flushString(true);
  const end = outPos();
  put(0x22);
  set(J_PHASE, P_AFTER);
  if ((flags & STR_KEY) != 0) return keyEnd(end);
  if ((get(J_VALUE) & V_TYPE) != 0 && !resolveMedia(smallIs(IMAGE, 5) || smallIs(AUDIO, 5))) return false;
  const ok = valueEnd();
  if ((flags & STR_URI) != 0) event(EV_RESOLVE, uriComplete(get(J_URI)) ? RESOLVE_KEEP : RESOLVE_STRING, DEFER_STRING);
  return ok;
}

/**
 * A payload string wholly in view (raw bytes at raw, decoded at dec) that is a whole base64
 * data: URI is written as it is; returns false to have it transformed.
 */
function keptAsUri(flags: u32, raw: usize, rawLen: i32, dec: usize, decLen: i32): bool {
  if ((flags & STR_URI_CHECK) == 0 || (load<u8>(dec) | 0x20) != 0x64) return false; // 'd' or 'D'
  if (!uriComplete(uriRun(0, dec, <usize>decLen))) return false;
  copyBytes(o, raw, <usize>rawLen);
  o += <usize>rawLen;
  return true;
}

/**
 * Before a payload string's windows are flushed: reads what is new in them for a data: URI.
 * Returns true to go on transforming. Otherwise the string's text is still undecided (kept in
 * the windows), or was written as it is: a whole data: URI, or one that may still be and is
 * now deferred to its end (the host holds it; the rest is copied as it comes).
 */
function uriCheck(final: bool): bool {
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
  if (!final && s < URI_HEADER) return false; // too little to tell
  if (!final) {
    event(EV_DEFER_START, outPos(), DEFER_STRING);
    set(J_DEFER_AT, get(J_DEPTH) + 1);
    set(J_STR, (flags & ~(STR_URI_CHECK | STR_TRANSFORM)) | STR_URI);
  }
  const raw = get(J_RAW) as usize;
  const rawLen = <usize>get(J_RAW_LEN);
  copyBytes(o, raw, rawLen);
  o += rawLen;
  set(J_RAW_LEN, 0);
  set(J_DEC_LEN, 0);
  set(J_RAW_ESCAPES, 0);
  set(J_CAND_KNOWN, 0);
  return false;
}

const IMAGE = memory.data<u8>([0x69, 0x6d, 0x61, 0x67, 0x65]);
const AUDIO = memory.data<u8>([0x61, 0x75, 0x64, 0x69, 0x6f]);

function smallIs(word: usize, n: u32): bool {
  if (get(J_SMALL_LEN) != n) return false;
  for (let k: u32 = 0; k < n; k++) if (load<u8>(st + J_SMALL + <usize>k) != load<u8>(word + <usize>k)) return false;
  return true;
}

function keyEnd(end: u32): bool {
  const depth = get(J_DEPTH);
  const level = get(J_MSG_LEVEL);
  const k = top();
  let v: u32 = 0;
  if (depth == level) {
    const id = keyId(st + J_SMALL, get(J_SMALL_LEN));
    const payload = id == KEY_PARAMS || id == KEY_RESULT || id == KEY_ERROR;
    set(J_ENV, payload ? id : 0);
    v = payload ? V_PAYLOAD : id == KEY_ID ? V_ID : 0;
  } else if ((k & K_PAYLOAD) != 0) {
    const id = keyId(st + J_SMALL, get(J_SMALL_LEN));
    v = V_PAYLOAD;
    if (id == KEY_META) v = 0; // metadata for software, wherever it nests
    else if (id == KEY_TYPE) v |= V_TYPE;
    else if (id == KEY_DATA) v |= V_DATA;
    else if (id == KEY_BLOB) v |= V_BLOB;
    else if (id == KEY_URI) sawUri();
    if (level != 0 && depth > level) v = envelopeRules(v, id, depth, level);
    if (get(J_SCHEMA_AT) != 0) v = schemaRules(v, id, depth, k);
    if (get(J_MODE) == 1) event(get(J_STR_CHANGED) != 0 ? EV_KEY_CHANGED : EV_KEY, get(J_STR_START), end);
  }
  set(J_VALUE, v);
  set(J_PHASE, P_COLON);
  return true;
}

/** The protocol fields of PARAMS_RULE and RESULT_RULE (src/protocol-fields.ts), by path. */
function envelopeRules(v: u32, id: u32, depth: u32, level: u32): u32 {
  const env = get(J_ENV);
  if (depth == level + 1) {
    set(J_L1, id);
    if ((env == KEY_PARAMS && paramsKeeps(id)) || (env == KEY_RESULT && resultKeeps(id))) return 0;
    return v;
  }
  if (env != KEY_RESULT) return v;
  const l1 = get(J_L1);
  if (depth == level + 2) return l1 == KEY_TASK && id == KEY_TASK_ID ? 0 : v; // result.task.taskId
  if (depth == level + 3 && (entry(level + 2) & K_OBJ) == 0) {
    if (l1 == KEY_TASKS && id == KEY_TASK_ID) return 0; // result.tasks[].taskId
    // result.tools[].inputSchema / outputSchema: encoding widens their maxLength.
    if (l1 == KEY_TOOLS && (id == KEY_INPUT_SCHEMA || id == KEY_OUTPUT_SCHEMA) && widening()) return v | V_SCHEMA;
  }
  return v;
}

@inline function widening(): bool {
  return get(J_MODE) == 0 && load<u32>((get(J_DESC) as usize) + D_WIDEN) > 1;
}

/** Inside a tool schema: which members are schema keywords that matter to maxLength. */
function schemaRules(v: u32, id: u32, depth: u32, k: u32): u32 {
  if (depth + 1 < get(J_SCHEMA_AT) || get(J_SKIP_AT) != 0 || (k & K_NAME_MAP) != 0) return v;
  if (id == KEY_MAX_LENGTH) return v | V_MAX_LENGTH;
  if (isNameMapKeyword(id)) return v | V_NAME_MAP;
  if (isDataKeyword(id)) return v | V_SKIP;
  return v;
}

/** Length of the escape (or plain byte) at raw[r] and how many decoded bytes it stands for. */
let gRawStep: i32 = 0;
let gDecStep: i32 = 0;
function rawUnit(raw: usize, r: i32, rawLen: i32): void {
  const b = <u32>load<u8>(raw + <usize>r);
  if (b != 0x5c) {
    gRawStep = 1;
    gDecStep = 1;
    return;
  }
  const e = <u32>load<u8>(raw + <usize>r + 1);
  if (e != 0x75) {
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
    if (r + 12 <= rawLen && load<u8>(raw + <usize>(r + 6)) == 0x5c && load<u8>(raw + <usize>(r + 7)) == 0x75) {
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

let gCurRaw: i32 = 0;
let gCurDec: i32 = 0;
let gNoEscapes = false;
/** Moves the raw/decoded cursor pair forward to decoded offset `target`. */
function advance(raw: usize, rawLen: i32, target: i32): void {
  if (gNoEscapes) {
    gCurRaw = target;
    gCurDec = target;
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
function findBackslash(raw: usize, from: i32, limit: i32): i32 {
  let j = from;
  if (ASC_FEATURE_SIMD) {
    while (j + 16 <= limit) {
      const m = i8x16.bitmask(i8x16.eq(v128.load(raw + <usize>j), i8x16.splat(0x5c)));
      if (m != 0) return j + ctz(m);
      j += 16;
    }
  }
  while (j < limit && load<u8>(raw + <usize>j) != 0x5c) j++;
  return j;
}

function countEscapes(raw: usize, n: i32): u32 {
  let count: u32 = 0;
  for (let k: i32 = 0; k < n; k++) if (load<u8>(raw + <usize>k) == 0x5c) count++;
  return count;
}

/** Writes bytes into a JSON string: quote, backslash and control characters escaped. */
function putEscaped(p: usize, n: i32): void {
  for (let k: i32 = 0; k < n; k++) {
    const c = <u32>load<u8>(p + <usize>k);
    if (c == 0x22 || c == 0x5c) {
      put(0x5c);
      put(c);
    } else if (c >= 0x20) put(c);
    else if (c == 0x0a) { put(0x5c); put(0x6e); }
    else if (c == 0x0d) { put(0x5c); put(0x72); }
    else if (c == 0x09) { put(0x5c); put(0x74); }
    else if (c == 0x08) { put(0x5c); put(0x62); }
    else if (c == 0x0c) { put(0x5c); put(0x66); }
    else {
      put(0x5c); put(0x75); put(0x30); put(0x30);
      put(0x30 + (c >> 4));
      const l = c & 15;
      put(l < 10 ? 0x30 + l : 0x61 + l - 10);
    }
  }
}

let gKnown: i32 = 0; // for transformSpan's decode call: set only by flushString

/**
 * Runs the matcher over the decoded window and writes what is decided: raw bytes between
 * matches, replacements for matches. Undecided bytes (a possible match running past the end of
 * what has arrived) stay in the windows. Costs what was added since the last flush, not what
 * stays: a long undecided candidate is neither scanned nor moved again.
 */
function flushString(final: bool): void {
  if ((get(J_STR) & STR_URI_CHECK) != 0 && !uriCheck(final)) return;
  const raw = get(J_RAW) as usize;
  const rawLen = <i32>get(J_RAW_LEN);
  const dec = get(J_DEC) as usize;
  const decLen = <i32>get(J_DEC_LEN);
  if (decLen == 0 && rawLen == 0) return;
  gKnown = <i32>get(J_CAND_KNOWN);
  candidateKnown = 0;
  const consumed = transformSpan(raw, rawLen, dec, decLen, final, get(J_RAW_ESCAPES) == 0);
  gKnown = 0;
  set(J_CAND_KNOWN, final ? 0 : <u32>candidateKnown);
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

/**
 * Runs the matcher over decoded bytes and writes the decided part of the raw text: raw bytes
 * between matches, a replacement per match. Returns how many decoded bytes were decided; the
 * raw offset where they end is left in gCurRaw. With `final` everything is written.
 */
function transformSpan(raw: usize, rawLen: i32, dec: usize, decLen: i32, final: bool, noEscapes: bool): i32 {
  const desc = get(J_DESC) as usize;
  const rec = get(J_REC) as usize;
  const aux = get(J_AUX) as usize;
  const encoding = get(J_MODE) == 0;
  if (final && !encoding && decLen < <i32>(load<u32>(desc + D_PREFIX_LEN) + load<u32>(desc + D_SUFFIX_LEN)) + 2) {
    // Too short to hold a token (most keys and names): nothing to decode.
    copyBytes(o, raw, <usize>rawLen);
    o += <usize>rawLen;
    gCurRaw = rawLen;
    return decLen;
  }
  const consumed = encoding
    ? scan(desc, dec, decLen, rec, final ? 1 : 0, MODE_BYTE_RECORDS)
    : decode(desc, dec, decLen, rec, final ? 1 : 0, aux, gKnown);
  const count = <i32>load<u32>(desc + D_MATCHES);
  gCurRaw = 0;
  gCurDec = 0;
  gNoEscapes = noEscapes;
  let emitted: i32 = 0;
  let a = aux;
  const stride: usize = encoding ? 8 : 12;
  for (let k: i32 = 0; k < count; k++) {
    const r = rec + <usize>k * stride;
    const start = <i32>load<u32>(r);
    const end = <i32>load<u32>(r, 4);
    advance(raw, rawLen, start);
    copyBytes(o, raw + <usize>emitted, <usize>(gCurRaw - emitted));
    o += <usize>(gCurRaw - emitted);
    if (encoding) o = writeToken(desc, o, dec + <usize>start, end - start);
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
  copyBytes(o, raw + <usize>emitted, <usize>(upTo - emitted));
  o += <usize>(upTo - emitted);
  return consumed;
}

/** prefix + hex + suffix (the options forbid '"' and '\' in them, so no escaping is needed). */
function writeToken(desc: usize, p: usize, src: usize, n: i32): usize {
  const pl = <usize>load<u32>(desc + D_PREFIX_LEN);
  copyBytes(p, load<u32>(desc + D_PREFIX_OUT) as usize, pl);
  p += pl;
  const hex = load<u32>(desc + D_HEX) as usize;
  for (let k: i32 = 0; k < n; k++) {
    const b = <usize>load<u8>(src + <usize>k);
    store<u8>(p, load<u8>(hex + (b >> 4)));
    store<u8>(p, load<u8>(hex + (b & 15)), 1);
    p += 2;
  }
  const sl = <usize>load<u32>(desc + D_SUFFIX_LEN);
  copyBytes(p, load<u32>(desc + D_SUFFIX) as usize, sl);
  return p + sl;
}
