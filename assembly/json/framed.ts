// Messages the host has framed (Content-Length bodies, SSE data), many in one call: the host
// finds where each body lies and writes the framing around its output (a new Content-Length, an
// SSE data line); the core transforms each body as one whole message (whole.ts) and writes the
// outputs back to back. The first body that needs the host (refused by wholeMessage) stops the
// call before anything of it is kept, and the host takes it the per-message way.
import { F_LENGTH, F_MESSAGE, F_OFFSET, F_OUT_END, FRAME_SIZE, J_OUT_LEN } from '../abi';
import { set } from './state';
import { WHOLE_REFUSED, wholeMessage, wholeWasMessage } from './whole';
import { escapeMapAt } from './windows';

/**
 * Transforms the `count` bodies of the frame table at `frames` (FRAME_SIZE bytes each: F_OFFSET
 * and F_LENGTH, the body's place in `inp`, written by the host) into `out`, in order, and
 * writes each taken frame's F_OUT_END (its output's end, from `out`) and F_MESSAGE (1, or 0 for
 * a body of only whitespace). Returns how many were taken: all, or those before the first
 * refused. J_OUT_LEN is their output. The host sizes `out` for the bodies' bytes, as for jsonStep.
 */
export function jsonMessages(state: usize, inp: usize, frames: usize, count: i32, out: usize): i32 {
  escapeMapAt(0, 0); // (the core's own map, even if a trap left a host's lent)
  let o = out;
  let k: i32 = 0;
  for (; k < count; k++) {
    const f = frames + <usize>(k * FRAME_SIZE);
    const written = wholeMessage(state, inp + <usize>load<u32>(f + F_OFFSET), <i32>load<u32>(f + F_LENGTH), o);
    if (written == WHOLE_REFUSED) break; // (its output, left behind `o`, is never counted)
    o += <usize>written;
    store<u32>(f + F_OUT_END, <u32>(o - out));
    store<u32>(f + F_MESSAGE, wholeWasMessage ? 1 : 0);
  }
  set(J_OUT_LEN, <u32>(o - out));
  return k;
}
