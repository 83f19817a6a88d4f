// Subset construction over a byte NFA, shared by the pattern compiler (dfa.ts) and the 'nfkc'
// one (fold/compile.ts): a DFA state is a set of NFA positions; state 0 is dead, 1 the start;
// each row maps every byte to the next state. Then the rows packed by byte class for the core.
import type { CoreTables } from '../core/descriptor.js';
import { byteClasses } from './byte-classes.js';

const MAX_STATES = 0xffff; // (u16 transitions)

/** Calls `edge` for every byte out of NFA position `pos` and the position it leads to; true when `pos` accepts. */
export type NfaStep = (pos: number, edge: (byte: number, next: number) => void) => boolean;

/**
 * The DFA of a byte NFA from `start`. `normalise` sorts and deduplicates each position set
 * (needed when several positions lead to the same one); `what` names the term set in the error
 * for one that is too large. Rows have `width` columns: 256 bytes, or byte classes known in
 * advance (then `step` gives each position's edges once per class).
 */
export function determinize(
  start: readonly number[],
  step: NfaStep,
  normalise: boolean,
  what: string,
  width = 256,
): { rows: Uint16Array[]; accepting: number[] } {
  const states: number[][] = [[], [...start]];
  const ids = new Map<string, number>([
    ['', 0],
    [start.join(','), 1],
  ]);
  const rows: Uint16Array[] = [new Uint16Array(width)];
  const accepting: number[] = [0];
  const nexts: number[][] = Array.from({ length: width }, () => []);
  let touched: number[] = [];
  const edge = (b: number, next: number) => {
    if (nexts[b]!.length === 0) touched.push(b);
    nexts[b]!.push(next);
  };
  for (let id = 1; id < states.length; id++) {
    const row = new Uint16Array(width);
    let accept = 0;
    touched = [];
    for (const pos of states[id]!) if (step(pos, edge)) accept = 1;
    for (const b of touched) {
      const set = normalise ? [...new Set(nexts[b]!)].sort((x, y) => x - y) : nexts[b]!.slice();
      nexts[b]!.length = 0;
      const key = set.join(',');
      let next = ids.get(key);
      if (next === undefined) {
        next = states.length;
        if (next > MAX_STATES) throw new TypeError(`createCodec: the term set is too large${what} (more than 65535 automaton states)`);
        ids.set(key, next);
        states.push(set);
      }
      row[b] = next;
    }
    rows.push(row);
    accepting.push(accept);
  }
  return { rows, accepting };
}

/** The DFA part of the core's tables: u16 transitions [state * classCount + class]. */
export function packDfa(
  rows: readonly Uint16Array[],
  accepting: readonly number[],
): Pick<CoreTables, 'transitions' | 'classes' | 'classCount' | 'accepting'> {
  const { classes, classCount } = byteClasses(rows);
  const transitions = new Uint16Array(rows.length * classCount);
  rows.forEach((row, s) => {
    for (let b = 0; b < 256; b++) transitions[s * classCount + classes[b]!] = row[b]!;
  });
  return { transitions, classes, classCount, accepting: Uint8Array.from(accepting) };
}
