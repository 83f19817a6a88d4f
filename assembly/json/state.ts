// The transducer's working state: the struct in WASM memory (its offsets are J_* in ../abi.ts,
// since the host lays it out), the registers of one call, the container stack, the flags kept
// in it, events for the host, and errors.

import { E_EVENTS, E_SYNTAX, EV_SIZE, J_DEPTH, J_ERROR, J_EV_CAP, J_EV_COUNT, J_EVENTS, J_OUT_LEN, J_OUT_TOTAL, J_STACK, P_KEY, P_VALUE } from '../abi';
import { copyBytes } from '../copy';

// Stack entry per container (a u16, STACK_ENTRY_SIZE).
export const K_OBJ: u32 = 1;
export const K_PAYLOAD: u32 = 2;
export const K_MEDIA_SHIFT: u32 = 2; // 2 bits, MEDIA_*: what the object's `type` said
export const K_PENDING: u32 = 16; // a `data` value was deferred; resolve when `type` is known
export const K_FIRST: u32 = 32; // no member yet
export const K_URI: u32 = 64; // has a `uri` member: its `blob` is opaque
export const K_BLOB_PENDING: u32 = 128; // a `blob` value was deferred; resolve when `uri` is seen or not
export const K_NAME_MAP: u32 = 256; // a schema's `properties` (or the like): its members are names
export const K_DATA_TAKEN: u32 = 512; // (indexed path) a container `data` was transformed before `type` was known

// The media state of an object (at K_MEDIA_SHIFT).
export const MEDIA_UNKNOWN: u32 = 0;
export const MEDIA_YES: u32 = 1; // image or audio
export const MEDIA_NO: u32 = 2;

// String flags (J_STR).
export const STR_KEY: u32 = 1;
export const STR_TRANSFORM: u32 = 2;
export const STR_COLLECT: u32 = 4; // keep the decoded start in J_SMALL
export const STR_URI_CHECK: u32 = 8; // a payload value that may be a data: URI; not decided yet
export const STR_URI: u32 = 16; // began with "data:": deferred, copied as it is while J_URI reads it

// Value flags (J_VALUE: set at a key, used when its value starts).
export const V_PAYLOAD: u32 = 1;
export const V_TYPE: u32 = 2;
export const V_DATA: u32 = 4;
export const V_ID: u32 = 8;
export const V_BLOB: u32 = 16;
export const V_SCHEMA: u32 = 32; // a tool's inputSchema or outputSchema
export const V_NAME_MAP: u32 = 64;
export const V_SKIP: u32 = 128; // schema data: no widening inside
export const V_MAX_LENGTH: u32 = 256;

// Per-call registers.
export let st: usize = 0; // the state struct
export let o: usize = 0; // next output byte
let outStart: usize = 0;

/** Starts a call on the state at `state`, writing output at `out`. */
@inline export function begin(state: usize, out: usize): void {
  st = state;
  o = out;
  outStart = out;
}

/** Attaches the state at `state` (for jsonReset, which writes no output). */
@inline export function attach(state: usize): void {
  st = state;
}

/** Copies n bytes at src to the output. */
@inline export function emit(src: usize, n: usize): void {
  copyBytes(o, src, n);
  o += n;
}

/** Moves the output on past n bytes written at `o` directly. */
@inline export function wrote(n: usize): void {
  o += n;
}

@inline export function get(f: usize): u32 { return load<u32>(st + f); }
@inline export function set(f: usize, v: u32): void { store<u32>(st + f, v); }
@inline export function outPos(): u32 { return get(J_OUT_TOTAL) + <u32>(o - outStart); }
@inline export function put(b: u32): void { store<u8>(o, <u8>b); o++; }

/** Appends an event for the host; past the room it laid out (J_EV_CAP), fails the call instead. */
export function event(kind: u32, a: u32, b: u32): void {
  const n = get(J_EV_COUNT);
  if (n >= get(J_EV_CAP)) {
    set(J_ERROR, E_EVENTS); // (a bug: the host's room follows EV_PER_BYTE and EV_PER_CALL)
    return;
  }
  const p = (get(J_EVENTS) as usize) + <usize>(n * EV_SIZE);
  store<u32>(p, kind);
  store<u32>(p, a, 4);
  store<u32>(p, b, 8);
  set(J_EV_COUNT, n + 1);
}

/** The container stack's entry at `depth`, the stack at `stack` (a caller that keeps J_STACK in a local). */
@inline export function entryIn(stack: usize, depth: u32): u32 {
  return <u32>load<u16>(stack + (<usize>depth << 1));
}
@inline export function entry(depth: u32): u32 {
  return entryIn(get(J_STACK) as usize, depth);
}
/** What a comma after a member leads to in the container of entry `k`: a key in an object, else a value. */
@inline export function memberPhase(k: u32): u32 {
  return (k & K_OBJ) != 0 ? P_KEY : P_VALUE;
}
@inline export function top(): u32 {
  return entry(get(J_DEPTH));
}
@inline export function setTop(v: u32): void {
  store<u16>((get(J_STACK) as usize) + (<usize>get(J_DEPTH) << 1), <u16>v);
}

/** Records this call's output length and adds it to the message total. */
export function done(): void {
  const n = <u32>(o - outStart);
  set(J_OUT_LEN, n);
  set(J_OUT_TOTAL, get(J_OUT_TOTAL) + n);
}

/** Stops the call at input index i (a syntax error unless another was set). */
export function fail(i: i32): i32 {
  if (get(J_ERROR) == 0) set(J_ERROR, E_SYNTAX);
  done();
  return i;
}

export function error(code: u32): bool {
  if (get(J_ERROR) != E_EVENTS) set(J_ERROR, code); // (events lost: that stays the call's error)
  return false;
}
