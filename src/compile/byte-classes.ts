// Byte classes: bytes that lead to the same state from every DFA state share a class, so a
// row needs one entry per class instead of 256 (66 classes for the default terms).

/**
 * Classes numbered in order of their first byte. Whole columns are compared (hashed first):
 * refining row by row cost too much for the thousands of rows of a fold automaton.
 */
export function byteClasses(rows: readonly Uint16Array[]): { classes: Uint8Array; classCount: number } {
  const classes = new Uint8Array(256);
  const firsts: number[] = []; // a byte of each class
  const byHash = new Map<number, number[]>();
  for (let b = 0; b < 256; b++) {
    let h = 0;
    for (let s = 0; s < rows.length; s++) h = (Math.imul(h, 31) + rows[s]![b]!) | 0;
    const same = (byHash.get(h) ?? []).find((c) => rows.every((row) => row[b] === row[firsts[c]!]));
    if (same !== undefined) classes[b] = same;
    else {
      classes[b] = firsts.length;
      byHash.set(h, [...(byHash.get(h) ?? []), firsts.length]);
      firsts.push(b);
    }
  }
  return { classes, classCount: firsts.length };
}

/**
 * The same classes for a DFA of byte patterns, read off the patterns before the DFA is built:
 * a DFA state is a set of pattern positions, so two bytes lead to the same state from every
 * state exactly when the same positions accept them (every position is reachable, and sets
 * that differ are different states). Numbered like `byteClasses`, so the tables are the same;
 * the DFA then needs no 256-column rows (its cost dominated a cold start).
 */
export function patternClasses(seqs: readonly (readonly (readonly number[])[])[]): { classes: Uint8Array; classCount: number } {
  const accepting: number[][] = Array.from({ length: 256 }, () => []); // positions that accept each byte
  let at = 0;
  for (const seq of seqs) {
    for (const alts of seq) {
      for (const b of alts) if (accepting[b]!.at(-1) !== at) accepting[b]!.push(at);
      at++;
    }
  }
  const classes = new Uint8Array(256);
  const ids = new Map<string, number>();
  for (let b = 0; b < 256; b++) {
    const key = accepting[b]!.join(',');
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    classes[b] = id;
  }
  return { classes, classCount: ids.size };
}
