// The scalar UTF-8 reference of the validator tests: WHATWG's decoder (fatal) as the oracle.

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Index of the first byte that no valid UTF-8 prefix continues with; -1 when `b` is valid; its
 * length when it is cut off (in a JSON string, the closing quote is the first byte that cannot
 * follow). Fast on valid input: the kernel tests run it millions of times.
 */
export function firstBadByte(b: ArrayLike<number>): number {
  const bytes = b instanceof Uint8Array ? b : Uint8Array.from(b);
  try {
    strict.decode(bytes);
    return -1;
  } catch {
    // fall through: find where
  }
  const d = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  for (let k = 0; k < bytes.length; k++) {
    try {
      d.decode(bytes.subarray(k, k + 1), { stream: true });
    } catch {
      return k;
    }
  }
  return bytes.length;
}
