// UTF-8 inside JSON strings, checked 16 bytes at a time by the SIMD core: every byte sequence
// is accepted exactly when it is valid UTF-8, and a refusal names the first byte that cannot
// continue a valid prefix, wherever the sequence sits relative to the 16-byte blocks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { createDecodeStream, createEncodeStream, PayloadStreamError } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, run, split, text } from './stream-helpers.ts';
import { firstBadByte } from './utf8-reference.ts';

const codec = createCodec();
const range = (lo: number, hi: number) => fc.integer({ min: lo, max: hi }).map((b) => [b]);
const valid = fc.oneof(
  fc.constantFrom(...'aQwen 通义 阿里 😀 é'.split('').map((c) => [...bytes(c)])),
  fc
    .integer({ min: 0x80, max: 0x10ffff })
    .filter((c) => c < 0xd800 || c > 0xdfff)
    .map((c) => [...bytes(String.fromCodePoint(c))]),
  range(0x20, 0x7e).filter(([b]) => b !== 0x22 && b !== 0x5c),
);
// Whole-looking sequences that are not UTF-8 (a block check must see them), and cut-off ones.
const invalid = fc.oneof(
  fc.constantFrom<number[]>(
    [0xed, 0xa0, 0x80],
    [0xed, 0xbf, 0xbf],
    [0xe0, 0x80, 0x80],
    [0xe0, 0x9f, 0xbf],
    [0xc0, 0x80],
    [0xc1, 0xbf],
    [0xf0, 0x8f, 0xbf, 0xbf],
    [0xf4, 0x90, 0x80, 0x80],
    [0xf5, 0x80, 0x80, 0x80],
    [0xff],
  ),
  range(0x80, 0xbf), // stray continuation
  range(0xc2, 0xf4), // a lead cut off
  fc.constantFrom<number[]>([0xe4, 0xb8], [0xf0, 0x9f, 0x98]),
);
/** Mostly valid text, after a pad that moves it across the 16-byte blocks, with at most one bad sequence. */
const content = fc.tuple(fc.nat(40), fc.array(valid, { maxLength: 40 }), fc.option(invalid), fc.nat()).map(([pad, ps, bad, at]) => {
  // A new array: fast-check shrinks from the generated one, which must stay as it was.
  const k = at % (ps.length + 1);
  const seq = bad ? [...ps.slice(0, k), bad, ...ps.slice(k)] : ps;
  return new Array<number>(pad).fill(0x78).concat(seq.flat());
});

describe('UTF-8 in JSON strings', () => {
  for (const [name, make] of [
    ['encode', createEncodeStream],
    ['decode', createDecodeStream],
  ] as const) {
    it(`${name}: accepts exactly the valid sequences and names the first bad byte`, async () => {
      await fc.assert(
        fc.asyncProperty(content, fc.boolean(), fc.array(fc.nat(200), { maxLength: 3 }), async (s, payload, cuts) => {
          const head = bytes(payload ? '{"jsonrpc":"2.0","id":1,"result":{"k":"' : '{"jsonrpc":"2.0","id":1,"method":"');
          const input = new Uint8Array([...head, ...s, ...bytes(payload ? '"}}\n' : '"}\n')]);
          const bad = firstBadByte(s);
          const out = await run(make(), split(input, cuts)).then(
            (o) => o,
            (e: unknown) => e,
          );
          if (bad < 0) {
            expect(out).toBeInstanceOf(Uint8Array);
            const m = JSON.parse(text(input));
            expect(JSON.parse(text(out as Uint8Array))).toEqual(name === 'encode' ? codec.encodeMessage(m) : codec.decodeMessage(m));
          } else {
            expect(out).toBeInstanceOf(PayloadStreamError);
            expect(out).toMatchObject({ reason: 'invalid UTF-8', messageNumber: 1, byteOffset: head.length + bad });
          }
        }),
        runs(400),
      );
    });
  }
});
