// Where UTF-8 goes wrong, found with the platform's decoder (error paths only: a line a CLI
// refuses). A prefix that some valid text continues is a valid prefix, and every shorter one
// is too, so the first bad byte is found by bisection; slice by slice from the last character
// boundary known good, so the line is decoded about twice in all (bisecting whole prefixes
// decoded it once per step: 16 MiB took 4.5 s).
import { type ReadMessage, readMessage } from '../jsonrpc/raw-id.js';

/** Bytes checked at a time before bisecting (tests pass smaller slices). */
const SLICE = 64 * 1024;

/** Whether bytes[from, to) is the start of valid UTF-8 (`from` a character boundary). */
const validPrefix = (b: Uint8Array, from: number, to: number): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(b.subarray(from, to), { stream: true });
    return true;
  } catch {
    return false;
  }
};

/**
 * The index of the first byte that no valid UTF-8 prefix continues with; -1 when `bytes` is
 * valid UTF-8; `bytes.length` when it is only cut off inside a character.
 */
export function firstInvalidUtf8Byte(bytes: Uint8Array, slice = SLICE): number {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return -1;
  } catch {
    // fall through: find where
  }
  for (let at = 0; at < bytes.length; at += slice) {
    // bytes[0, at) is a valid prefix: step back to the start of the character it may cut.
    let from = at;
    while (from > 0 && at - from < 3 && (bytes[from - 1]! & 0xc0) === 0x80) from--;
    if (from > 0 && bytes[from - 1]! >= 0xc0) from--;
    const end = Math.min(at + slice, bytes.length);
    if (validPrefix(bytes, from, end)) continue;
    let lo = from; // bytes[0, lo) is a valid prefix
    let hi = end; // bytes[0, hi) is not
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (validPrefix(bytes, from, mid)) lo = mid;
      else hi = mid;
    }
    return lo;
  }
  return bytes.length; // (every prefix is valid: it is only cut off)
}

/**
 * A refused line or body read as a lenient receiver would (invalid UTF-8 replaced, then JSON),
 * only to find the ids to answer (as written); undefined if it is not JSON even so.
 */
export const readLeniently = (bytes: Uint8Array): ReadMessage | undefined => readMessage(new TextDecoder().decode(bytes));
