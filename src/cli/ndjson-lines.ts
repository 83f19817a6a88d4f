// NDJSON lines of a byte stream: split at '\n' only. A '\r' stays in its line, where JSON.parse
// takes it as whitespace (node:readline would also split at a lone '\r', cutting valid JSON).
// Each chunk is searched once and its bytes copied once, however long a line runs.
import { concat } from '../util/concat.js';

/**
 * Every line, blank ones included, and a last line without '\n' if it holds anything. A line
 * longer than `maxBytes` throws, naming its number, before it is held whole.
 */
export async function* ndjsonLines(input: AsyncIterable<Uint8Array | string>, maxBytes = Infinity): AsyncGenerator<Uint8Array> {
  const utf8 = new TextEncoder();
  let parts: Uint8Array[] = [];
  let held = 0;
  let lineNumber = 1;
  const hold = (bytes: Uint8Array) => {
    held += bytes.length;
    if (held > maxBytes) throw new RangeError(`line ${lineNumber} is larger than ${maxBytes} bytes`);
    parts.push(bytes);
  };
  for await (const piece of input) {
    const chunk = typeof piece === 'string' ? utf8.encode(piece) : piece;
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      hold(chunk.subarray(start, nl));
      yield concat(parts);
      parts = [];
      held = 0;
      lineNumber++;
      start = nl + 1;
    }
    if (start < chunk.length) hold(chunk.slice(start)); // (the stream may reuse its chunk)
  }
  if (parts.length) yield concat(parts);
}
