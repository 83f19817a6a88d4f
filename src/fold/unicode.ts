// The NFKC case fold of `fold: 'nfkc'`: per code point from the generated tables (decoded on
// first use, so codecs without folding never pay for them), and for whole strings (terms).
import { FOLDS, SEPARATORS, UNSAFE } from './tables.js';

/** The reference fold of a string: NFKC, then lower case, then default-ignorables removed. */
export function foldText(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '');
}

export interface FoldData {
  /** Code point -> its fold (code points; empty for a default-ignorable), when not itself. */
  readonly folds: ReadonlyMap<number, readonly number[]>;
  /** Whether a folded term may hold this code point (the text around some cannot be folded one by one). */
  readonly safe: (cp: number) => boolean;
  /** Folded pair separators (spaces and dashes), besides '' and the ASCII ones. */
  readonly separators: readonly string[];
}

let data: FoldData | undefined;

export function foldData(): FoldData {
  if (data) return data;
  const folds = new Map<number, number[]>();
  let start = 0;
  for (const record of FOLDS.split(' ')) {
    const [gap, count, fold, step] = record.split(',') as [string, string, string, string | undefined];
    start += parseInt(gap, 36);
    const n = parseInt(count, 36);
    const by = step === undefined ? 1 : parseInt(step, 36);
    const to = fold === '' ? [] : fold.split('.').map((c) => parseInt(c, 36));
    for (let k = 0; k < n; k++) folds.set(start + k * by, k === 0 || to.length === 0 ? to : [to[0]! + k * by]);
  }
  const unsafe = UNSAFE.split(' ').map((record) => record.split(',').map((x) => parseInt(x, 36)) as [number, number]);
  const safe = (cp: number) => !unsafe.some(([from, count]) => cp >= from && cp < from + count);
  data = { folds, safe, separators: SEPARATORS };
  return data;
}
