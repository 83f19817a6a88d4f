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
//
// This file holds the entry points and the main loop with its fast paths for runs of plain
// string bytes; lexer.ts reads structure and scalars, strings.ts strings byte by byte,
// windows.ts and rewrite.ts transform payload strings, envelope.ts and media.ts apply the MCP
// rules, state.ts holds the state.
import {
  E_INCOMPLETE, J_CAND_KNOWN, J_DEC, J_DEC_CAP, J_DEC_LEN, J_DEFER_AT, J_DEPTH, J_ENV, J_ERROR, J_ESC, J_EV_COUNT, J_HIGH, J_L1,
  J_MSG_LEVEL, J_NUM_LEN, J_OUT_TOTAL, J_PHASE, J_RAW, J_RAW_CAP, J_RAW_LEN, J_SCALAR, J_SCHEMA_AT, J_SKIP_AT, J_SMALL_LEN,
  J_STACK, J_STR, J_STR_CHANGED, J_URI, J_URI_HEAD, J_UTF8_NEED, J_VALUE, P_DONE, P_SCALAR, P_STRING, P_VALUE,
} from '../abi';
import { BACKSLASH, QUOTE } from '../bytes';
import { uriHeaderAt, uriRun } from '../data-uri';
import { scalarEnd, scalarRun, structuralByte } from './lexer';
import { keptAsUri } from './media';
import { transformSpan } from './rewrite';
import { attach, begin, done, emit, fail, get, outPos, set, STR_COLLECT, STR_TRANSFORM, STR_URI } from './state';
import { collect, decodeShortEscapes, plainRun, stringByte, stringEnd } from './strings';
import { flushString } from './windows';

/** Starts a message: clears everything but the buffers the host laid out. */
export function jsonReset(state: usize): void {
  attach(state);
  resetMessage();
}

/** jsonReset on the attached state (lines.ts starts each line with it). */
@inline export function resetMessage(): void {
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
  begin(state, out);
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
            if ((flags & STR_URI) != 0) {
              set(J_URI, uriRun(get(J_URI), inp + <usize>i, <usize>n));
              if (uriHeaderAt >= 0) set(J_URI_HEAD, outPos() + <u32>uriHeaderAt);
            }
            emit(inp + <usize>i, <usize>n);
          }
          if (j < len && load<u8>(inp + <usize>j) == QUOTE) {
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
            if (j < len && load<u8>(inp + <usize>j) == QUOTE) {
              const n = j - i;
              if (n > 0) {
                if ((flags & STR_COLLECT) != 0) collect(inp + <usize>i, <u32>n);
                if (!keptAsUri(flags, inp + <usize>i, n, inp + <usize>i, n, true)) transformSpan(inp + <usize>i, n, inp + <usize>i, n, true, true, 0);
              }
              i = j + 1;
              if (!stringEnd()) return fail(j);
              continue;
            }
            // The rest of the string is here (all before it is written), with short escapes
            // only: decode it into the decoded window and write from the input itself.
            const q = j < len && load<u8>(inp + <usize>j) == BACKSLASH ? decodeShortEscapes(inp, i, j, len) : -1;
            if (q >= 0) {
              const dec = get(J_DEC) as usize;
              const n = <i32>get(J_DEC_LEN);
              set(J_DEC_LEN, 0);
              if ((flags & STR_COLLECT) != 0) collect(dec, <u32>n);
              if (!keptAsUri(flags, inp + <usize>i, q - i, dec, n, false)) transformSpan(inp + <usize>i, q - i, dec, n, true, false, 0);
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
      i = scalarRun(inp, i, len);
      if (i < len && !scalarEnd()) return fail(i);
      continue; // the delimiter is handled in the new phase
    }
    if (!structuralByte(b)) return fail(i);
    i++;
  }
  if (get(J_PHASE) == P_STRING && (get(J_STR) & STR_TRANSFORM) != 0) flushString(false);
  done();
  return len;
}

/** Ends the message: flushes and checks it is one complete JSON value. 0 or an error code (J_ERROR). */
export function jsonFinish(state: usize, out: usize): i32 {
  begin(state, out);
  if (get(J_PHASE) == P_SCALAR && !scalarEnd()) {
    // Every prefix of a number or literal (`-`, `1.`, `1e`, `tru`) can still be completed:
    // the message ended too soon, it is not malformed where it stopped.
    set(J_ERROR, E_INCOMPLETE);
    done();
    return <i32>E_INCOMPLETE;
  }
  done();
  if (get(J_PHASE) != P_DONE) {
    set(J_ERROR, E_INCOMPLETE);
    return <i32>E_INCOMPLETE;
  }
  return <i32>get(J_ERROR); // (0, or E_EVENTS)
}
