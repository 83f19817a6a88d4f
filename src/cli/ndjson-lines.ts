// NDJSON lines of a byte stream: split at '\n' only. A '\r' stays in its line, where JSON.parse
// takes it as whitespace (node:readline would also split at a lone '\r', cutting valid JSON).
import { concat } from '../stream/pipe.js';

/** Every line, blank ones included, and a last line without '\n' if it holds anything. */
export async function* ndjsonLines(input: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let parts: Uint8Array[] = [];
  for await (const chunk of input) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      parts.push(chunk.subarray(start, nl));
      yield concat(parts);
      parts = [];
      start = nl + 1;
    }
    if (start < chunk.length) parts.push(chunk.slice(start)); // (the stream may reuse its chunk)
  }
  if (parts.length) yield concat(parts);
}
