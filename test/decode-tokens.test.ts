// Token validation on every decode path. Text is built from token fragments, valid and not
// (odd hex, hex that is not UTF-8, overlongs, surrogates, empty hex, truncated tokens, the
// prefix in any case, the other format's prefix), and the streams are held to the object API:
// JSON.parse(stream output) deep-equals decodeMessage(JSON.parse(input)), in every framing,
// both wire formats, any chunking, tokens split by JSON escapes. decodeText is held to the
// plain reference (test/reference.ts), so the object API cannot drift with the streams.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CodecOptions, createCodec, PayloadKeyCollisionError } from '../src/index.ts';
import { createDecodeStream, type Framing } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { type ReferenceOptions, referenceDecode } from './reference.ts';
import { CUA_DRIVER, MOBILE_MCP } from './reference-options.ts';
import { bytes, choices, oneByteChunks, run, split, text, writeJson } from './stream-helpers.ts';

const FORMATS: [string, CodecOptions, ReferenceOptions, string][] = [
  ['default', {}, MOBILE_MCP, '__cuaf_'],
  ['cua-driver', { prefix: '__cuaf_', hexCase: 'upper' }, CUA_DRIVER, '__mcp_ref_'],
];
const FRAMINGS: Framing[] = ['ndjson', 'content-length', 'sse'];

/** One JSON body in a framing. JSON whitespace may hold '\r', an SSE line end: each piece is a data line. */
function frame(framing: Framing, body: string): string {
  if (framing === 'ndjson') return `${body}\n`;
  if (framing === 'content-length') return `Content-Length: ${bytes(body).length}\r\n\r\n${body}`;
  return (
    body
      .split('\r')
      .map((line) => `data: ${line}\n`)
      .join('') + '\n'
  );
}

/** The JSON bodies of a stream's output. */
function bodies(framing: Framing, out: Uint8Array): string[] {
  if (framing === 'ndjson')
    return text(out)
      .split('\n')
      .filter((l) => l !== '');
  if (framing === 'sse') {
    return text(out)
      .split('\n\n')
      .map((event) =>
        event
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, '')),
      )
      .filter((lines) => lines.length > 0)
      .map((lines) => lines.join('\n'));
  }
  const found: string[] = [];
  let at = 0;
  const ascii = new TextDecoder('latin1');
  while (at < out.length) {
    const head = ascii.decode(out.subarray(at)).indexOf('\r\n\r\n');
    const length = Number(/Content-Length: (\d+)/.exec(ascii.decode(out.subarray(at, at + head)))![1]);
    found.push(text(out.subarray(at + head + 4, at + head + 4 + length)));
    at += head + 4 + length;
  }
  return found;
}

const anyCase = (s: string) =>
  fc
    .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
    .map((up) => [...s].map((c, i) => (up[i] ? c.toUpperCase() : c.toLowerCase())).join(''));
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
// Byte sequences that are not UTF-8: a lone high byte, stray continuations, overlongs, surrogates,
// past U+10FFFF, cut-off sequences; and the same after a valid character.
const NOT_UTF8 = [
  'ff',
  '80',
  'bf',
  'c0af',
  'c1bf',
  'e08080',
  'e09fbf',
  'eda080',
  'edbfbf',
  'f08f8080',
  'f4908080',
  'f5808080',
  'e4b8',
  'f09f98',
  'c3',
  '71ff',
  '71c0af',
  'e4b8ad80',
];
const smallText = fc.oneof(
  fc.constantFrom('q', 'Qwen', '阿里', '😀', 'é', '"', '\\', '\n', '\u0000', '/', ' '),
  fc.string({ unit: 'grapheme', maxLength: 3 }),
);

/** Fragments of tokens of one format: valid ones and each way a token can fail. */
function fragment(prefix: string, suffix: string, otherPrefix: string) {
  const hexOf = (h: string) => anyCase(h);
  const validHex = smallText.filter((s) => s.length > 0).map((s) => hex(bytes(s)));
  const token = (h: fc.Arbitrary<string>) => fc.tuple(anyCase(prefix), h.chain(hexOf)).map(([p, h2]) => p + h2 + suffix);
  return fc.oneof(
    { weight: 4, arbitrary: token(validHex) },
    token(validHex.map((h) => h + 'a')), // odd: one digit too many
    token(validHex.map((h) => h.slice(0, -1))), // odd: one digit short
    token(fc.constantFrom(...NOT_UTF8)),
    token(fc.constantFrom('', '7', '717', 'zz', '7g', 'g7')),
    token(validHex).chain((t) => fc.nat(t.length).map((k) => t.slice(0, k))), // truncated
    fc.tuple(anyCase(otherPrefix), validHex).map(([p, h]) => p + h + suffix),
    // A near miss: the prefix with one character changed (a check of its first bytes only passes it).
    fc
      .tuple(fc.nat(prefix.length - 1), fc.constantFrom('-', 'x', '0', '_'), validHex)
      .map(([k, c, h]) => prefix.slice(0, k) + (prefix[k] === c ? '.' : c) + prefix.slice(k + 1) + h + suffix),
    fc.constantFrom(prefix, suffix, '_', '__', '7', '1', 'F', 'a', 'e', 'q', ' ', '中', '\uD800', '-'),
  );
}

const textOf = (prefix: string, suffix: string, other: string) =>
  fc.array(fragment(prefix, suffix, other), { maxLength: 6 }).map((a) => a.join(''));

describe.each(FORMATS)('decoding tokens, %s format', (_name, options, ref, otherPrefix) => {
  const codec = createCodec(options);
  const s = textOf(ref.prefix, ref.suffix, otherPrefix);

  it('decodeText is the reference, and decodeValue applies it to every key and string', () => {
    fc.assert(
      fc.property(s, s, (a, b) => {
        const da = referenceDecode(a, ref);
        expect(codec.decodeText(a)).toBe(da);
        expect(codec.decodeValue([a, { k: [a, 1, null] }])).toEqual([da, { k: [da, 1, null] }]);
        const db = referenceDecode(b, ref);
        let expected: unknown;
        if (da === db && a !== b) expected = PayloadKeyCollisionError;
        else expected = a === b ? { [da]: 2 } : { [da]: 1, [db]: 2 };
        const got = (() => {
          try {
            return codec.decodeValue({ [a]: 1, [b]: 2 });
          } catch (e) {
            return (e as Error).constructor;
          }
        })();
        expect(got).toEqual(expected);
      }),
      runs(300),
    );
  });

  const message = fc
    .tuple(fc.dictionary(s, fc.oneof(s, fc.array(s, { maxLength: 3 })), { maxKeys: 3 }), s, fc.boolean(), fc.nat(1000))
    .map(([params, value, request, id]) =>
      request
        ? { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x', arguments: params, [value]: value } }
        : { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: value }], structured: params } },
    );

  for (const framing of FRAMINGS) {
    it(`the ${framing} decode stream means what decodeMessage means`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(message, choices), { minLength: 1, maxLength: 3 }),
          fc.array(fc.nat(2000), { maxLength: 6 }),
          async (items, cuts) => {
            const written = items.map(([m, c]) => writeJson(m, c)); // escapes (\u005f, \u0061...) split tokens
            const expected: unknown[] = [];
            for (const w of written) {
              try {
                expected.push(codec.decodeMessage(JSON.parse(w)));
              } catch (e) {
                expect(e).toBeInstanceOf(PayloadKeyCollisionError); // dropped by the stream too
              }
            }
            const input = bytes(written.map((w) => frame(framing, w)).join(''));
            const out = await run(createDecodeStream({ ...options, framing, onCollision: () => {} }), split(input, cuts));
            expect(bodies(framing, out).map((b) => JSON.parse(b))).toEqual(expected);
          },
        ),
        runs(100),
      );
    });
  }
});

// Each is invalid in its format: odd or no hex, not hex, bytes that are not UTF-8 (overlong,
// surrogate, past U+10FFFF, cut off), a cut-off suffix or prefix, the other format's prefix.
const INVALID = (p: string, other: string) => [
  ...[
    '7',
    '717',
    '7177656',
    'zz',
    '7g',
    'ff',
    'FF',
    'c0af',
    'C0AF',
    'c1bf',
    'eda080',
    'EDA080',
    'edbfbf',
    'e08080',
    'f08f8080',
    'f4908080',
    'F4908080',
    '80',
    'e4b8',
    'f09f98',
    '71ff',
    '',
    '71 ',
  ].map((h) => `${p}${h}__`),
  `${p}71_`,
  `${p}71`,
  `${p}71-_`,
  `${p.slice(0, -2)}x_71__`,
  `${p.slice(0, 2)}x${p.slice(3)}71__`,
  `${p.slice(0, -1)}-71__`,
  `${p.slice(0, -1)}71__`,
  `${p.slice(1)}`,
  `${p.toUpperCase()}7__`,
  `${p.toUpperCase()}FFFE__`,
  `${other}71__`,
];

describe.each(FORMATS)('invalid tokens stay literal on every decode path, %s format', (_name, options, ref, otherPrefix) => {
  const codec = createCodec(options);
  const list = INVALID(ref.prefix, otherPrefix);

  it('in strings, values and messages', () => {
    for (const t of list) {
      expect(referenceDecode(t, ref)).toBe(t); // (the list itself is right)
      for (const s of [t, `x${t}y`, `${t} ${t}`, `中${t}😀`]) {
        expect(codec.decodeText(s)).toBe(s);
        const value = { [s]: s, list: [s, { [s]: [s] }] };
        expect(codec.decodeValue(value)).toEqual(value);
        const m = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: s, arguments: value } };
        expect(codec.decodeMessage(m)).toEqual(m);
      }
    }
  });

  for (const framing of FRAMINGS) {
    it(`in ${framing} streams, byte for byte, whatever the chunks and escapes`, async () => {
      for (const t of list) {
        const m = { jsonrpc: '2.0', id: 1, result: { [t]: t, content: [{ type: 'text', text: `a${t}b` }] } };
        for (const c of [[0], [1, 2], [0, 0, 0, 1]]) {
          // writeJson escapes some characters as \uXXXX: the raw bytes must still come out as they came.
          const input = bytes(frame(framing, writeJson(m, c)));
          expect(text(await run(createDecodeStream({ ...options, framing }), [input]))).toBe(text(input));
          expect(text(await run(createDecodeStream({ ...options, framing }), oneByteChunks(input)))).toBe(text(input));
        }
      }
    });
  }
});
