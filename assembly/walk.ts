// The matcher's walk (match.ts finds the candidates): the automaton from a candidate's start,
// leftmost-longest, and the records of the matches, with the state of one call.
import { D_ACCEPT_FROM, D_CLASSES, D_MATCHES, D_ROW_SHIFT, D_SERIAL, D_START, D_TRANS, MODE_BYTE_RECORDS } from './abi';
import { utf16Units } from './units';

// Per-call state (a call runs to completion; nothing is shared between calls).
export let gDesc: usize = 0;
export let gInp: usize = 0;
let gOut: usize = 0; // next record
let gMode: i32 = 0;
let gLit: i32 = 0; // input bytes before this are accounted for in gUnits
let gUnits: i32 = 0; // MODE_RECORDS: UTF-16 units in input[0, gLit)
let gMatches: i32 = 0;
export let gStop: bool = false;

// The possible match left undecided by the last call (it ran into the end of input that was not
// final; the bytes from its start were not consumed): how many of its bytes the automaton
// walked, the state it reached (its walk-table entry) and the end of the longest match among
// them (0: none), from its start. Handed back to scanHeld once the candidate starts the input,
// it is walked on from there: a long one (`fold: 'nfkc'`: a term's first letter, then
// ignorables without end) is walked once, not again at every chunk of a stream.
export let heldWalked: i32 = 0;
export let heldState: u32 = 0;
export let heldBest: i32 = 0;

/** Starts a call: the descriptor, the input, where records go and in what mode; none yet. */
@inline export function walkStart(desc: usize, inp: usize, out: usize, mode: i32): void {
  gDesc = desc;
  gInp = inp;
  gOut = out;
  gMode = mode;
  gLit = 0;
  gUnits = 0;
  gMatches = 0;
  gStop = false;
  heldWalked = 0;
}

// A candidate's first four steps, kept by its four bytes: dense text (CJK prose, app lists)
// meets the same few terms again and again, and the walk's first steps are a chain of four
// dependent loads where this is a hash and one load. A slot: the bytes (u32), the descriptor's
// D_SERIAL (u64), then the state after them (its entry, u16) and where the longest match among
// them ends (0-4, 0: none) above it. Slots of another descriptor, or none, miss: zeros do.
const FIRST_BITS: u32 = 8;
const FIRST = memory.data(16 << FIRST_BITS);
const FIRST_STEPS: i32 = 4;

/** Walks the automaton from c; on a match, emits it and returns its end, else 0. */
@inline export function tryMatch(c: i32, len: i32, final: i32): i32 {
  if (c + FIRST_STEPS > len) return walkFrom(c, c, load<u32>(gDesc + D_START), 0, len, final);
  const key = load<u32>(gInp + <usize>c);
  const slot = FIRST + (<usize>((key * 0x9e3779b1) >> (32 - FIRST_BITS)) << 4);
  let first = load<u32>(slot, 12);
  if (load<u32>(slot) != key || load<u64>(slot, 4) != load<u64>(gDesc + D_SERIAL)) first = firstSteps(key, slot);
  const b = <i32>(first >> 16);
  return walkFrom(c, c + FIRST_STEPS, first & 0xffff, b != 0 ? c + b : 0, len, final);
}

/** The automaton's state after `byte` from state `s`: each is where its row starts (src/compile/walk-table.ts), a shift and an add from the next load; 0 is the dead row. */
@inline function step(trans: usize, classes: usize, shift: usize, s: u32, byte: u32): u32 {
  const cls = <usize>load<u8>(classes + <usize>byte);
  return <u32>load<u16>(trans + (cls << 1) + (<usize>s << shift));
}

/** The walk's first FIRST_STEPS steps over `key`, a candidate's first bytes (all in the input), kept in `slot`. */
function firstSteps(key: u32, slot: usize): u32 {
  const desc = gDesc;
  const trans = load<u32>(desc + D_TRANS) as usize;
  const classes = load<u32>(desc + D_CLASSES) as usize;
  const acceptFrom = load<u32>(desc + D_ACCEPT_FROM);
  const shift = <usize>load<u32>(desc + D_ROW_SHIFT);
  let s = load<u32>(desc + D_START);
  let best: u32 = 0;
  for (let k: u32 = 0; k < <u32>FIRST_STEPS; k++) {
    s = step(trans, classes, shift, s, (key >> (k << 3)) & 0xff);
    if (s == 0) break; // (the dead row: walkFrom stops at once)
    if (s >= acceptFrom) best = k + 1;
  }
  const first = s | (best << 16);
  store<u32>(slot, key);
  store<u64>(slot, load<u64>(desc + D_SERIAL), 4);
  store<u32>(slot, first, 12);
  return first;
}

/**
 * tryMatch for a candidate at c walked up to j, in state s, its longest match so far ending at
 * best (or 0). A candidate that runs into the end of input that is not final stops the scan
 * (gStop) and is left in heldWalked, heldState and heldBest.
 */
export function walkFrom(c: i32, j: i32, s: u32, best: i32, len: i32, final: i32): i32 {
  const desc = gDesc;
  const inp = gInp;
  const trans = load<u32>(desc + D_TRANS) as usize;
  const classes = load<u32>(desc + D_CLASSES) as usize;
  const acceptFrom = load<u32>(desc + D_ACCEPT_FROM);
  const shift = <usize>load<u32>(desc + D_ROW_SHIFT);
  while (j < len) {
    s = step(trans, classes, shift, s, load<u8>(inp + <usize>j));
    if (s == 0) break;
    j++;
    if (s >= acceptFrom) best = j;
  }
  if (s != 0 && !final) {
    gStop = true; // a longer match may continue in the next chunk
    heldWalked = j - c;
    heldState = s;
    heldBest = best > 0 ? best - c : 0;
    return 0;
  }
  if (best == 0) return 0;
  if (gMode == MODE_BYTE_RECORDS) {
    store<u32>(gOut, <u32>c);
    store<u32>(gOut, <u32>best, 4);
    gOut += 8;
  } else {
    gUnits += utf16Units(inp + <usize>gLit, c - gLit);
    store<u32>(gOut, <u32>gUnits);
    gUnits += utf16Units(inp + <usize>c, best - c);
    store<u32>(gOut, <u32>gUnits, 4);
    gOut += 8;
  }
  gLit = best;
  gMatches++;
  return best;
}

export function finish(): void {
  store<u32>(gDesc + D_MATCHES, <u32>gMatches);
}
