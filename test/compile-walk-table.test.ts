// The automaton as the core walks it (src/compile/walk-table.ts: entries are where the next
// state's row starts, accepting rows last), read here by its documented layout alone, against a
// plain reference: the longest pattern whose bytes start at each offset. Then a term set too
// large for 16-bit entries of unit rows (rows padded, entries shifted further) through the core.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../src/codec/options.ts';
import type { Pattern } from '../src/codec/terms.ts';
import { compilePatternDfa } from '../src/compile/dfa.ts';
import { compileAutomaton } from '../src/compile/index.ts';
import { walkTable } from '../src/compile/walk-table.ts';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { referenceEncode } from './reference.ts';
import { bytes, split, transformChunks } from './stream-helpers.ts';

const utf8 = new TextEncoder();
const fold = (b: number) => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/** Bytes of the longest pattern starting at byte i of `text`, or 0: every pattern tried there. */
function referenceLongest(text: Uint8Array, i: number, patterns: readonly Pattern[]): number {
  let best = 0;
  for (const p of patterns) {
    const b = utf8.encode(p.text);
    if (b.length <= best || i + b.length > text.length) continue;
    if (b.every((x, k) => (p.ignoreCase ? fold(x) === fold(text[i + k]!) : x === text[i + k]))) best = b.length;
  }
  return best;
}

/** The same by the walk table, as the core reads it: row at (entry << shift) bytes, class c its u16 c. */
function walkLongest(text: Uint8Array, i: number, a: ReturnType<typeof compilePatternDfa>): number {
  const w = walkTable(a);
  let e = w.start;
  let best = 0;
  for (let j = i; j < text.length; j++) {
    e = w.rows[((e << w.shift) >>> 1) + a.classes[text[j]!]!]!;
    if (e === 0) break;
    if (e >= w.acceptFrom) best = j + 1 - i;
  }
  return best;
}

const chars = ['g', 'G', 'h', 'k', 'K', '-', ' ', 'é', '中', '😀'];
const word = (min: number, max: number) => fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: max }).map((a) => a.join(''));
const patternSet = fc.array(fc.record({ text: word(1, 8), ignoreCase: fc.boolean() }), { minLength: 1, maxLength: 12 });

describe('the walk table', () => {
  it('finds the longest pattern at every offset, as the reference does (generated pattern sets)', () => {
    fc.assert(
      fc.property(
        patternSet.chain((ps) =>
          fc.tuple(
            fc.constant(ps),
            fc.array(fc.oneof(fc.constantFrom(...ps.map((p) => p.text)), word(0, 4)), { maxLength: 12 }).map((x) => x.join('')),
          ),
        ),
        ([ps, s]) => {
          const patterns = ps as Pattern[];
          const a = compilePatternDfa(patterns);
          const text = utf8.encode(s);
          for (let i = 0; i < text.length; i++) expect(walkLongest(text, i, a), `offset ${i}`).toBe(referenceLongest(text, i, patterns));
        },
      ),
      runs(300),
    );
  });

  // 500 terms of 10-14 letters: some 5,000 states, too many rows for 16-bit unit offsets.
  const letters = 'ghijklmnopqrstuvwxyz';
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed >>> 8;
  };
  const many = Array.from({ length: 500 }, () =>
    Array.from({ length: 10 + (next() % 5) }, () => letters[next() % letters.length]).join(''),
  );
  const options = { terms: { ascii: many } };

  it('holds a large term set in shifted entries, and the core finds what the reference does', () => {
    const w = walkTable(compileAutomaton(resolveOptions(options).patterns));
    expect(w.shift).toBeGreaterThan(1);
    const codec = createCodec(options);
    const ref = { prefix: '__mcp_ref_', suffix: '__', upper: false, terms: { ascii: many, exact: [], pairs: [] } };
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(...many),
            fc.constantFrom(...many).map((t) => t.slice(0, -1).toUpperCase()),
            word(0, 3),
          ),
          {
            minLength: 8,
            maxLength: 40,
          },
        ),
        (pieces) => {
          const s = `${'.'.repeat(64)}${pieces.join('')}`; // (past encodeText's short strings: the core)
          expect(codec.encodeText(s)).toBe(referenceEncode(s, ref));
        },
      ),
      runs(40),
    );
  });
});

// At the compiler's limit: 3,800 exact terms over 147 byte classes make 63,618 states, rows of
// 512 bytes (shift 9, the widest: any 65,536 states of up to 256 classes fit), entries up to
// 63,617. encodeText (short strings in JS, short-match.ts; long ones in the core) and a stream
// cut anywhere (a candidate held across a cut as its entry) find what the reference does;
// 4,000 terms are refused, naming the limit.
describe('a term set at the 16-bit limit', () => {
  let seed = 11;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed >>> 8;
  };
  const punctuation = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).filter((c) => !/[\w"\\]/.test(c));
  const alphabet = [
    ...punctuation,
    ...Array.from({ length: 64 }, (_, i) => String.fromCharCode(0xa0 + i)),
    ...Array.from({ length: 30 }, (_, i) => String.fromCharCode(0x100 + 64 * i + (i % 7))), // (2-byte leads)
    ...Array.from({ length: 15 }, (_, i) => String.fromCharCode(0x1000 * (i + 1) + 0x123)), // (3-byte leads)
  ];
  const terms = (count: number) => {
    seed = 11;
    return Array.from({ length: count }, () => Array.from({ length: 10 }, () => alphabet[next() % alphabet.length]).join(''));
  };
  const exact = terms(3800);
  const options = { terms: { exact } };

  it('fits 16-bit entries at shift 9; encodeText and a cut stream agree with the reference', () => {
    const a = compileAutomaton(resolveOptions(options).patterns);
    const w = walkTable(a);
    expect([a.accepting.length, a.classCount, w.shift]).toEqual([63618, 147, 9]);
    expect(w.rows.reduce((m, e) => Math.max(m, e), 0)).toBe(63617); // (the last row: one entry a row, far past 0x7fff)
    const codec = createCodec(options);
    const ref = { prefix: '__mcp_ref_', suffix: '__', upper: false, terms: { ascii: [], exact, pairs: [] } };
    const piece = fc.oneof(
      fc.constantFrom(...exact),
      fc.constantFrom(...exact).chain((t) => fc.nat(t.length).map((k) => t.slice(0, k))), // (fails late)
      fc.constantFrom(...alphabet),
    );
    const message = (x: string) => `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: x }] } })}\n`;
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        fc.array(fc.nat(2000), { maxLength: 12 }),
        (pieces, long, cuts) => {
          // (Short strings, up to 64 units, are matched in JS, short-match.ts; longer ones by the core.)
          const s = `${long ? '.'.repeat(64) : ''}${pieces.join('')}`;
          const want = referenceEncode(s, ref);
          expect(codec.encodeText(s)).toBe(want);
          expect(transformChunks('encode', options, split(bytes(message(s)), cuts))).toBe(message(want));
        },
      ),
      runs(30),
    );
  });

  it('past it, is refused with the limit named', () => {
    expect(() => createCodec({ terms: { exact: terms(4000) } })).toThrow(/term set is too large.*65535 automaton states/);
    const states = 0x10001;
    const big = { transitions: new Uint16Array(states), classCount: 1, accepting: new Uint8Array(states) };
    expect(() => walkTable(big)).toThrow(/65536/); // (no shift fits: an error, not a search without end)
  });
});
