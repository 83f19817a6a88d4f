// The oracle for fold: 'nfkc': fold the whole text (normalize('NFKC'), toLowerCase(), default-
// ignorables removed) and look for the folded terms in it, plainly. Also lookalike generators,
// built by probing every code point (nothing is listed by hand but a few sample families).
import fc from 'fast-check';
import { DEFAULT_TERMS } from '../src/index.ts';

export const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
export const refFold = (s: string): string => s.normalize('NFKC').toLowerCase().replace(IGNORABLE, '');

interface Terms {
  ascii?: readonly string[];
  exact?: readonly string[];
  pairs?: readonly (readonly [string, string])[];
}

/** Every code point, probed once: its fold, and the spaces and dashes. */
const probe = (() => {
  const inverse = new Map<string, string[]>(); // fold -> code points folding to it (not itself)
  const separators = new Set<string>();
  const ignorables: string[] = [];
  const multi: string[] = []; // code points folding to two or more code points
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    const f = refFold(ch);
    if (/^[\p{Zs}\p{Dash}]$/u.test(ch)) separators.add(f);
    if (f === ch) continue;
    if (f === '') ignorables.push(ch);
    else if ([...f].length > 1) multi.push(ch);
    if (!inverse.has(f)) inverse.set(f, []);
    inverse.get(f)!.push(ch);
  }
  separators.delete('');
  return { inverse, separators: [...separators], ignorables, multi };
})();

/** The folded patterns of a term set (pairs joined by nothing, `-`, `_`, space or any space or dash). */
export function foldedPatterns(terms: Terms): string[] {
  const seps = ['', '-', '_', ' ', ...probe.separators];
  const out = new Set<string>();
  for (const t of [...(terms.ascii ?? []), ...(terms.exact ?? [])]) out.add(refFold(t));
  for (const [a, b] of terms.pairs ?? []) for (const s of seps) out.add(refFold(a) + s + refFold(b));
  return [...out];
}

/** Every occurrence of a pattern in the folded text, as [start, end) in the folded text. */
export function foldedOccurrences(folded: string, patterns: readonly string[]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of patterns) {
    for (let i = folded.indexOf(p); i >= 0; i = folded.indexOf(p, i + 1)) out.push([i, i + p.length]);
  }
  return out;
}

/**
 * The text folded one code point at a time, with the original [start, end) of each folded
 * UTF-16 unit; undefined when that differs from the whole-text fold (composition across code
 * points, final sigma), where spans cannot be mapped back one code point at a time.
 */
export function foldMap(s: string): { starts: number[]; ends: number[] } | undefined {
  const starts: number[] = [];
  const ends: number[] = [];
  let folded = '';
  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i)!;
    const n = cp > 0xffff ? 2 : 1;
    const f = refFold(s.slice(i, i + n));
    folded += f;
    for (let k = 0; k < f.length; k++) {
      starts.push(i);
      ends.push(i + n);
    }
    i += n;
  }
  return folded === refFold(s) ? { starts, ends } : undefined;
}

/** The original spans [start, end) that tokens replaced, read off the encoded text. */
export function tokenSpans(encoded: string, prefix = '__mcp_ref_', suffix = '__'): [number, number][] {
  const token = new RegExp(`${prefix}((?:[0-9a-fA-F]{2})+)${suffix}`, 'gy');
  const out: [number, number][] = [];
  let original = 0;
  for (let i = 0; i < encoded.length; ) {
    token.lastIndex = i;
    const m = encoded.startsWith(prefix, i) ? token.exec(encoded) : null;
    if (m) {
      const raw = Buffer.from(m[1]!, 'hex').toString('utf8');
      out.push([original, original + raw.length]);
      original += raw.length;
      i += m[0].length;
    } else {
      original++;
      i++;
    }
  }
  return out;
}

const lookalike = (c: string) => fc.constantFrom(c, ...(probe.inverse.get(c) ?? []), ...(probe.inverse.get(c.toLowerCase()) ?? []));

/** A term written with random lookalikes, ignorables between its characters, and any separator. */
export function lookalikeTerm(terms: Terms): fc.Arbitrary<string> {
  const spell = (t: string) =>
    fc
      .tuple(
        ...[...refFold(t)].map((c) => fc.tuple(lookalike(c), fc.constantFrom('', '', '', ...probe.ignorables.slice(0, 40), '\u{E0041}'))),
      )
      .map((cs) => cs.map(([c, ig]) => c + ig).join(''));
  const words = [...(terms.ascii ?? []), ...(terms.exact ?? [])];
  const arbs: fc.Arbitrary<string>[] = [];
  if (words.length > 0) arbs.push(fc.constantFrom(...words).chain(spell));
  if ((terms.pairs ?? []).length > 0) {
    arbs.push(
      fc
        .tuple(fc.constantFrom(...terms.pairs!), fc.constantFrom('', '-', ' ', '_', ...probe.separators, '\u00A0', '\u3000', '\u2014'))
        .chain(([[a, b], sep]) => fc.tuple(spell(a), spell(b)).map(([x, y]) => x + sep + y)),
    );
  }
  return fc.oneof(...arbs);
}

/**
 * Code points folding to several that can take part in a match: their fold starts with the
 * end of a pattern, ends with its start, or shares two letters with it (`ﬁ`, `℡`, `㏂`).
 */
function relevantMulti(terms: Terms): string[] {
  const patterns = foldedPatterns(terms);
  return probe.multi.filter((ch) => {
    const f = refFold(ch);
    return patterns.some(
      (p) => f.startsWith(p.at(-1)!) || f.endsWith(p[0]!) || [...p].some((_, i) => i > 0 && f.includes(p.slice(i - 1, i + 1))),
    );
  });
}

/** Text glued from lookalike terms, pieces of them, multi-letter folds and awkward characters. */
export function lookalikeText(terms: Terms = DEFAULT_TERMS, maxPieces = 12): fc.Arbitrary<string> {
  const multi = relevantMulti(terms);
  const piece = fc.oneof(
    fc.constantFrom(...multi),
    lookalikeTerm(terms),
    lookalikeTerm(terms).chain((t) => fc.nat(t.length).map((k) => t.slice(0, k))),
    lookalikeTerm(terms).chain((t) => fc.nat(t.length).map((k) => t.slice(k))),
    fc.constantFrom(...probe.multi),
    fc.constantFrom(...probe.ignorables.slice(0, 60)),
    fc.constantFrom(
      ' ',
      '-',
      'a',
      'Q',
      '\u0301',
      '\u0307',
      'ı',
      'İ',
      'Σ',
      '\uD800',
      '\uDC00',
      '😀',
      '中文',
      '__mcp_ref_',
      '__MCP_ref_71__',
      '7177656e',
      '_',
    ),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  return fc.array(piece, { maxLength: maxPieces }).map((ps) => ps.join(''));
}

/**
 * A lookalike term's first characters, then long runs of ignorables (of the kinds that
 * once made streams quadratic, and others), then the rest of the term or not: a possible
 * match that stays undecided across many chunks.
 */
export function spreadTerm(terms: Terms = DEFAULT_TERMS): fc.Arbitrary<string> {
  const kinds = ['\u200B', '\u00AD', '\uFE0F', '\u{E0041}', '\u2060', ...probe.ignorables.slice(0, 20)];
  const run = fc
    .array(fc.tuple(fc.constantFrom(...kinds), fc.nat(120)), { minLength: 1, maxLength: 4 })
    .map((parts) => parts.map(([ig, n]) => ig.repeat(n)).join(''));
  return fc
    .tuple(
      lookalikeTerm(terms),
      fc.nat(),
      run,
      fc.constantFrom('rest', 'none', 'other'),
      fc.constantFrom('', ' ', 'x', 'q', 'cs', 'yun', 'wen'),
    )
    .map(([t, k, ignorables, end, other]) => {
      const cps = [...t];
      const cut = 1 + (k % cps.length);
      const tail = end === 'rest' ? cps.slice(cut).join('') : end === 'other' ? other : '';
      return cps.slice(0, cut).join('') + ignorables + tail;
    });
}
