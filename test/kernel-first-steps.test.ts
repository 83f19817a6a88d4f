// The walk's first four steps kept by a candidate's four bytes (assembly/walk.ts tryMatch): term
// sets that decide the same four bytes differently (walked on past them, a match ending at the
// fourth, dead at the fourth, a shorter match within them), taking turns in more codecs than
// stay resident (src/core/descriptor.ts: a freed descriptor's address is used again), each
// agreeing with the reference every time: a step kept for one descriptor is never another's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { D_MATCHES, DESCRIPTOR_SIZE, MODE_BYTE_RECORDS } from '../src/core/abi.ts';
import { core } from '../src/core/instance.ts';
import { allocate, free, heap, heap32 } from '../src/core/memory.ts';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { referenceEncode } from './reference.ts';
import { bytes, split, transformChunks } from './stream-helpers.ts';

// (No hex digits in terms: createCodec refuses them where the token's letters could run on.)
const SETS: string[][] = [
  ['ghijkl'],
  ['ghij'],
  ['ghik', 'wxyz'],
  ['gh', 'ghijklm'],
  ['ghi'],
  ['ghijk', 'wxyzw'],
  ['通义千问'],
  ['通义'],
  ['通义千', 'ghijkl'],
  ['通', '通义千问呀'],
];
const pieces = [
  'ghijkl',
  'ghij',
  'ghik',
  'gh',
  'ghi',
  'ghijklm',
  'wxyz',
  'wxyzw',
  '通义千问',
  '通义',
  '通义千',
  '通',
  'GHIJ',
  ' ',
  '.',
  '中',
];
/** A list's ASCII terms (any case) and the others (exact). */
const termsOf = (list: string[]) => ({ ascii: list.filter((t) => /^[ -~]+$/.test(t)), exact: list.filter((t) => !/^[ -~]+$/.test(t)) });
const ref = (list: string[]) => ({ prefix: '__mcp_ref_', suffix: '__', upper: false, terms: { ...termsOf(list), pairs: [] } });
const message = (x: string) => `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: x }] } })}\n`;

describe("the walk from a candidate's first four steps, kept", () => {
  it('term sets that part at the four bytes, in turns past the resident descriptors, agree with the reference', () => {
    // More codecs than the 16 descriptors kept in memory: the sets, each with a term more, and 20
    // of one four-letter term, whose tables are all one size (a freed one's place fits the next).
    const four = Array.from({ length: 20 }, (_, i) => ['ghij', 'ghik', 'gjik', 'hgij', 'ghji'][i % 5]!.replace('g', 'gwxyz'[i >> 2]!));
    const termSets = [...SETS, ...SETS.map((s, i) => [...s, `vqz${'wy'.repeat(i)}`]), ...four.map((t) => [t])];
    const codecs = termSets.map((terms) => ({ codec: createCodec({ terms: termsOf(terms) }), ref: ref(terms) }));
    const text = `${'.'.repeat(64)}${pieces.join('')}${pieces.join(' ')}${[...pieces].reverse().join('')}${four.join('.')}`;
    for (let round = 0; round < 3; round++) {
      for (const { codec, ref } of codecs) expect(codec.encodeText(text)).toBe(referenceEncode(text, ref));
    }
  });

  it('dense text: encoded twice (the steps found, then kept) and as a stream cut anywhere (both paths), as the reference', () => {
    fc.assert(
      fc.property(
        fc.nat(SETS.length - 1),
        fc.nat(40),
        fc.array(fc.constantFrom(...pieces), { minLength: 8, maxLength: 80 }),
        fc.array(fc.nat(2000), { maxLength: 6 }),
        (k, pad, p, cuts) => {
          const terms = SETS[k]!;
          const codec = createCodec({ terms: termsOf(terms) });
          const s = `${'.'.repeat(64 + pad)}${p.join('')}`; // (past encodeText's short strings: the core)
          const want = referenceEncode(s, ref(terms));
          expect(codec.encodeText(s)).toBe(want);
          expect(codec.encodeText(s)).toBe(want);
          const input = bytes(message(s));
          const chunks = split(
            input,
            cuts.map((c) => c % input.length),
          );
          expect(transformChunks('encode', { terms: termsOf(terms) }, chunks)).toBe(message(want));
          // (the per-message path: a candidate cut off by a chunk's end is walked on in the next)
          expect(transformChunks('encode', { terms: termsOf(terms) }, chunks, { lines: false })).toBe(message(want));
        },
      ),
      runs(300),
    );
  });

  it('a descriptor written where another was is told apart by its serial, not its address', () => {
    // Tables of one size that decide 'ghij' apart: a match in one, walked on to 'ghijk' in the other.
    const a = compile(resolveOptions({ terms: { ascii: ['ghij', 'lwxyz'] } })).desc;
    const b = compile(resolveOptions({ terms: { ascii: ['ghijk', 'lwxy'] } })).desc;
    const text = bytes(`${'.'.repeat(20)}ghijk....ghij.${'.'.repeat(20)}`);
    const inp = allocate(text.length + 16);
    const out = allocate(8 * text.length);
    const records = (desc: number) => {
      heap().set(text, inp);
      core.scan(desc, inp, text.length, out, 1, MODE_BYTE_RECORDS);
      return Array.from(heap32().subarray(out >>> 2, (out >>> 2) + 2 * heap32()[(desc + D_MATCHES) >>> 2]!));
    };
    const at = a.ptr;
    const mine = heap().slice(at, at + DESCRIPTOR_SIZE);
    try {
      expect(records(at)).toEqual([20, 24, 29, 33]);
      // b's descriptor at a's address, as when a's block is freed and b placed there.
      heap().copyWithin(at, b.ptr, b.ptr + DESCRIPTOR_SIZE);
      expect(records(at)).toEqual([20, 25]);
      heap().set(mine, at);
      expect(records(at)).toEqual([20, 24, 29, 33]);
    } finally {
      // (a's descriptor as it was, whatever failed: the files after this one share the core)
      heap().set(mine, at);
      free(out, 8 * text.length);
      free(inp, text.length + 16);
    }
  });
});
