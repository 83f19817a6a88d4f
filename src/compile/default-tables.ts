// The default terms' automaton, read from tables compiled ahead of time (default-automaton.ts,
// by scripts/gen-default-automaton.ts) instead of compiled at import: that was half of a cold start.
import * as D from './default-automaton.js';
import type { Automaton } from './dfa.js';
import { TEDDY_BYTES } from './teddy.js';

/** Fills an array from `index:value,...` (base 36), the rest 0. */
function unsparse<T extends Uint8Array | Uint16Array>(into: T, text: string): T {
  if (text === '') return into;
  for (const entry of text.split(',')) {
    const colon = entry.indexOf(':');
    into[parseInt(entry.slice(0, colon), 36)] = parseInt(entry.slice(colon + 1), 36);
  }
  return into;
}

/** The default automaton when `key` is the default patterns' key, else undefined. */
export function defaultAutomaton(key: string): Automaton | undefined {
  if (key !== D.KEY) return undefined;
  return {
    transitions: unsparse(new Uint16Array(D.STATES * D.CLASS_COUNT), D.TRANSITIONS),
    classes: unsparse(new Uint8Array(256), D.CLASSES),
    classCount: D.CLASS_COUNT,
    accepting: unsparse(new Uint8Array(D.STATES), D.ACCEPTING),
    grams: unsparse(new Uint8Array(4096), D.GRAMS),
    gramMask: D.GRAM_MASK,
    teddy: unsparse(new Uint8Array(TEDDY_BYTES), D.TEDDY),
    minPatternBytes: D.MIN_PATTERN_BYTES,
  };
}
