// A JSON-RPC message's bytes, read without parsing them into values: the raw text of its id
// (`9007199254740993`, `1.0` and `1e400` stay as written, where a parsed value would round them),
// the message on one line, and answers written with an id as it was written. serve moves the
// messages themselves as bytes; parsing is for looking, never for sending.
import type { Codec } from '../codec.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const utf8 = new TextDecoder();

/** Just after the string whose opening quote is at `at` (a native search for each quote). */
function afterString(b: Uint8Array, at: number): number {
  for (let q = b.indexOf(QUOTE, at + 1); q >= 0; q = b.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (b[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return b.length;
}

const isSpaceOrEnd = (c: number) => isSpace(c) || c === 0x2c || c === 0x7d || c === 0x5d;

/** Just after the JSON value that starts at `at` (valid JSON: the caller parsed it). */
function afterValue(b: Uint8Array, at: number): number {
  const first = b[at];
  if (first === QUOTE) return afterString(b, at);
  let i = at;
  if (first !== 0x7b && first !== 0x5b) {
    while (i < b.length && !isSpaceOrEnd(b[i]!)) i++; // (a number or a literal)
    return i;
  }
  let depth = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c === QUOTE) {
      i = afterString(b, i);
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
    i++;
  }
  return i;
}

const skipSpace = (b: Uint8Array, i: number) => {
  while (i < b.length && isSpace(b[i]!)) i++;
  return i;
};

/**
 * The raw text of the top-level member `key` of the JSON object in `b` (valid JSON), or
 * undefined when it has none (or `b` is not an object). A key written with escapes counts too.
 */
export function rawMember(b: Uint8Array, key: string): string | undefined {
  let i = skipSpace(b, 0);
  if (b[i] !== 0x7b) return undefined;
  let found: string | undefined;
  i = skipSpace(b, i + 1);
  while (i < b.length && b[i] === QUOTE) {
    const end = afterString(b, i);
    const name = utf8.decode(b.subarray(i + 1, end - 1));
    i = skipSpace(b, skipSpace(b, end) + 1); // (past the colon)
    const valueEnd = afterValue(b, i);
    // (The last one counts, as JSON.parse takes it.)
    if ((name.includes('\\') ? JSON.parse(`"${name}"`) : name) === key) found = utf8.decode(b.subarray(i, valueEnd));
    i = skipSpace(b, valueEnd);
    if (b[i] !== 0x2c) break;
    i = skipSpace(b, i + 1);
  }
  return found;
}

/**
 * The message on one line with nothing else changed: JSON whitespace outside strings taken out
 * when it holds a line break (a pretty-printed body must be one NDJSON line, one SSE data line).
 */
export function oneLine(b: Uint8Array): Uint8Array {
  if (b.indexOf(0x0a) < 0 && b.indexOf(0x0d) < 0) return b;
  const out = new Uint8Array(b.length);
  let n = 0;
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c === QUOTE) {
      const end = afterString(b, i);
      out.set(b.subarray(i, end), n);
      n += end - i;
      i = end;
    } else {
      if (!isSpace(c)) out[n++] = c;
      i++;
    }
  }
  return out.subarray(0, n);
}

/**
 * `message` (a value this code wrote: an answer, an error) as JSON text, its id written as
 * `rawId` (the text the request's id had), so that no id is rounded; encoded with `codec` when
 * it goes to the host (the child gets real values).
 */
export function withRawId(message: object, rawId: string, codec?: Codec): string {
  const { id: _, jsonrpc: __, ...rest } = (codec ? codec.encodeMessage(message) : message) as Record<string, unknown>;
  const body = JSON.stringify(rest);
  return `{"jsonrpc":"2.0","id":${rawId}${body === '{}' ? '}' : `,${body.slice(1)}`}`;
}
