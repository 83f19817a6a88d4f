// Where UTF-8 goes wrong, found with the platform's decoder (error paths only: a line a CLI
// refuses). A prefix that some valid text continues is a valid prefix, and every shorter one
// is too, so the first bad byte is found by bisection: O(n log n) native decoding.

const validPrefix = (b: Uint8Array, k: number): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(b.subarray(0, k), { stream: true });
    return true;
  } catch {
    return false;
  }
};

/**
 * The index of the first byte that no valid UTF-8 prefix continues with; -1 when `bytes` is
 * valid UTF-8; `bytes.length` when it is only cut off inside a character.
 */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return -1;
  } catch {
    // fall through: find where
  }
  let lo = 0; // bytes[0, lo) is a valid prefix
  let hi = bytes.length + 1; // bytes[0, hi) is not (or hi is past the end)
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (validPrefix(bytes, mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * A refused line or body read as a lenient receiver would (invalid UTF-8 replaced, then JSON),
 * only to find the ids to answer; undefined if it is not JSON even so.
 */
export function readLeniently(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
