// Small text helpers shared across the library.

/** Bytes of a string whose characters are all below U+0100 (headers, prefixes, suffixes). */
export const latin1Bytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** ASCII letters to lower case; nothing else changes (no Unicode case mapping). */
export const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

export const HEX_DIGITS = { lower: '0123456789abcdef', upper: '0123456789ABCDEF' } as const;

/**
 * Caches the results of `f` (terms and keys repeat); the cache is dropped whole when it fills,
 * which keeps memory bounded without bookkeeping per entry.
 */
export function memoise(f: (key: string) => string, limit: number): (key: string) => string {
  let memo = new Map<string, string>();
  return (key) => {
    let r = memo.get(key);
    if (r === undefined) {
      if (memo.size >= limit) memo = new Map();
      r = f(key);
      memo.set(key, r);
    }
    return r;
  };
}
