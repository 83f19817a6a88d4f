// fold: 'nfkc' against the whole-text fold reference in test/fold-reference.ts: every folded
// occurrence is inside a token, nothing folds to a term after encoding, and the round trip.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { createCodec, DEFAULT_TERMS } from '../src/index.ts';
import { anyString, fragmentString, runs } from './arbitraries.ts';
import { foldedOccurrences, foldedPatterns, foldMap, lookalikeText, refFold, spreadTerm, tokenSpans } from './fold-reference.ts';
import { bytes, choices, split, transformChunks, writeJson } from './stream-helpers.ts';

// A custom set where folds of several letters matter: `℡` is all of `tel`, `ﬁ` starts `fin`,
// `㎪` is `kpa`; the middle of `ﬁn` is `in`, `tmall` may start with `™`.
const CUSTOM = { ascii: ['tel', 'fin', 'in-x', 'kpa'], exact: ['⾥⾥', 'Ｔｍａｌｌ'], pairs: [['ok', 'go']] as [string, string][] };

const sets = [
  {
    name: 'default terms',
    terms: DEFAULT_TERMS,
    codec: createCodec({ fold: 'nfkc' }),
    options: { fold: 'nfkc' } as const,
    widen: compile(resolveOptions({ fold: 'nfkc' })).widen,
  },
  {
    name: 'letters that fold to several',
    terms: CUSTOM,
    codec: createCodec({ fold: 'nfkc', terms: CUSTOM }),
    options: { fold: 'nfkc', terms: CUSTOM } as const,
    widen: compile(resolveOptions({ fold: 'nfkc', terms: CUSTOM })).widen,
  },
];

// Over 64 code units a string goes through the WASM core (and its SIMD prefilter), under it
// through the JS matcher: every string is tried both ways.
const PAD = 'x'.repeat(70);

describe.each(sets)('fold nfkc, $name', ({ terms, codec, options, widen }) => {
  const patterns = foldedPatterns(terms);
  const strings = fc.oneof(lookalikeText(terms), lookalikeText(terms, 40), fragmentString(), anyString(60));

  const check = (s: string) => {
    const encoded = codec.encodeText(s);
    expect(codec.decodeText(encoded)).toBe(s);
    // No term is left, even after folding the encoded text.
    expect(foldedOccurrences(refFold(encoded), patterns)).toEqual([]);
    // Every occurrence the reference finds is cut by a token, and those leftmost-longest picks
    // (in the original text) lie inside one (when spans map back one code point at a time).
    const map = foldMap(s);
    if (map === undefined) return;
    const spans = tokenSpans(encoded);
    const found = foldedOccurrences(refFold(s), patterns)
      .map(([a, b]) => [map.starts[a]!, map.ends[b - 1]!] as const)
      .sort((x, y) => x[0] - y[0] || y[1] - x[1]);
    let end = 0;
    for (const [from, to] of found) {
      const where = `${JSON.stringify(s)} [${from}, ${to})`;
      expect(
        spans.some(([x, y]) => x < to && from < y),
        where,
      ).toBe(true);
      if (from < end) continue;
      expect(
        spans.some(([x, y]) => x <= from && to <= y),
        where,
      ).toBe(true);
      end = to;
    }
  };

  it('encodes every span whose fold holds a term, leaves none, and round-trips (short strings, in JS)', () => {
    fc.assert(
      fc.property(strings, (s) => check(s)),
      runs(1500),
    );
  });

  it('does the same through the core (long strings)', () => {
    fc.assert(
      fc.property(strings, fc.boolean(), (s, after) => check(after ? s + PAD : PAD + s)),
      runs(1000),
    );
  });

  it('grows no match by more than the maxLength widening factor (in code points)', () => {
    fc.assert(
      fc.property(strings, (s) => {
        const encoded = codec.encodeText(s);
        const tokens = encoded.match(/__mcp_ref_(?:[0-9a-f]{2})+__/g) ?? [];
        tokenSpans(encoded).forEach(([from, to], k) => {
          expect(tokens[k]!.length).toBeLessThanOrEqual(widen * [...s.slice(from, to)].length);
        });
      }),
      runs(1000),
    );
  });

  it('round-trips any string', () => {
    fc.assert(
      fc.property(anyString(300), (s) => {
        expect(codec.decodeText(codec.encodeText(s))).toBe(s);
      }),
      runs(1000),
    );
  });

  // A possible match undecided across many chunks (a term's first letters, then runs of
  // ignorables) is carried in the string windows from chunk to chunk, the automaton's state
  // with it: the per-message path (no whole lines) however cut, against the object API.
  it('streams a term spread by long runs of ignorables, cut anywhere, as the object API encodes it', () => {
    const piece = fc.oneof(spreadTerm(terms), lookalikeText(terms, 4));
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 3 }), choices, fc.array(fc.nat(4000), { maxLength: 12 }), (ps, ch, cuts) => {
        const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: ps.join('') }], [ps[0]!]: ps.join(' ') } };
        const line = `${writeJson(message, ch)}\n`;
        const data = bytes(line);
        const out = (chunks: Uint8Array[]) => transformChunks('encode', options, chunks, { lines: false });
        const cut = out(
          split(
            data,
            cuts.map((c) => c % (data.length + 1)),
          ),
        );
        expect(JSON.parse(cut)).toEqual(codec.encodeMessage(message));
        expect(cut).toBe(out([data]));
      }),
      runs(150),
    );
  });
});
