// Text dense with terms, as app lists, CJK prose and file contents are: the matcher's SIMD loop
// (assembly/match.ts, two blocks a step) and the hex of the tokens the core writes
// (json/rewrite.ts, a vector a step) against the oracle in test/reference.ts. Terms back to back
// and a few bytes apart put matches across every block edge of the pair and the skip past a
// match at every offset; matches of every length put a token's last hex digits in every tail.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { referenceEncode } from './reference.ts';
import { WIRE_FORMATS } from './reference-options.ts';
import { bytes, transformChunks } from './stream-helpers.ts';

// Terms of 2 to 10 bytes and their look-alikes that fail late, in any ASCII case.
const pieces = [
  'qwen',
  'Qwen',
  'QWEN',
  'alibaba',
  'aliyuncs',
  'ali-baba',
  'ali baba',
  'alibab',
  'dashscope',
  'DashScope',
  'dash',
  'tongyi',
  'tong',
  'antgroup',
  '通义',
  '阿里',
  '千问',
  '支付宝',
  '通',
  '中文',
  'é',
  ' ',
  '-',
  'x',
  '0',
  '\n',
  '😀',
];
const dense = fc
  .tuple(fc.array(fc.constantFrom(...pieces), { minLength: 8, maxLength: 120 }), fc.string({ maxLength: 40 }))
  .map(([p, pad]) => pad + p.join(''));

describe.each(WIRE_FORMATS)('text dense with terms ($name)', ({ options, ref }) => {
  const codec = createCodec(options);

  it('encodeText finds every match the reference does', () => {
    fc.assert(
      fc.property(dense, (s) => {
        expect(codec.encodeText(s)).toBe(referenceEncode(s, ref));
      }),
      runs(600),
    );
  });

  it('a stream writes the same tokens, as one string and as many', () => {
    fc.assert(
      fc.property(dense, fc.boolean(), (s, split) => {
        const value = split ? s.split('\n') : s; // (one long string, or many short ones)
        const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: value }] } };
        const want = (v: string | string[]) => (typeof v === 'string' ? referenceEncode(v, ref) : v.map((x) => referenceEncode(x, ref)));
        const expected = `${JSON.stringify({ ...message, result: { content: [{ type: 'text', text: want(value) }] } })}\n`;
        expect(transformChunks('encode', options, [bytes(`${JSON.stringify(message)}\n`)])).toBe(expected);
      }),
      runs(600),
    );
  });
});

// Generated term sets: ASCII terms of 1 to 64 bytes (a token's hex in one to eight vector steps,
// and every tail), exact ones with 2-4 byte characters, pairs with their separators, in either
// hex case, after 0-40 bytes of padding (a match at every offset of the two-block step) and
// with 64 more in front or not (encodeText takes short strings in JS, long ones to the core).
// (Letters not in the JSON around the text, nor hex digits, which createCodec refuses.)
const word = (chars: string[], min: number, max: number) =>
  fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: max }).map((a) => a.join(''));
const termSet = fc.record({
  ascii: fc.array(fc.oneof(word(['k', 'Q', 'z', 'w', '-', ' ', '!', 'v'], 1, 3), word(['k', 'Q', 'z', 'w', '-', ' ', '!', 'v'], 4, 64)), {
    minLength: 1,
    maxLength: 4,
  }),
  exact: fc.array(word(['k', 'Z', '中', 'é', '😀', 'g'], 1, 24), { maxLength: 3 }),
  pairs: fc.array(fc.tuple(word(['k', 'w', 'v'], 1, 4), word(['z', 'g', '!'], 1, 4)), { maxLength: 2 }),
});
const textOf = (t: { ascii: string[]; exact: string[]; pairs: [string, string][] }) => {
  const all = [...t.ascii, ...t.exact, ...t.pairs.flatMap(([a, b]) => [`${a}${b}`, `${a}-${b}`, `${a}_${b}`, `${a} ${b}`])];
  const piece = fc.oneof(
    fc.constantFrom(...all),
    fc.constantFrom(...all).chain((w) => fc.nat(w.length).map((k) => w.slice(0, k))), // (fails late)
    fc.constantFrom(...all).map((w) => w.toUpperCase()),
    word(['k', 'W', 'v', 'z', '中', 'é', ' ', '.'], 0, 5),
  );
  return fc
    .tuple(fc.nat(40), fc.array(piece, { maxLength: 20 }), fc.boolean())
    .map(([pad, p, long]) => (long ? 'z'.repeat(64) : '') + '.'.repeat(pad) + p.join(''));
};

it('generated terms of 1-64 bytes at every offset: encodeText and a stream agree with the reference', () => {
  let accepted = 0;
  fc.assert(
    fc.property(
      termSet.chain((t) => fc.tuple(fc.constant(t), fc.boolean(), textOf(t))),
      ([terms, upper, s]) => {
        const options = { terms, hexCase: upper ? 'upper' : 'lower' } as const;
        let codec: ReturnType<typeof createCodec>;
        try {
          codec = createCodec(options);
        } catch (e) {
          expect(e).toBeInstanceOf(TypeError); // (a term the options refuse)
          return;
        }
        accepted++;
        const ref = { prefix: '__mcp_ref_', suffix: '__', upper, terms };
        expect(codec.encodeText(s)).toBe(referenceEncode(s, ref));
        const message = (x: string) => `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: x }] } })}\n`;
        expect(transformChunks('encode', options, [bytes(message(s))])).toBe(message(referenceEncode(s, ref)));
      },
    ),
    runs(400),
  );
  expect(accepted).toBeGreaterThan(100); // (the generator must make accepted sets)
});
