// Short strings in plain JS. Crossing into WASM costs more than scanning a key or a name, so
// strings of up to 64 code units are matched here, on the same automaton tables the core
// uses (leftmost-longest, over the same UTF-8 bytes), and their tokens restored here by the
// core's rules. Measured: keys, ids and names go 2-3x faster this way than through the core,
// and restoring tokens here took decodeMessage on the apps list from 5.0 to 2.1 ms.
import { gramHash, type Automaton } from './automaton.js';

/**
 * Leftmost-longest matches in `s` as [start, end) pairs of UTF-16 indexes (flattened), empty
 * if none; undefined if `s` holds a lone surrogate.
 */
export type ShortMatcher = (s: string) => number[] | undefined;

export function compileTermScan(a: Automaton): ShortMatcher {
  const { transitions: t, classes, classCount: n, accepting, grams, gramMask } = a;
  // Steps the automaton over one byte; 0 is the dead state.
  const step = (state: number, byte: number) => t[state * n + classes[byte]!]!;
  // Whether the automaton survives two ASCII characters from its start: in English text few
  // pairs do ("al", "to", "__"), so most positions are dismissed with one lookup.
  const pairs = new Uint8Array(128 * 128);
  for (let c0 = 0; c0 < 128; c0++) {
    const s1 = step(1, c0);
    if (s1 === 0) continue;
    for (let c1 = 0; c1 < 128; c1++) pairs[c0 * 128 + c1] = accepting[s1] === 1 || step(s1, c1) !== 0 ? 1 : 0;
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
      let state = 1;
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
        if (accepting[state] === 1) best = j + 1;
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

const fold = (c: number) => (c >= 65 && c <= 90 ? c | 0x20 : c);

/** The value of a hex digit in either case, or -1. */
const hexValue = (c: number) => (c >= 48 && c <= 57 ? c - 48 : (c | 0x20) >= 97 && (c | 0x20) <= 102 ? (c | 0x20) - 87 : -1);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const TOKEN_CACHE_LIMIT = 4096;

/**
 * Restores the tokens in a short string, with the core's rules: the prefix in any ASCII case,
 * the longest run of hex digits after it (an even number, at least 2), the suffix exactly, and
 * bytes that are valid UTF-8; after a failed candidate the search resumes one character on.
 * Tokens are ASCII, so lone surrogates elsewhere in `s` are simply kept.
 */
export function compileTokenDecode(prefix: string, suffix: string): (s: string) => string {
  const p = Array.from(prefix, (c) => fold(c.charCodeAt(0)));
  const prefixAt = (s: string, i: number) => {
    for (let k = 0; k < p.length; k++) if (fold(s.charCodeAt(i + k)) !== p[k]) return false;
    return true;
  };
  // Candidates: a character of the prefix that has no other case ('_' in both wire formats)
  // is found by native indexOf; without one, every position is a candidate.
  const anchor = [...prefix].findIndex((c) => c.toLowerCase() === c.toUpperCase());
  const a = anchor >= 0 ? prefix[anchor]! : '';
  const next = anchor >= 0 ? (s: string, from: number) => {
    const h = s.indexOf(a, from + anchor);
    return h < 0 ? -1 : h - anchor;
  } : (_s: string, from: number) => from;
  let decoded = new Map<string, string | null>(); // token text -> its text, or null if not UTF-8
  const decodeToken = (token: string, hexFrom: number, hexTo: number): string | null => {
    let d = decoded.get(token);
    if (d === undefined) {
      const bytes = new Uint8Array((hexTo - hexFrom) >> 1);
      for (let k = 0; k < bytes.length; k++) bytes[k] = (hexValue(token.charCodeAt(hexFrom + 2 * k)) << 4) | hexValue(token.charCodeAt(hexFrom + 2 * k + 1));
      try {
        d = strictUtf8.decode(bytes);
      } catch {
        d = null;
      }
      if (decoded.size >= TOKEN_CACHE_LIMIT) decoded = new Map();
      decoded.set(token, d);
    }
    return d;
  };
  return (s) => {
    let out = '';
    let lit = 0; // s[0, lit) is in `out`
    for (let c = next(s, 0); c >= 0 && c + p.length <= s.length; c = next(s, c + 1)) {
      if (!prefixAt(s, c)) continue;
      let j = c + p.length;
      while (j < s.length && hexValue(s.charCodeAt(j)) >= 0) j++;
      const h = j - c - p.length;
      if (h < 2 || (h & 1) !== 0 || !s.startsWith(suffix, j)) continue;
      const end = j + suffix.length;
      const text = decodeToken(s.slice(c, end), p.length, p.length + h);
      if (text === null) continue;
      out += s.slice(lit, c) + text;
      lit = end;
      c = end - 1;
    }
    return lit === 0 ? s : out + s.slice(lit);
  };
}
