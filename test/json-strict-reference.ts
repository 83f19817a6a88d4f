// A strict JSON reader for the conformance corpus, written for obviousness: RFC 8259's
// grammar on bytes, strings strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
// past U+10FFFF), no byte order mark. Escapes are the grammar's, so `\uD800` alone is
// accepted (RFC 8259 section 8.2 leaves its meaning open; it is well-formed JSON text).
//
// A refusal names the first byte at which the input stops being the start of some valid JSON
// text (the input's length when it is cut short): where a reader going byte by byte must stop.
// Iterative, so 100,000 levels of nesting are no problem.

/** Why a text is refused, in the stream errors' terms (PayloadStreamErrorCode). */
export type StrictReason = 'invalid-json' | 'invalid-utf8' | 'control-character' | 'invalid-escape' | 'incomplete' | 'too-deep';

export type StrictVerdict = { ok: true } | { ok: false; offset: number; reason: StrictReason };

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const SIMPLE_ESCAPES = new Set(Array.from('"\\/bfnrt', (c) => c.charCodeAt(0)));
const LITERALS = ['true', 'false', 'null'].map((s) => Array.from(s, (c) => c.charCodeAt(0)));

/** UTF-8 (RFC 3629 table): for a lead byte, the allowed range of each continuation byte. */
function continuations(lead: number): [number, number][] | undefined {
  const any: [number, number] = [0x80, 0xbf];
  if (lead >= 0xc2 && lead <= 0xdf) return [any];
  if (lead === 0xe0) return [[0xa0, 0xbf], any];
  if (lead === 0xed) return [[0x80, 0x9f], any]; // (not surrogates)
  if (lead >= 0xe1 && lead <= 0xef) return [any, any];
  if (lead === 0xf0) return [[0x90, 0xbf], any, any];
  if (lead >= 0xf1 && lead <= 0xf3) return [any, any, any];
  if (lead === 0xf4) return [[0x80, 0x8f], any, any]; // (not past U+10FFFF)
  return undefined;
}

class Refused {
  constructor(
    readonly offset: number,
    readonly reason: StrictReason,
  ) {}
}

/**
 * `maxDepth`: containers nested deeper than this are refused at the bracket that opens the
 * first one too many.
 */
export function strictJson(b: Uint8Array, maxDepth = Number.POSITIVE_INFINITY): StrictVerdict {
  const n = b.length;
  let i = 0;
  const fail = (offset: number, reason: StrictReason = 'invalid-json'): never => {
    throw new Refused(offset, reason);
  };
  const at = (): number => (i < n ? b[i]! : fail(n, 'incomplete'));
  const ws = () => {
    while (i < n && WS.has(b[i]!)) i++;
  };

  const string = () => {
    i++; // the opening quote
    for (;;) {
      const c = at();
      if (c === 0x22) return void i++;
      if (c < 0x20) fail(i, 'control-character');
      if (c === 0x5c) {
        i++;
        const e = at();
        if (SIMPLE_ESCAPES.has(e)) i++;
        else if (e === 0x75) {
          i++;
          for (let k = 0; k < 4; k++) {
            if (!isHex(at())) fail(i, 'invalid-escape');
            i++;
          }
        } else fail(i, 'invalid-escape');
      } else if (c < 0x80) i++;
      else {
        const rest = continuations(c) ?? fail(i, 'invalid-utf8');
        i++;
        for (const [lo, hi] of rest) {
          const d = at();
          if (d < lo || d > hi) fail(i, 'invalid-utf8');
          i++;
        }
      }
    }
  };

  const number = () => {
    if (b[i] === 0x2d) i++;
    const c = at();
    if (c === 0x30) i++;
    else if (isDigit(c)) while (isDigit(b[i])) i++;
    else fail(i);
    if (b[i] === 0x2e) {
      i++;
      if (!isDigit(at())) fail(i);
      while (isDigit(b[i])) i++;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      i++;
      if (b[i] === 0x2b || b[i] === 0x2d) i++;
      if (!isDigit(at())) fail(i);
      while (isDigit(b[i])) i++;
    }
  };

  const OBJECT = 1;
  const ARRAY = 2;
  const open: number[] = [];
  try {
    let want: 'value' | 'key' = 'value';
    for (;;) {
      // A value (or an object's key, colon and value) ...
      ws();
      if (want === 'key') {
        if (at() !== 0x22) fail(i);
        string();
        ws();
        if (at() !== 0x3a) fail(i);
        i++;
        ws();
      }
      const c = at();
      if (c === 0x7b || c === 0x5b) {
        if (open.length >= maxDepth) fail(i, 'too-deep');
        i++;
        ws();
        const close = c === 0x7b ? 0x7d : 0x5d;
        if (at() !== close) {
          open.push(c === 0x7b ? OBJECT : ARRAY);
          want = c === 0x7b ? 'key' : 'value';
          continue;
        }
        i++;
      } else if (c === 0x22) string();
      else if (c === 0x2d || isDigit(c)) number();
      else {
        const literal = LITERALS.find((l) => l[0] === c) ?? fail(i);
        for (const l of literal) {
          if (at() !== l) fail(i);
          i++;
        }
      }
      // ... then what may follow it: closing brackets, a comma, or the end.
      for (;;) {
        ws();
        const top = open[open.length - 1];
        if (top === undefined) return i === n ? { ok: true } : fail(i);
        const d = at();
        if (d === 0x2c) {
          i++;
          want = top === OBJECT ? 'key' : 'value';
          break;
        }
        if (d !== (top === OBJECT ? 0x7d : 0x5d)) fail(i);
        i++;
        open.pop();
      }
    }
  } catch (e) {
    if (e instanceof Refused) return { ok: false, offset: e.offset, reason: e.reason };
    throw e;
  }
}
