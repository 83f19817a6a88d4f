// A bounded cache for string transforms (terms, tokens and keys repeat).

/**
 * Caches the results of `f` for keys of at most `maxKeyLength` code units (a peer can send
 * long ones, and `limit` of them would be held); the cache is dropped whole when it fills,
 * which keeps memory bounded without bookkeeping per entry.
 */
export function memoise(f: (key: string) => string, limit: number, maxKeyLength: number): (key: string) => string {
  let memo = new Map<string, string>();
  return (key) => {
    if (key.length > maxKeyLength) return f(key);
    let r = memo.get(key);
    if (r === undefined) {
      if (memo.size >= limit) memo = new Map();
      r = f(key);
      memo.set(key, r);
    }
    return r;
  };
}
