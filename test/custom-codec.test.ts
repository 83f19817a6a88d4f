// Any options createCodec accepts must keep its promises: the output equals the reference,
// decoding restores the input, and no term is left in encoded text. Random small alphabets make
// terms, prefixes and suffixes collide with each other as often as possible.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { type Codec, type CodecOptions, createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { type ReferenceOptions, referenceDecode, referenceEncode, termPositions } from './reference.ts';

const word = (chars: string[], max: number) => fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: max }).map((a) => a.join(''));
const asciiChars = ['a', 'B', 'x', 'r', '_', '-', ' ', '1', '<', ':'];
const options = fc.record({
  prefix: word(['_', '<', ':', 'x', 'R', 'a', '1'], 6),
  suffix: word(['_', '>', ':', 'x', 'z'], 3),
  upper: fc.boolean(),
  ascii: fc.array(word(asciiChars, 5), { maxLength: 4 }),
  exact: fc.array(word(['a', 'X', '中', '文', '😀', ':'], 3), { maxLength: 3 }),
  pairs: fc.array(fc.tuple(word(['a', 'x', 'r'], 3), word(['b', 'x', 'z'], 3)), { maxLength: 2 }),
});
const text = fc
  .array(fc.oneof(word([...asciiChars, '>', 'z', 'f', '中', '文', '😀', '\uD800', 'X'], 6), fc.string({ unit: 'binary', maxLength: 3 })), {
    maxLength: 12,
  })
  .map((a) => a.join(''));

it('accepted custom options keep every promise', () => {
  let accepted = 0;
  fc.assert(
    fc.property(options, fc.array(text, { minLength: 1, maxLength: 8 }), (o, samples) => {
      const codecOptions: CodecOptions = {
        prefix: o.prefix,
        suffix: o.suffix,
        hexCase: o.upper ? 'upper' : 'lower',
        terms: { ascii: o.ascii, exact: o.exact, pairs: o.pairs },
      };
      let codec: Codec;
      try {
        codec = createCodec(codecOptions);
      } catch (e) {
        expect(e).toBeInstanceOf(TypeError);
        return;
      }
      accepted++;
      const ref: ReferenceOptions = {
        prefix: o.prefix,
        suffix: o.suffix,
        upper: o.upper,
        terms: { ascii: o.ascii, exact: o.exact, pairs: o.pairs },
      };
      for (const s of [...samples, samples.join(o.prefix), samples.join(o.suffix)]) {
        const encoded = codec.encodeText(s);
        expect(encoded).toBe(referenceEncode(s, ref));
        expect(codec.decodeText(encoded)).toBe(s);
        expect(termPositions(encoded, ref)).toEqual([]);
        expect(codec.decodeText(s)).toBe(referenceDecode(s, ref));
      }
    }),
    runs(1500),
  );
  expect(accepted).toBeGreaterThan(50); // the generator must exercise accepted options too
});

it('a lone surrogate is never read as U+FFFD, in strings of any length (encode-string.ts)', () => {
  // encodeInto writes a lone surrogate as U+FFFD, which a term may hold; the core's count of
  // EF BF BD is skipped only when the bytes are as many as the code units (all ASCII).
  const terms = { exact: ['\uFFFD', 'a\uFFFDb'], ascii: ['xy'] };
  const codec = createCodec({ terms });
  const o: ReferenceOptions = { prefix: '__mcp_ref_', suffix: '__', upper: false, terms: { ...terms, pairs: [] } };
  const piece = fc.constantFrom('a', 'b', 'xy', '\uD800', '\uDC00', '\uFFFD', '中', '😀', 'a'.repeat(40), '.'.repeat(70));
  fc.assert(
    fc.property(fc.array(piece, { minLength: 1, maxLength: 16 }), (pieces) => {
      const s = pieces.join('');
      expect(codec.encodeText(s)).toBe(referenceEncode(s, o));
    }),
    runs(500),
  );
});
