// Short strings on the indexed path (assembly/json/indexed-rewrite.ts): encoding, a key or value
// of up to 16 bytes is looked at by the start filter (assembly/filter.ts mayStartIn) and the
// matcher is called only when a match may start in it. Strings made of terms cut, joined and
// placed at every offset, in either case, under term sets of every shortest length (3 bytes:
// no filter; 4, the default's; longer; multi-byte; folded), must come out as the per-message
// path (`lines: false`) writes them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import type { StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';

const CODECS: StreamOptions[] = [
  {},
  { terms: { ascii: ['wanx', 'damo'] } },
  { terms: { ascii: ['xyz', 'tongyi'] } },
  { terms: { ascii: ['maxcompute', 'qwen'], exact: ['通义'] } },
  { terms: { exact: ['通义', '阿里'] } },
  { fold: 'nfkc', terms: { ascii: ['qwen', 'wanx'] } },
];
const pieces = [
  'wanx',
  'WanX',
  'wan',
  'anx',
  'damo',
  'dam',
  'qwen',
  'Qwen',
  'wen',
  'xyz',
  'xy',
  'tongyi',
  'tong',
  '通义',
  '通',
  '阿里',
  'x',
  'é',
  ' ',
  '-',
];
const short = fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((p) => p.join(''));
const message = fc
  .array(fc.tuple(short, short), { minLength: 1, maxLength: 6 })
  .map((members) => JSON.stringify({ jsonrpc: '2.0', id: 1, result: Object.fromEntries(members) }));

function encoded(input: Uint8Array, codec: StreamOptions, lines: boolean): string {
  const out: Uint8Array[] = [];
  const t = byteTransformer('encode', { ...codec, onInvalidMessage: () => {} }, (b) => void out.push(b.slice()), { lines });
  t.push(input);
  t.close();
  return Buffer.concat(out).toString();
}

describe('short strings on the indexed path', () => {
  for (const [c, codec] of CODECS.entries())
    it(`codec ${c}: the per-message path's output`, () => {
      let changed = 0;
      fc.assert(
        fc.property(fc.array(message, { minLength: 1, maxLength: 4 }), (lines) => {
          const text = `${lines.join('\n')}\n`;
          const input = new TextEncoder().encode(text);
          const on = encoded(input, codec, true);
          expect(on).toBe(encoded(input, codec, false));
          if (on !== text) changed++;
        }),
        runs(150),
      );
      expect(changed).toBeGreaterThan(0); // (terms were found)
    });
});

// Each key and value against createCodec().encodeText of its text: strings padded to 15, 16 and
// 17 bytes (the filter's last length, one past it), letters written as \u escapes, terms of one
// byte and terms whose folded matches (`nfkc`: fullwidth, a roman numeral of one character) are
// longer or shorter in their source than the term.
const REFERENCE: StreamOptions[] = [
  {},
  { terms: { ascii: ['q', 'wanx'] } },
  { terms: { ascii: ['qwe', 'tongyi', 'damo'] } },
  { terms: { exact: ['通义', 'é'] } },
  { fold: 'nfkc', terms: { ascii: ['qwen', 'viii'] } },
  { fold: 'nfkc', terms: { ascii: ['wanx', 'damo'], exact: ['通义'] } },
];
const more = [...pieces, 'QWEN', 'ｑｗｅｎ', 'ｑ', 'ⅷ', 'Ⅷ', 'viii', 'ＷａｎＸ', 'q'];
const padded = fc
  .tuple(fc.array(fc.constantFrom(...more), { maxLength: 5 }), fc.constantFrom(0, 15, 16, 17), fc.boolean())
  .map(([p, to, front]) => {
    const s = p.join('');
    const pad = '-'.repeat(Math.max(0, to - Buffer.byteLength(s)));
    return front ? pad + s : s + pad;
  });
/** s as a JSON string, the letters whose bit in `mask` is set written as \u escapes. */
function written(s: string, mask: number): string {
  let out = '"';
  let i = 0;
  for (const ch of s) {
    const e = JSON.stringify(ch).slice(1, -1);
    out += /[a-z]/i.test(ch) && (mask >>> (i++ % 31)) & 1 ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : e;
  }
  return `${out}"`;
}

describe('short strings on the indexed path, string by string', () => {
  for (const [c, codec] of REFERENCE.entries())
    it(`codec ${c}: each key and value as encodeText writes it`, () => {
      const reference = createCodec({ terms: codec.terms, fold: codec.fold });
      let changed = 0;
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.tuple(padded, padded, fc.nat(), fc.nat()), { minLength: 1, maxLength: 6, selector: (m) => m[0] }),
          (members) => {
            const body = members.map(([k, v, mk, mv]) => `${written(k, mk)}:${written(v, mv)}`).join(',');
            const text = `{"jsonrpc":"2.0","id":1,"result":{"items":[{${body}}]}}\n`;
            const input = new TextEncoder().encode(text);
            const on = encoded(input, codec, true);
            expect(on).toBe(encoded(input, codec, false));
            const got = Object.entries(JSON.parse(on).result.items[0]);
            expect(got).toEqual(members.map(([k, v]) => [reference.encodeText(k), reference.encodeText(v)]));
            if (on !== text) changed++;
          },
        ),
        runs(150),
      );
      expect(changed).toBeGreaterThan(0); // (terms were found)
    });
});
