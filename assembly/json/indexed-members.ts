// Stage 2's common turns in loops of their own (indexed.ts): the members of a payload object (or
// of the message object) whose value is a number, a literal or a string and whose key gives it
// no rule of its own (media, schemas), and an array's values. V8 compiles the whole of stage 2
// into one function whose locals do not fit the registers; these loops keep few values live.
// The array loop opens and closes a payload array's objects, the message loop its payload
// object (payloadObject: the stack entry is all either needs). At the first thing they do not
// take (such a key's value, another container, whitespace, anything not valid) they hand back
// to stage 2's loop with the position, the phase, the depth and the key's rules, nothing half
// done: an object they opened and did not close stays open for stage 2. Each loop writes out
// its own value-and-comma tail: one shared inline helper measured slower (sixteen short-string
// members 431-443 -> 456-464 ns decoding, review of 2026-12-07).
import { J_DEPTH, J_L1, J_STACK_CAP, P_AFTER, P_COLON, P_KEY, P_VALUE } from '../abi';
import { BRACE_CLOSE, BRACE_OPEN, COLON, COMMA, DIGIT_0, DIGIT_9, LOWER_F, LOWER_N, LOWER_T, MINUS, QUOTE } from '../bytes';
import { KEY_OTHER, keyId } from '../fields';
import { idRules, messageKey } from './envelope';
import { literalEnd, numberEnd } from './indexed';
import { transformText, transformUriHeader } from './indexed-rewrite';
import { gDec, gDecLen, INDEXED_HOST, INDEXED_REFUSED, readString } from './indexed-text';
import { takeQuotes } from './structural';
import { isWholeDataUri } from './media';
import { get, K_FIRST, K_OBJ, K_PAYLOAD, set, V_ID, V_PAYLOAD } from './state';

/** Where the loops stopped: the phase stage 2 resumes in and the last key's rules; the depth (messageMembers, arrayValues). */
export let gMembersPhase: u32 = 0;
export let gMembersKeyV: u32 = 0;
export let gMembersDepth: u32 = 0;

/**
 * The members of the payload object at `depth` (its stack entry at `at`), from the key whose
 * quote is at `i`; `level`: the message's. Returns where stage 2 resumes (in gMembersPhase,
 * with gMembersKeyV), or INDEXED_REFUSED / INDEXED_HOST.
 */
export function payloadMembers(inp: usize, i: i32, n: i32, at: usize, depth: u32, level: u32, encoding: bool): i32 {
  // (A key is read: the object has a member, so K_FIRST goes now, once.)
  const k = <u32>load<u16>(at) & ~K_FIRST;
  store<u16>(at, <u16>k);
  // (keyRules of a KEY_OTHER key: V_PAYLOAD, and at the payload's first level J_L1 = KEY_OTHER.)
  const firstLevel = level != 0 && depth == level + 1;
  while (true) {
    const e = readString(i, false);
    if (e < 0) return e;
    // A key that decoding changes may collide with another: the host checks it.
    if (transformText(i + 1, e, gDecLen) && !encoding) return INDEXED_HOST;
    i = e + 1;
    let v = V_PAYLOAD;
    const id = keyId(gDec, <u32>gDecLen);
    if (id != KEY_OTHER) v = knownKey(id, depth, level, k);
    else if (firstLevel) set(J_L1, KEY_OTHER);
    gMembersKeyV = v;
    if (i + 1 >= n || load<u8>(inp + <usize>i) != COLON) return stop(P_COLON, i);
    i++;
    // (A key whose value has a rule of its own (media, a schema): the value is stage 2's. A
    // protocol field's (v 0) or a `uri`'s is read here.)
    if ((v & ~V_PAYLOAD) != 0) return stop(P_VALUE, i);
    const b = <u32>load<u8>(inp + <usize>i);
    if (b == QUOTE) {
      const s = readString(i, true);
      if (s < 0) return s;
      if (v != 0) {
        // (As stage 2 does with a payload string below the root: a data: URI's header alone.)
        if (!(encoding && gDecLen > 0 && isWholeDataUri(gDec, gDecLen))) transformText(i + 1, s, gDecLen);
        else if (!transformUriHeader(i + 1, s)) return INDEXED_REFUSED;
      }
      i = s + 1;
    } else {
      const j = scalarEnd(inp, i, n, b);
      if (j <= 0) return j == 0 ? stop(P_VALUE, i) : j;
      i = j;
    }
    if (i >= n || load<u8>(inp + <usize>i) != COMMA) return stop(P_AFTER, i);
    i++;
    if (i >= n || load<u8>(inp + <usize>i) != QUOTE) return stop(P_KEY, i);
  }
}

/**
 * payloadMembers for the message object (`level` is its depth): its keys are not payload, nor
 * are the values of those that hold no payload (messageKey: `jsonrpc`, `method`, ...).
 */
export function messageMembers(inp: usize, i: i32, n: i32, at: usize, level: u32, encoding: bool): i32 {
  store<u16>(at, <u16>(<u32>load<u16>(at) & ~K_FIRST));
  gMembersDepth = level;
  if (i == 1 && n > AFTER_JSONRPC && load<u64>(inp, 1) == HEAD_A && load<u64>(inp, 9) == HEAD_B) {
    // (Neither `jsonrpc` nor `method` is payload or an id: the loop's rules for them (J_ENV 0,
    // as reset) are none.)
    if (n > METHOD_VALUE_AT + 1 && load<u64>(inp, 17) == HEAD_C && load<u16>(inp, 25) == HEAD_D) {
      takeQuotes(6);
      i = readString(METHOD_VALUE_AT, true);
      if (i < 0) return i;
      i++;
      if (i >= n || load<u8>(inp + <usize>i) != COMMA) return stop(P_AFTER, i);
      i++;
    } else {
      takeQuotes(4);
      i = AFTER_JSONRPC;
    }
    if (i >= n || load<u8>(inp + <usize>i) != QUOTE) return stop(P_KEY, i);
  }
  while (true) {
    const e = readString(i, false);
    if (e < 0) return e;
    i = e + 1;
    const v = messageKey(keyId(gDec, <u32>gDecLen));
    gMembersKeyV = v;
    if (i + 1 >= n || load<u8>(inp + <usize>i) != COLON) return stop(P_COLON, i);
    i++;
    const b = <u32>load<u8>(inp + <usize>i);
    if ((v & ~V_ID) != 0) {
      // (The payload (an id is read as any value): an object here, anything else stage 2's.)
      if (b != BRACE_OPEN) return stop(P_VALUE, i);
      i = payloadObject(inp, i, n, at, level, level, encoding);
      if (i < 0 || gMembersDepth != level) return i;
    } else if (b == QUOTE) {
      const s = readString(i, true);
      if (s < 0) return s;
      i = s + 1;
    } else {
      const j = scalarEnd(inp, i, n, b);
      if (j <= 0) return j == 0 ? stop(P_VALUE, i) : j;
      i = j;
    }
    if (i >= n || load<u8>(inp + <usize>i) != COMMA) return stop(P_AFTER, i);
    i++;
    if (i >= n || load<u8>(inp + <usize>i) != QUOTE) return stop(P_KEY, i);
  }
}

/**
 * The values of the array at `depth` (its entry at `at`) that are numbers, literals, strings or,
 * in a payload array, objects, from the one at `i` (not whitespace, and an array or a no-payload
 * array's object only after a comma: stage 2 opens those); a payload array's strings transformed
 * as a payload object's are. Its objects are opened here, their members read by payloadMembers
 * and closed here when those end at the `}`; else stage 2 resumes inside (gMembersDepth).
 * Returns where stage 2 resumes (gMembersPhase, gMembersDepth, gMembersKeyV), or
 * INDEXED_REFUSED / INDEXED_HOST.
 */
export function arrayValues(inp: usize, i: i32, n: i32, at: usize, depth: u32, level: u32, encoding: bool): i32 {
  const k = <u32>load<u16>(at) & ~K_FIRST;
  store<u16>(at, <u16>k);
  const payload = (k & K_PAYLOAD) != 0;
  const start = i;
  gMembersDepth = depth;
  while (true) {
    const b = <u32>load<u8>(inp + <usize>i);
    if (b == QUOTE) {
      const s = readString(i, payload);
      if (s < 0) return s;
      if (payload) {
        if (!(encoding && gDecLen > 0 && isWholeDataUri(gDec, gDecLen))) transformText(i + 1, s, gDecLen);
        else if (!transformUriHeader(i + 1, s)) return INDEXED_REFUSED;
      }
      i = s + 1;
    } else if (b == BRACE_OPEN && payload) {
      // (As stage 2 opens a payload array's object: memberFlags gives it V_PAYLOAD alone.)
      i = payloadObject(inp, i, n, at, depth, level, encoding);
      if (i < 0 || gMembersDepth != depth) return i;
    } else {
      const j = scalarEnd(inp, i, n, b);
      // (Not a value where stage 2 found one to start: not valid, as it would find.)
      if (j == 0) return i == start ? INDEXED_HOST : stop(P_VALUE, i);
      if (j < 0) return j;
      i = j;
    }
    if (i >= n || load<u8>(inp + <usize>i) != COMMA) return stop(P_AFTER, i);
    if (++i >= n) return stop(P_VALUE, i);
  }
}

// Most messages begin `{"jsonrpc":"2.0",` (an SDK writes `jsonrpc` first), and a request or a
// notification goes on `"method":"`: their keys and `jsonrpc`'s value compared as bytes, not
// read and looked up as keys (messageMembers). Their quotes are taken from stage 1 unread, as
// readString would take them: none is escaped (no backslash before them, and nothing is carried
// into the first block), and the message is longer than what is compared.
const AFTER_JSONRPC: i32 = 17; // where the member after `"jsonrpc":"2.0",` starts
const METHOD_VALUE_AT: i32 = 26; // the opening quote of `method`'s value after it
// `"jsonrpc":"2.0",` and `"method":"`, little-endian.
const HEAD_A: u64 = 0x6370726e6f736a22; // "jsonrpc
const HEAD_B: u64 = 0x2c22302e32223a22; // ":"2.0",
const HEAD_C: u64 = 0x22646f6874656d22; // "method"
const HEAD_D: u16 = 0x223a; // :"

/** Hands back to stage 2 at `i` in `phase`, inside the object opened in the array at `depth`. */
@inline function inside(phase: u32, i: i32, depth: u32): i32 {
  gMembersDepth = depth + 1;
  return stop(phase, i);
}

/**
 * The payload object at `i` (its `{`), a value in the container at `depth` (entry at `at`):
 * opened, its members read by payloadMembers, closed when they end at its `}`; returns the
 * position after it, or where stage 2 resumes inside it (gMembersDepth then `depth` + 1), or
 * INDEXED_HOST.
 */
@inline function payloadObject(inp: usize, i: i32, n: i32, at: usize, depth: u32, level: u32, encoding: bool): i32 {
  if (depth + 1 >= get(J_STACK_CAP)) return INDEXED_HOST;
  const inner = at + 2;
  store<u16>(inner, <u16>(K_OBJ | K_PAYLOAD | K_FIRST)); // (what enterContainer writes for a V_PAYLOAD value)
  set(J_DEPTH, depth + 1);
  if (++i >= n) return inside(P_KEY, i, depth);
  const c = <u32>load<u8>(inp + <usize>i);
  if (c == QUOTE) {
    i = payloadMembers(inp, i, n, inner, depth + 1, level, encoding);
    if (i < 0) return i;
    if (gMembersPhase != P_AFTER || i >= n || load<u8>(inp + <usize>i) != BRACE_CLOSE) return inside(gMembersPhase, i, depth);
  } else if (c != BRACE_CLOSE) return inside(P_KEY, i, depth);
  // (Closed: it opened no schema region (leaveContainer) and took no `data` (K_DATA_TAKEN): stage 2 does those.)
  set(J_DEPTH, depth);
  return i + 1;
}

/** Where the number or literal that starts with byte `b` at `i` ends, 0 when none starts there (no value ends at 0), or INDEXED_HOST. */
@inline function scalarEnd(inp: usize, i: i32, n: i32, b: u32): i32 {
  // (V_PAYLOAD, no V_MAX_LENGTH: a maxLength key stops the loop before its value.)
  if (b == MINUS || (b >= DIGIT_0 && b <= DIGIT_9)) return numberEnd(inp, i, n, b, V_PAYLOAD);
  if (b == LOWER_T || b == LOWER_F || b == LOWER_N) return literalEnd(inp, i, n, b);
  return 0;
}

/** Hands back to stage 2 at `i` in `phase`. */
@inline function stop(phase: u32, i: i32): i32 {
  gMembersPhase = phase;
  return i;
}

/** keyRules of a key that has one (its id), out of the loop (few keys have one); not hashed again. */
function knownKey(id: u32, depth: u32, level: u32, k: u32): u32 {
  return idRules(id, depth, level, k);
}
