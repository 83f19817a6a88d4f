// NDJSON lines in one call: a chunk of many small messages costs one host call, not three or
// more per message. Each whole line is one whole message (whole.ts), written with its '\n'; the
// first line that needs the host (over the size limit, or refused by wholeMessage) stops the
// call before anything of it is kept, and the host takes that line the per-message way, which
// reports, defers and checks as always.
import { J_LINES_MESSAGES, J_LINES_STOP, J_OUT_LEN, LINES_END, LINES_REFUSED } from '../abi';
import { CR, LF } from '../bytes';
import { findByte } from '../find';
import { attach, set } from './state';
import { escapeMapAt } from './windows';
import { indexedOnly, WHOLE_REFUSED, wholeMessage, wholeWasMessage } from './whole';

/** Index of the first '\n' in [i, end), or -1. */
@inline function findLF(inp: usize, i: i32, end: i32): i32 {
  const at = findByte(inp, i, end, <u8>LF);
  return at < end ? at : -1;
}

/**
 * Transforms the whole lines at the start of `inp` (len bytes) into `out`, each with its '\n',
 * and stops at a line start: at the end of the whole lines (LINES_END) or before the first line
 * that must go the per-message way (LINES_REFUSED). A line is taken when its bytes less a CR
 * before its '\n' are at most maxBytes, it is one complete JSON value or only whitespace (a
 * blank line: no message), nothing went wrong, and its events need no host. Returns the input
 * bytes taken; J_LINES_* and J_OUT_LEN (the output) say the rest. The host sizes `out` for len input bytes, as for jsonStep.
 */
export function jsonLines(state: usize, inp: usize, len: i32, out: usize, maxBytes: u32): i32 {
  attach(state);
  escapeMapAt(0, 0); // (the core's own map, even if a trap left a host's lent)
  let i: i32 = 0;
  let o = out;
  let messages: u32 = 0;
  let stop = LINES_END;
  while (i < len) {
    const nl = findLF(inp, i, len);
    if (nl < 0) break;
    const n = nl - i;
    const counted = n > 0 && <u32>load<u8>(inp + <usize>(nl - 1)) == CR ? n - 1 : n;
    if (<u32>counted > maxBytes) {
      stop = LINES_REFUSED;
      break;
    }
    const written = wholeMessage(state, inp + <usize>i, n, o);
    if (written == WHOLE_REFUSED) {
      stop = LINES_REFUSED;
      break;
    }
    if (wholeWasMessage) messages++;
    const w = o + <usize>written;
    store<u8>(w, <u8>LF);
    o = w + 1;
    i = nl + 1;
  }
  // (A refused line's output is left behind `o`, never counted.)
  set(J_OUT_LEN, <u32>(o - out));
  set(J_LINES_MESSAGES, messages);
  set(J_LINES_STOP, stop);
  return i;
}

/**
 * One whole message at `inp` (n bytes) longer than the batch regions (an NDJSON line without its
 * line ending, a Content-Length body), taken by the indexed path alone, into `out`: the bytes
 * written, or WHOLE_REFUSED with nothing kept (the per-message way takes it). The host sizes
 * `out` and the string regions for n bytes, and lends an escape map of `mapEntries` at `map`
 * (ESCAPE_ENTRY_SIZE bytes each; past them, writing a string searches for its escapes).
 */
export function jsonLarge(state: usize, inp: usize, n: i32, out: usize, map: usize, mapEntries: i32): i32 {
  attach(state);
  escapeMapAt(map, mapEntries);
  const written = indexedOnly(state, inp, n, out);
  escapeMapAt(0, 0);
  return written;
}
