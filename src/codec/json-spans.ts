// Where the elements of a JSON array are in its bytes, so that a batch can be cut into pieces
// without parsing and printing it again (which would change big numbers and their spelling).
import { concat } from '../util/concat.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** Just after the JSON string whose opening quote is at `at` (a native search for each quote). */
export function afterJsonString(b: Uint8Array, at: number): number {
  for (let q = b.indexOf(QUOTE, at + 1); q >= 0; q = b.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (b[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return b.length;
}

/**
 * [start, end) of each top-level element of the JSON array in `bytes`, whitespace trimmed.
 * `bytes` must be valid JSON whose value is an array (the caller has parsed it already).
 */
export function arrayElementSpans(bytes: Uint8Array): [number, number][] {
  const spans: [number, number][] = [];
  let i = bytes.indexOf(0x5b) + 1; // after '['
  let depth = 0;
  let start = -1;
  let end = -1; // after the last non-space byte of the element being read
  for (; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
    if (start < 0 && b !== 0x5d) start = i;
    if (b === QUOTE) i = afterJsonString(bytes, i) - 1;
    else if (b === 0x5b || b === 0x7b) depth++;
    else if (depth > 0 && (b === 0x5d || b === 0x7d)) depth--;
    else if (depth === 0 && (b === COMMA || b === 0x5d)) {
      if (start >= 0) spans.push([start, end]);
      if (b === 0x5d) break;
      start = -1;
      continue;
    }
    end = i + 1;
  }
  return spans;
}

const OPEN = new Uint8Array([0x5b]);
const CLOSE = new Uint8Array([0x5d]);
const SEPARATOR = new Uint8Array([COMMA]);

/** The JSON array in `bytes` (valid) with only the elements at the indexes `keep`, each as its own bytes. */
export function keepElements(bytes: Uint8Array, keep: readonly number[]): Uint8Array {
  const spans = arrayElementSpans(bytes);
  const parts = keep.flatMap((k, j) => [j ? SEPARATOR : OPEN, bytes.subarray(spans[k]![0], spans[k]![1])]);
  return concat([...(parts.length ? parts : [OPEN]), CLOSE]);
}
