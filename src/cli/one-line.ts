// A JSON message on one line, its bytes otherwise as written: serve moves messages as bytes
// (parsing is for looking, never for sending), and a pretty-printed body must become one NDJSON
// line for the child, one SSE data line for the host.

import { afterJsonString } from '../codec/json-spans.js';

const QUOTE = 0x22;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

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
      const end = afterJsonString(b, i);
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
