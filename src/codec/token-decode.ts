// Restoring tokens in JS strings, by the core's rules (assembly/decode.ts does the same on
// bytes for the streams). Tokens are ASCII, so the string needs no UTF-8 conversion: candidates
// are found with native indexOf (or the regexp engine: see compileTokenDecode), and each
// distinct token (of up to 64 bytes) is decoded once.
// Measured against the core: about 30% faster on 4 KiB to 256 KiB of text, and decodeMessage
// on the apps list went from 5.0 to 2.1 ms (short strings no longer cross into WASM).

const fold = (c: number) => (c >= 65 && c <= 90 ? c | 0x20 : c);
const isAsciiLetter = (c: number) => (c | 0x20) >= 97 && (c | 0x20) <= 122;

/** The value of a hex digit in either case, or -1. */
const hexValue = (c: number) => (c >= 48 && c <= 57 ? c - 48 : (c | 0x20) >= 97 && (c | 0x20) <= 102 ? (c | 0x20) - 87 : -1);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Slots of the decoded-token cache (a power of two): direct-mapped by a hash of the hex digits. */
const TOKEN_SLOTS = 4096;
/**
 * Tokens of more bytes are decoded each time, not kept: what the cache holds stays under 1 MB
 * however long the tokens a peer sends (4,096 slots of at most 64 bytes and their text).
 */
const MAX_CACHED_BYTES = 64;

/**
 * Restores the tokens in a string, with the core's rules: the prefix in any ASCII case,
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
  // Candidates: the longest run of the prefix's characters that have no other case ('__' in both
  // wire formats) is found by native indexOf; without one, every position is a candidate. (One
  // '_' alone stopped at every snake_case name: 11% of decodeMessage on a tools/list.)
  const anchor = caselessRun(prefix);
  const next =
    anchor.text !== ''
      ? (s: string, from: number) => {
          const h = s.indexOf(anchor.text, from + anchor.at);
          return h < 0 ? -1 : h - anchor.at;
        }
      : (_s: string, from: number) => from;
  // Past a candidate that is not the prefix, the rest of the string is searched for the whole
  // prefix by the regexp engine (`g`: test from lastIndex, no match array). A call costs more
  // than indexOf, so a string takes it only then: 256 KiB of '_' (a candidate at every
  // character) took 5.0 ms, and takes 0.3; 256 KiB of snake_case with `__init__`-like names 1.09
  // ms, and 0.71.
  const prefixIn = anyCasePrefix(prefix, 'g');
  const nextPrefix = (s: string, from: number) => {
    prefixIn.lastIndex = from;
    return prefixIn.test(s) ? prefixIn.lastIndex - p.length : -1;
  };
  // Each distinct token (of up to MAX_CACHED_BYTES) decoded once: slot (hash of its hex digits'
  // values) -> its bytes and its text (null: not UTF-8). A hit is checked in place against the
  // bytes, so a candidate costs no slice and no string hash, and the hex in either case finds it;
  // two tokens in one slot take turns. (Not the hex as written: a slice of 13 characters or more
  // points into `s`, and kept in a slot it held the whole message, megabytes, as long as the slot did.)
  const slotBytes = new Array<Uint8Array | undefined>(TOKEN_SLOTS);
  const slotText = new Array<string | null>(TOKEN_SLOTS);
  const byteAt = (s: string, i: number) => (hexValue(s.charCodeAt(i)) << 4) | hexValue(s.charCodeAt(i + 1));
  const decodeToken = (s: string, hexFrom: number, hexTo: number, hash: number): string | null => {
    const n = (hexTo - hexFrom) >> 1;
    const slot = hash & (TOKEN_SLOTS - 1);
    const known = slotBytes[slot];
    if (known !== undefined && known.length === n) {
      let k = 0;
      while (k < n && known[k] === byteAt(s, hexFrom + 2 * k)) k++;
      if (k === n) return slotText[slot]!;
    }
    const bytes = new Uint8Array(n);
    for (let k = 0; k < n; k++) bytes[k] = byteAt(s, hexFrom + 2 * k);
    const d = isUtf8(bytes) ? strictUtf8.decode(bytes) : null;
    if (n <= MAX_CACHED_BYTES) {
      slotBytes[slot] = bytes;
      slotText[slot] = d;
    }
    return d;
  };
  return (s) => {
    let out = '';
    let lit = 0; // s[0, lit) is in `out`
    let search = next;
    for (let c = search(s, 0); c >= 0 && c + p.length <= s.length; c = search(s, c + 1)) {
      if (search === next && !prefixAt(s, c)) {
        search = nextPrefix;
        continue;
      }
      let j = c + p.length;
      let hash = 0;
      for (; j < s.length; j++) {
        const v = hexValue(s.charCodeAt(j));
        if (v < 0) break;
        hash = Math.imul(hash ^ v, 0x01000193);
      }
      const h = j - c - p.length;
      if (h < 2 || (h & 1) !== 0 || !s.startsWith(suffix, j)) continue;
      const end = j + suffix.length;
      const text = decodeToken(s, c + p.length, j, hash ^ h);
      if (text === null) continue;
      out += s.slice(lit, c) + text;
      lit = end;
      c = end - 1;
    }
    return lit === 0 ? s : out + s.slice(lit);
  };
}

/**
 * A search for `prefix` (printable ASCII) in any ASCII case: without the u flag, `i` folds no
 * code point past 0x7F onto an ASCII one (not `ſ` onto `s`, nor the Kelvin sign onto `k`).
 */
export function anyCasePrefix(prefix: string, flags = ''): RegExp {
  return new RegExp(prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), `i${flags}`);
}

/** The longest run of `prefix` without an ASCII letter (matched exactly, where letters match in any case), and where it starts. */
function caselessRun(prefix: string): { text: string; at: number } {
  let best = { text: '', at: 0 };
  for (let i = 0; i < prefix.length; ) {
    let j = i;
    while (j < prefix.length && !isAsciiLetter(prefix.charCodeAt(j))) j++;
    if (j - i > best.text.length) best = { text: prefix.slice(i, j), at: i };
    i = j + 1;
  }
  return best;
}

/**
 * Whether `b` is UTF-8 (what the strict decoder accepts: no overlong forms, surrogates or code
 * points past U+10FFFF). Checked, not caught: the decoder's exception cost 9-11 us a token, 30
 * times a valid token's whole decoding, and a peer chooses how many invalid tokens it sends.
 */
function isUtf8(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const more = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (more === 0 || i + more >= b.length) return false;
    // The second byte's range is narrower after E0 and F0 (overlong), ED (surrogate), F4 (past U+10FFFF).
    const c1 = b[i + 1]!;
    if (c1 < (c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80) || c1 > (c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf)) return false;
    for (let k = 2; k <= more; k++) if ((b[i + k]! & 0xc0) !== 0x80) return false;
    i += more + 1;
  }
  return true;
}
