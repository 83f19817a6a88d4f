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
