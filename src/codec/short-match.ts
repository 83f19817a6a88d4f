// Short strings in plain JS. Crossing into WASM costs more than scanning a key or a name, so
// strings of up to 64 code units are matched here, on the same automaton tables the core
// uses (leftmost-longest, over the same UTF-8 bytes). Measured: keys, ids and names go 2-3x
// faster this way than through the core.
import type { Automaton } from '../compile/dfa.js';
import { gramHash } from '../compile/start-set.js';
import { walkTable } from '../compile/walk-table.js';

/**
 * Leftmost-longest matches in `s` as [start, end) pairs of UTF-16 indexes (flattened), empty
 * if none; undefined if `s` holds a lone surrogate.
 */
export type ShortMatcher = (s: string) => number[] | undefined;

export function compileShortMatcher(a: Automaton): ShortMatcher {
  const { classes, grams, gramMask } = a;
  const { rows: t, shift, start, acceptFrom } = walkTable(a);
  // Steps the automaton over one byte (a state is where its row starts); 0 is the dead state.
  const step = (state: number, byte: number) => t[((state << shift) >>> 1) + classes[byte]!]!;
  // Whether the automaton survives two ASCII characters from its start: in English text few
  // pairs do ("al", "to", "__"), so most positions are dismissed with one lookup.
  // (Built at import for the default codec, before any JIT: so plain indexing, no calls.)
  const pairs = new Uint8Array(128 * 128);
  for (let c0 = 0; c0 < 128; c0++) {
    const s1 = step(start, c0);
    if (s1 === 0) continue;
    const row = c0 * 128;
    if (s1 >= acceptFrom) {
      pairs.fill(1, row, row + 128);
      continue;
    }
    for (let c1 = 0; c1 < 128; c1++) pairs[row + c1] = step(s1, c1) !== 0 ? 1 : 0;
  }
  const none: number[] = [];
  return (s) => {
    let found = none;
    const last = s.length - 1;
    let next = s.charCodeAt(0); // the character at i, read once as the second of a pair
    for (let i = 0; i <= last; i++) {
      const c0 = next;
      next = i < last ? s.charCodeAt(i + 1) : 0xffff; // (never read past the end: V8 deoptimizes)
      if (c0 < 0x80 && next < 0x80) {
        if (pairs[c0 * 128 + next] === 0) continue;
        // The core's second filter stage: the folded first four bytes, hashed.
        if (i + 3 <= last) {
          const c2 = s.charCodeAt(i + 2);
          const c3 = s.charCodeAt(i + 3);
          if (c2 < 0x80 && c3 < 0x80) {
            const key = ((c0 | (next << 8) | (c2 << 16) | (c3 << 24) | 0x20202020) & gramMask) >>> 0;
            const h = gramHash(key);
            if ((grams[h >> 3]! & (1 << (h & 7))) === 0) continue;
          }
        }
      }
      let state = start;
      let best = -1;
      for (let j = i; j <= last && state !== 0; j++) {
        const c = s.charCodeAt(j);
        if (c < 0x80) state = step(state, c);
        else if (c < 0x800) state = step(step(state, 0xc0 | (c >> 6)), 0x80 | (c & 63));
        else if (c < 0xd800 || c > 0xdfff) state = step(step(step(state, 0xe0 | (c >> 12)), 0x80 | ((c >> 6) & 63)), 0x80 | (c & 63));
        else {
          const d = s.charCodeAt(j + 1);
          if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) return undefined;
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          state = step(step(step(step(state, 0xf0 | (cp >> 18)), 0x80 | ((cp >> 12) & 63)), 0x80 | ((cp >> 6) & 63)), 0x80 | (cp & 63));
          j++;
        }
        if (state >= acceptFrom) best = j + 1;
      }
      if (best > i) {
        if (found === none) found = [];
        found.push(i, best);
        i = best - 1;
        next = best <= last ? s.charCodeAt(best) : 0xffff;
      }
    }
    return found;
  };
}
