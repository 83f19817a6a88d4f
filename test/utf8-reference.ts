// The scalar UTF-8 reference of the validator tests: WHATWG's decoder (fatal) as the oracle.

/**
 * Index of the first byte that no valid UTF-8 prefix continues with; -1 when `b` is valid; its
 * length when it is cut off (in a JSON string, the closing quote is the first byte that cannot
 * follow). The decoder takes the bytes one at a time (streaming), then ends: where it first
 * throws is the answer, and decoding in pieces then ending is decoding the whole (WHATWG). One
 * decoder per call, and at most one thrown error: Node captures a whole stack for each (its
 * internal errors ignore Error.stackTraceLimit), and the kernel tests run this millions of times.
 */
export function firstBadByte(b: ArrayLike<number>): number {
  const bytes = b instanceof Uint8Array ? b : Uint8Array.from(b);
  const d = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  for (let k = 0; k < bytes.length; k++) {
    try {
      d.decode(bytes.subarray(k, k + 1), { stream: true });
    } catch {
      return k;
    }
  }
  try {
    d.decode();
    return -1;
  } catch {
    return bytes.length;
  }
}
