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
import { CUA_DRIVER, MOBILE_MCP } from './reference-options.ts';
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

const formats = [
  { name: 'mobile-mcp', options: {}, ref: MOBILE_MCP },
  { name: 'cua-driver', options: { prefix: '__cuaf_', hexCase: 'upper' }, ref: CUA_DRIVER },
];

describe.each(formats)('text dense with terms ($name)', ({ options, ref }) => {
  const codec = createCodec(options as object);

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
