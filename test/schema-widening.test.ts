// A tool schema's `maxLength` is widened when encoding so that an encoded value stays valid:
// over random term sets, prefixes and suffixes (the default terms' factor, 4.4 rounded to 5 for
// `antgroup`-like lengths, would hide a rounding bug), the object API and the streams write
// n times the reference's factor (the most one pattern grows, rounded up), and no text of n
// code points encodes to more than that.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { type CodecOptions, createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { type ReferenceOptions, referenceEncode, referenceWidening } from './reference.ts';
import { bytes, transformChunks } from './stream-helpers.ts';

// Letters that are no hex digit and in none of the message's keys below (keys are payload too).
const word = (chars: string[], max: number) => fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: max }).map((a) => a.join(''));
const letters = ['v', 'w', 'z', 'k', 'q'];
const options = fc.record({
  prefix: fc.constantFrom('__mcp_ref_', '__cuaf_', '<<', '@@', '~'),
  suffix: fc.constantFrom('__', '>>', '_Z', '!'),
  upper: fc.boolean(),
  ascii: fc.array(word(letters, 9), { maxLength: 3 }),
  exact: fc.array(word([...letters, '中', 'é', '😀', '\u{10FFFF}'], 4), { maxLength: 3 }),
  pairs: fc.array(fc.tuple(word(letters, 4), word(letters, 4)), { maxLength: 2 }),
});

const schemaMessage = (n: number) =>
  `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string","maxLength":${n}}}}}]}}`;
type ToolList = { result: { tools: { inputSchema: { properties: { a: { maxLength: number } } } }[] } };
const widened = (m: unknown) => (m as ToolList).result.tools[0]!.inputSchema.properties.a.maxLength;

it('maxLength grows by the reference factor (rounded up) under any terms, and holds every encoded value', () => {
  let accepted = 0;
  fc.assert(
    fc.property(options, fc.array(fc.nat(12), { maxLength: 10 }), fc.nat(100_000), (o, picks, n) => {
      const terms = { ascii: o.ascii, exact: o.exact, pairs: o.pairs };
      const codecOptions: CodecOptions = { prefix: o.prefix, suffix: o.suffix, hexCase: o.upper ? 'upper' : 'lower', terms };
      let codec: ReturnType<typeof createCodec>;
      try {
        codec = createCodec(codecOptions);
      } catch (e) {
        expect(e).toBeInstanceOf(TypeError); // (options the codec refuses)
        return;
      }
      accepted++;
      const ref: ReferenceOptions = { prefix: o.prefix, suffix: o.suffix, upper: o.upper, terms };
      const factor = referenceWidening(ref);
      // Each pattern alone (one of them is the worst case), and a text made of several.
      const pieces = [...o.ascii, ...o.exact, ...o.pairs.flatMap(([a, b]) => ['', '-', '_', ' '].map((sep) => a + sep + b)), o.prefix];
      const s = picks.map((k) => pieces[k % pieces.length]).join('');
      const widenedFor = (count: number) => widened(codec.encodeMessage(JSON.parse(schemaMessage(count))));
      for (const count of [n, [...s].length]) {
        const stream = widened(JSON.parse(transformChunks('encode', codecOptions, [bytes(`${schemaMessage(count)}\n`)])));
        expect([widenedFor(count), stream]).toEqual([count * factor, count * factor]);
      }
      for (const text of [...pieces, s]) expect([...referenceEncode(text, ref)].length).toBeLessThanOrEqual(widenedFor([...text].length));
    }),
    runs(150),
  );
  expect(accepted).toBeGreaterThan(50); // (most generated options are accepted)
});
