// One whole message, all its bytes at hand, transformed in one go as the per-message path
// would (reset, step, finish): the unit the core's batch entry (lines.ts) is made of. It is
// refused, with nothing of it kept, when the host must see it: an error, or an event the host
// must act on (a deferral; decoding, a key that decoding changed, which alone can collide).
import {
  EV_ID, EV_KEY, EV_MSG_END, EV_OBJ_CLOSE, EV_OBJ_OPEN, EV_SIZE, J_DEPTH, J_ERROR, J_EV_COUNT, J_EVENTS, J_MODE, J_OUT_LEN, J_PHASE,
  JSON_DECODE, P_VALUE,
} from '../abi';
import { indexedMessage } from './indexed';
import { INDEXED_HOST } from './indexed-text';
import { attach, get, set } from './state';
import { jsonFinish, jsonStep, resetMessage } from './transducer';

// The events a taken message may have, as bits by kind: they only matter to the host when a
// collision is found, and a collision needs a changed key (EV_KEY_CHANGED) or a deferral.
const ENCODE_EVENTS: u32 = 1 << EV_ID;
const DECODE_EVENTS: u32 = (1 << EV_ID) | (1 << EV_KEY) | (1 << EV_OBJ_OPEN) | (1 << EV_OBJ_CLOSE) | (1 << EV_MSG_END);

/** wholeMessage's answer when the host must take the message the per-message way. */
export const WHOLE_REFUSED: i32 = -1;

/** Whether the last message wholeMessage took was one (false: only whitespace). */
export let wholeWasMessage = false;

// The indexed path (indexed.ts) is tried first; tests turn it off to compare it with the
// per-message path, and count the messages it took.
let gIndexed = true;
let gIndexedTaken: u32 = 0;

/** Tests: turns the indexed path on or off; returns how many messages it has taken. */
export function indexedPath(on: i32): u32 {
  gIndexed = on != 0;
  return gIndexedTaken;
}

/** True when the events of the last call are all of the kinds in `allowed`; clears them. */
function eventsAllowed(allowed: u32): bool {
  const n = get(J_EV_COUNT);
  const ev = get(J_EVENTS) as usize;
  set(J_EV_COUNT, 0);
  for (let k: u32 = 0; k < n; k++) {
    if (((1 << load<u32>(ev + <usize>(k * EV_SIZE))) & allowed) == 0) return false;
  }
  return true;
}

/**
 * A message too long for the per-message fallback below in one call (its events and output are
 * sized for a slice): the indexed path alone, or WHOLE_REFUSED. The host sizes `out` and the
 * string regions (J_DEC, J_REC, J_AUX) for its n bytes.
 */
export function indexedOnly(state: usize, inp: usize, n: i32, out: usize): i32 {
  if (!gIndexed) return WHOLE_REFUSED;
  const written = indexedMessage(state, inp, n, out);
  if (written < 0) return WHOLE_REFUSED;
  wholeWasMessage = true;
  gIndexedTaken++;
  return written;
}

/**
 * Transforms the n bytes at `inp` (one JSON value, or only whitespace) into `out`. Returns the
 * bytes written, or WHOLE_REFUSED. `out` is sized for n input bytes, as for jsonStep.
 */
export function wholeMessage(state: usize, inp: usize, n: i32, out: usize): i32 {
  if (gIndexed) {
    const written = indexedMessage(state, inp, n, out);
    if (written >= 0) {
      wholeWasMessage = true;
      gIndexedTaken++;
      return written;
    }
    if (written == INDEXED_HOST) return WHOLE_REFUSED; // (the per-message way below would refuse it too)
  }
  attach(state);
  const allowed = get(J_MODE) == JSON_DECODE ? DECODE_EVENTS : ENCODE_EVENTS;
  resetMessage();
  let w = out;
  if (n > 0) {
    jsonStep(state, inp, n, w);
    w += <usize>get(J_OUT_LEN);
    if (get(J_ERROR) != 0 || !eventsAllowed(allowed)) return WHOLE_REFUSED;
  }
  const code = jsonFinish(state, w);
  w += <usize>get(J_OUT_LEN);
  if (!eventsAllowed(allowed)) return WHOLE_REFUSED;
  // Only whitespace (still expecting a value at depth 0): passed on, no message.
  if (code != 0 && (get(J_PHASE) != P_VALUE || get(J_DEPTH) != 0)) return WHOLE_REFUSED;
  wholeWasMessage = code == 0;
  return <i32>(w - out);
}
