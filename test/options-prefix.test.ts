// No term may ever appear in encoded text, whatever the prefix, suffix, hex case and terms:
// createCodec refuses every combination where a token (alone or with the text around it)
// could hold a term, in any ASCII case, and accepts the rest.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Codec, type CodecOptions, createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { lookalikeTerm } from './fold-reference.ts';

interface RefPattern {
  text: string;
  ignoreCase: boolean;
}

/** The patterns a term set stands for, written out from the definition in docs/CODEC.md. */
function referencePatterns(terms: { ascii?: string[]; exact?: string[]; pairs?: [string, string][] }): RefPattern[] {
  return [
    ...(terms.ascii ?? []).map((text) => ({ text, ignoreCase: true })),
    ...(terms.exact ?? []).map((text) => ({ text, ignoreCase: false })),
    ...(terms.pairs ?? []).flatMap(([a, b]) => ['', '-', '_', ' '].map((sep) => ({ text: a + sep + b, ignoreCase: true }))),
  ];
}

const occursIn = (haystack: string, p: RefPattern) =>
  p.ignoreCase ? haystack.toLowerCase().includes(p.text.toLowerCase()) : haystack.includes(p.text);

/**
 * Evidence that `p` can meet a token: a string `before + token + after` holding `p` across or
 * inside the token, where the token is the prefix, an even run (2 or more) of hex digits in
 * `hexCase` and the suffix, and `before`/`after` are the parts of `p` outside the token.
 * Brute force over the run length and where `p` starts; the result is checked by the caller
 * with plain string functions.
 */
function witness(p: RefPattern, prefix: string, suffix: string, hexCase: 'lower' | 'upper'): { text: string; token: string } | undefined {
  const digits = [...(hexCase === 'lower' ? '0123456789abcdef' : '0123456789ABCDEF')];
  const same = (a: string, b: string) => (p.ignoreCase ? a.toLowerCase() === b.toLowerCase() : a === b);
  const t = p.text;
  for (let n = 2; n <= t.length + 4; n += 2) {
    const length = prefix.length + n + suffix.length;
    for (let start = 1 - t.length; start < length; start++) {
      let hex = '';
      for (let j = 0; j < n; j++) {
        const c = t[prefix.length + j - start];
        hex += (c === undefined ? undefined : digits.find((d) => same(d, c))) ?? '0';
      }
      const token = prefix + hex + suffix;
      const text = t.slice(0, Math.max(0, -start)) + token + t.slice(Math.max(0, length - start));
      const at = Math.max(0, start); // where the term starts in `text`
      if (same(text.slice(at, at + t.length), t)) return { text, token };
    }
  }
  return undefined;
}

describe('createCodec refuses terms that tokens could contain', () => {
  it('with fold nfkc, refuses every spelling of the prefix that folds to it (lookalikes, ignorables)', () => {
    for (const prefix of ['__mcp_ref_', '__cuaf_']) {
      fc.assert(
        fc.property(lookalikeTerm({ exact: [prefix] }), (term) => {
          expect(() => createCodec({ fold: 'nfkc', prefix, terms: { exact: [term] } })).toThrow(TypeError);
        }),
        runs(40),
      );
    }
  });

  it.each([
    [{ terms: { ascii: ['__mcp_ref_'] } }, /term "__mcp_ref_" is the prefix/],
    [{ terms: { ascii: ['__MCP_Ref_'] } }, /term "__MCP_Ref_" is the prefix/],
    [{ prefix: '_', terms: { ascii: ['_'] } }, /term "_" is the prefix/],
    [{ prefix: '_x', terms: { ascii: ['ok', '_X'] } }, /term "_X" is the prefix/],
    [{ terms: { pairs: [['__mcp', 'ref_']] } }, /term "__mcp_ref_" is the prefix/],
    [{ terms: { exact: ['__mcp_ref_'] } }, /term "__mcp_ref_"/],
    [
      { fold: 'nfkc', terms: { exact: ['＿＿ｍｃｐ＿ｒｅｆ＿'] } },
      /term "＿＿ｍｃｐ＿ｒｅｆ＿" is the prefix \(terms match under the NFKC case fold\)/,
    ],
    [{ fold: 'nfkc', terms: { exact: ['__MCP_\u00ADREF_'] } }, /is the prefix \(terms match under the NFKC case fold\)/],
    [{ fold: 'nfkc', prefix: '__cuaf_', terms: { exact: ['__ⅽuaf_'] } }, /is the prefix/],
    [{ hexCase: 'upper', terms: { ascii: ['CAFE'] } }, /term "CAFE" could appear/],
    [{ hexCase: 'upper', terms: { ascii: ['cafe'] } }, /term "cafe" could appear/],
    [{ hexCase: 'upper', terms: { ascii: ['Ab'] } }, /term "Ab" could appear/],
    [{ hexCase: 'lower', terms: { ascii: ['Ab'] } }, /term "Ab" could appear/],
    [{ hexCase: 'upper', terms: { exact: ['AB'] } }, /term "AB" could appear/],
    [{ hexCase: 'lower', terms: { exact: ['ab'] } }, /term "ab" could appear/],
    [{ hexCase: 'upper', terms: { pairs: [['A', 'b']] } }, /term "Ab" could appear/],
    [{ prefix: '<<', suffix: '>>', terms: { ascii: ['F>'] } }, /term "F>" could appear/],
    [{ prefix: '<<', suffix: '>>', terms: { ascii: ['x<<a'] } }, /term "x<<a" could appear/],
  ])('refuses %j', (options, message) => {
    expect(() => createCodec(options as CodecOptions)).toThrow(TypeError);
    expect(() => createCodec(options as CodecOptions)).toThrow(message);
  });

  it.each([
    // Tokens hold hex digits in one case only: an exact term in the other case cannot appear.
    [{ hexCase: 'upper', terms: { exact: ['Ab', 'ab', 'cafe'] } }, ['Ab', 'ab', 'cafe', 'CAFE']],
    [{ hexCase: 'lower', terms: { exact: ['AB', 'CAFE'] } }, ['AB', 'CAFE', 'cafe']],
    [{ prefix: '__cuaf_', terms: { exact: ['CUAF'] } }, ['CUAF', '__cuaf_', '__CUAF_']],
  ])('accepts %j and keeps its terms out of encoded text', (options, inputs) => {
    const codec = createCodec(options as CodecOptions);
    const patterns = referencePatterns((options as CodecOptions).terms as never);
    for (const s of inputs) {
      const encoded = codec.encodeText(s);
      expect(patterns.filter((p) => occursIn(encoded, p))).toEqual([]);
      expect(codec.decodeText(encoded)).toBe(s);
    }
  });

  it('never lets a term into encoded text, and names a term that really fits when it refuses', () => {
    const alphabet = ['_', 'a', 'b', 'c', '0', '1', 'f', 'x', 'A', 'F', 'X', '-', '<'];
    const word = (max: number) => fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength: max });
    const base = fc.record({
      prefix: word(4),
      suffix: word(3),
      hexCase: fc.constantFrom('lower' as const, 'upper' as const),
      terms: fc.record({
        ascii: fc.array(word(4), { maxLength: 3 }),
        exact: fc.array(word(3), { maxLength: 2 }),
        pairs: fc.array(fc.tuple(word(2), word(2)), { maxLength: 2 }),
      }),
    });
    // Now and then a term spelt like the prefix (in some case), as a term or a pair: a random
    // word would hardly ever hit it.
    const options = fc
      .tuple(base, fc.nat(3), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), fc.nat(4))
      .map(([o, kind, upper, cut]) => {
        const spelt = [...o.prefix].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join('');
        if (kind === 1) return { ...o, terms: { ...o.terms, ascii: [...o.terms.ascii, spelt] } };
        if (kind === 2 && o.prefix.length > 1) {
          const at = 1 + (cut % (o.prefix.length - 1));
          return { ...o, terms: { ...o.terms, pairs: [...o.terms.pairs, [spelt.slice(0, at), spelt.slice(at)] as [string, string]] } };
        }
        return o;
      });
    const text = fc.string({ unit: fc.constantFrom(...alphabet, ' ', 'B', 'C', '汉'), maxLength: 24 });
    const seen = { accepted: 0, refusedForTerm: 0, refusedAsPrefix: 0 };
    fc.assert(
      fc.property(options, fc.array(text, { minLength: 1, maxLength: 4 }), (o, texts) => {
        const patterns = referencePatterns(o.terms);
        let codec: Codec;
        try {
          codec = createCodec(o);
        } catch (e) {
          expect(e).toBeInstanceOf(TypeError);
          const message = (e as Error).message;
          const named = /term ("(?:[^"\\]|\\.)*")/.exec(message);
          const fold = (s: string) => s.toLowerCase();
          if (named) {
            const t = JSON.parse(named[1]!) as string;
            const candidates = patterns.filter((p) => p.text === t);
            expect(candidates.length).toBeGreaterThan(0);
            if (/is the prefix/.test(message)) {
              expect(candidates.some((p) => (p.ignoreCase ? fold(p.text) === fold(o.prefix) : p.text === o.prefix))).toBe(true);
              seen.refusedAsPrefix++;
            } else {
              expect(message).toMatch(/could appear in encoded text/);
              const evidence = candidates.map((p) => [p, witness(p, o.prefix, o.suffix, o.hexCase)] as const).find(([, w]) => w);
              expect(evidence).toBeDefined();
              const [p, w] = evidence!;
              expect(occursIn(w!.text, p)).toBe(true);
              expect(w!.token).toMatch(
                new RegExp(`^.{${o.prefix.length}}(?:${o.hexCase === 'lower' ? '[0-9a-f]' : '[0-9A-F]'}{2})+.{${o.suffix.length}}$`, 's'),
              );
              expect(w!.token.startsWith(o.prefix) && w!.token.endsWith(o.suffix)).toBe(true);
            }
            seen.refusedForTerm++;
          } else if (/suffix must not begin with a hex digit/.test(message)) {
            expect(o.suffix).toMatch(/^[0-9a-f]/i);
          } else if (/prefix must contain a character that is not a hex digit/.test(message)) {
            expect(o.prefix).toMatch(/^[0-9a-f]+$/i);
          } else if (/prefix overlaps itself/.test(message)) {
            const p = fold(o.prefix);
            const k = Number(/shift (\d+)/.exec(message)![1]);
            expect(p.slice(k)).toBe(p.slice(0, p.length - k));
          } else {
            expect(message).toMatch(/terms is empty/);
            expect(patterns).toEqual([]);
          }
          return;
        }
        seen.accepted++;
        // Accepted: the reference finds no way for any term to meet a token...
        for (const p of patterns) expect(witness(p, o.prefix, o.suffix, o.hexCase)).toBeUndefined();
        // ...and encoded text holds no term (ASCII terms and pairs in any case).
        for (const s of texts) {
          const encoded = codec.encodeText(s);
          expect(patterns.filter((p) => occursIn(encoded, p))).toEqual([]);
          expect(codec.decodeText(encoded)).toBe(s);
        }
      }),
      runs(3000),
    );
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.refusedForTerm).toBeGreaterThan(0);
    expect(seen.refusedAsPrefix).toBeGreaterThan(0);
  });
});
