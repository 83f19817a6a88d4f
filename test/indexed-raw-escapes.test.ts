// Strings whose escapes are all short ones other than `\/` matched (or token-decoded) on their raw
// bytes by the indexed path (assembly/json/indexed-text.ts readString, with stage 1's
// structural.ts gOtherEscapes and the codec's D_RAW_ESCAPES), against the byte path
// (hooks.indexedPath(0)), which decodes every string. What must hold it there: a term or token
// that starts at an escape's letter (`\tongyi`: decoded after all; `\\tongyi`: not), any other
// escape (`\/`, `\u`, one not valid) before or after in the message, codecs whose terms, prefix
// or suffix hold what an escape stands for (not raw at all; each such byte alone too), a data:
// URI whose '/' is written `\/` (a whole one decoded, not raw), escapes at every byte of a
// block, and a message over the lines region cut into pieces.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { LINES } from '../src/stream/core-regions.ts';
import type { StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { B } from './hostile-lines.ts';
import { indexedTrace } from './indexed-trace.ts';
import { outputAppender } from './ndjson-scenarios.ts';
import { withoutStacks } from './no-stacks.ts';
import { expectEqual } from './quick-expect.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

type Mode = 'encode' | 'decode';
const hexOf = (s: string) => Buffer.from(s).toString('hex');
// Terms that start with an escape's letter (t, n, r, b, f), as the default's `tongyi` does.
const LETTER_TERMS: StreamOptions = { terms: { ascii: ['tongyi', 'nqwen', 'rtx', 'bot', 'fox', 'qwen'], exact: ['通义'] } };
// A prefix that starts with one: a token may start at `\t`'s letter.
const LETTER_PREFIX: StreamOptions = { prefix: 'tref_', suffix: '_' };
// Terms that hold what escapes stand for: no string is matched raw. (A prefix or suffix holds
// none: createCodec takes printable ASCII without quotes or backslashes.)
const ESCAPED_TERMS: StreamOptions = { terms: { ascii: ['qwen', 'x"y'], exact: ['l\nm', 'tab\tq'] } };

const tokenIn = (codec: StreamOptions, term: string) => `${codec.prefix ?? '__mcp_ref_'}${hexOf(term)}${codec.suffix ?? '__'}`;
/** A string's JSON text for `s` (quotes and backslashes escaped, as the pieces below are). */
const json = (s: string) => JSON.stringify(s).slice(1, -1);

/** The pieces of a string's JSON text under `codec`: short escapes, terms and tokens right after them, the other escapes now and then. */
const piece = (codec: StreamOptions) => {
  const terms = [...(codec.terms?.ascii ?? ['tongyi', 'taobao', 'bailian', 'qwen']), ...(codec.terms?.exact ?? ['通义'])];
  const term = fc.constantFrom(...terms).map(json);
  const token = fc.constantFrom(...terms).map((t) => json(tokenIn(codec, t)));
  const short = fc.constantFrom('\\"', '\\\\', '\\n', '\\t', '\\r', '\\b', '\\f');
  return fc.oneof(
    { weight: 4, arbitrary: short },
    { weight: 3, arbitrary: fc.tuple(short, fc.oneof(term, token)).map(([e, t]) => e + t) },
    { weight: 3, arbitrary: fc.oneof(term, token) },
    // An escape's letter before a term's rest: `\t` + `ongyi`, `\n` + `ref_...`.
    {
      weight: 2,
      arbitrary: fc
        .oneof(term, token)
        .map((t) => `\\${t}`)
        .filter((t) => /^\\[bfnrt]/.test(t)),
    },
    // (The other escapes: a term, a token spelt with `\u`.)
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '\\/',
        '\\u0041',
        '\\u0074ongyi',
        '\\u901a\\u4e49',
        '\\x',
        `\\u005f${json(tokenIn(codec, 'qwen')).slice(1)}`,
      ),
    },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 70 }).map((n) => 'abcdefghij klmnopqrstuvwxyz 0123456789 通义千问 AB'.slice(0, n)) },
  );
};

// (The body as a key too on even pads: decoding, a key it changes goes to the host.)
const message = (pad: number, body: string, key = 'text') =>
  `{"jsonrpc":"2.0","id":1,"result":{"p":"${'q'.repeat(pad)}","${key}":"${body}","list":["${body}",{"${pad % 2 ? 'k' : body}":"${body}"}]}}`;

/** The stream's trace of `input` (indexedTrace), its errors without stacks, and how many strings it read raw and decoded after all. */
function traced(mode: Mode, codec: StreamOptions, input: Uint8Array, indexed: boolean) {
  const raw = hooks.rawStrings();
  const decoded = hooks.rawDecoded();
  const t = withoutStacks(() => indexedTrace(mode, input, codec, indexed, outputAppender));
  return { ...t, raw: hooks.rawStrings() - raw, decoded: hooks.rawDecoded() - decoded };
}
/** Holds the line's trace to the byte path's; returns the indexed path's counts. */
function agree(mode: Mode, codec: StreamOptions, line: string) {
  const input = B(`${line}\n`);
  const on = traced(mode, codec, input, true);
  expectEqual(traced(mode, codec, input, false).log, on.log);
  return on;
}

describe('strings with short escapes read raw agree with the byte path', () => {
  for (const [name, codec] of [
    ['the default codec', {}],
    ['terms that start with an escape letter', LETTER_TERMS],
    ['a prefix that starts with one', LETTER_PREFIX],
    ["fold: 'nfkc'", { fold: 'nfkc' }],
  ] as [string, StreamOptions][])
    for (const mode of ['encode', 'decode'] as const)
      it(`${mode}, ${name}: pieces across blocks, other escapes now and then`, () => {
        let raw = 0;
        let decoded = 0;
        let taken = 0;
        fc.assert(
          fc.property(fc.integer({ min: 0, max: 130 }), fc.array(piece(codec), { minLength: 1, maxLength: 40 }), (pad, pieces) => {
            const on = agree(mode, codec, message(pad, pieces.join('')));
            raw += on.raw;
            decoded += on.decoded;
            taken += on.taken;
          }),
          runs(120),
        );
        // (Both ways through matchText are taken, and most lines by the indexed path.)
        expect(taken).toBeGreaterThan(mode === 'encode' ? 90 : 40);
        expect(raw).toBeGreaterThan(100);
        if (mode === 'encode' || codec === LETTER_PREFIX) expect(decoded).toBeGreaterThan(5);
      });

  it('terms that hold what an escape stands for: agree, and no string is read raw encoding', () => {
    let raw = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 70 }), fc.array(piece(ESCAPED_TERMS), { minLength: 1, maxLength: 30 }), (pad, pieces) => {
        raw += agree('encode', ESCAPED_TERMS, message(pad, `${pieces.join('')} l\\nm tab\\tq x\\"y`)).raw;
      }),
      runs(60),
    );
    expect(raw).toBe(0);
  });
});

describe('what stops a string being read raw, one thing at a time', () => {
  // Each byte a short escape stands for, alone in a codec's terms: each must turn
  // D_RAW_ESCAPES off (ESCAPED_TERMS above holds three at once, and misses a list that
  // forgot the others).
  for (const c of ['"', '\\', '\b', '\f', '\n', '\r', '\t'])
    it(`a term that holds ${JSON.stringify(c)}: agree, and no string is read raw encoding`, () => {
      const codec: StreamOptions = { terms: { ascii: ['qwen', 'tongyi'], exact: [`k${c}`, `${c}m`, `x${c}y`] } };
      let raw = 0;
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 70 }), fc.array(piece(codec), { minLength: 1, maxLength: 20 }), (pad, pieces) => {
          raw += agree('encode', codec, message(pad, `${pieces.join('')} ${json(`k${c} ${c}m x${c}y`)}`)).raw;
        }),
        runs(40),
      );
      expect(raw).toBe(0);
    });

  // A whole base64 data: URI is one decoded, its base64 kept; with a `\/` its raw bytes are
  // not one, so `\/` must send the string to be decoded (as a term holding '/' needs).
  const slash = fc.constantFrom('/', '/', '\\/');
  const uri = fc
    .tuple(
      fc.constantFrom('image', 'qwen'),
      slash,
      fc.constantFrom(';base64,', ';BASE64,', ','),
      fc.array(fc.tuple(fc.constantFrom('qwen', 'QWEN', 'AAAA', '+', 'a', '_', '-'), slash), { maxLength: 6 }),
      fc.constantFrom('', '=', '==', '\\/', '\\n', '\\t'),
    )
    .map(([type, sep, header, parts, end]) => `data:${type}${sep}png${header}${parts.map(([a, b]) => a + b).join('')}${end}`);
  for (const [name, codec] of [
    ['the default codec', {}],
    ["terms that hold '/'", { terms: { ascii: ['qwen', 'a/b', 'png/', '/x'] } }],
  ] as [string, StreamOptions][])
    for (const mode of ['encode', 'decode'] as const)
      it(`${mode}, ${name}: data: URIs whose '/' are written \\/ now and then`, () => {
        fc.assert(
          fc.property(fc.integer({ min: 0, max: 70 }), uri, (pad, body) => void agree(mode, codec, message(pad, body))),
          runs(60),
        );
      });
});

describe('an escape at every byte of a block', () => {
  const ESCAPES = ['\\"', '\\\\', '\\n', '\\t', '\\r', '\\b', '\\f', '\\/', '\\u0074', '\\x'];
  it('before a term or a token, its letter starting one or not, in values and keys, both modes', () => {
    for (const esc of ESCAPES)
      for (let at = 0; at < 64; at++)
        for (const mode of ['encode', 'decode'] as const) {
          const codec = mode === 'encode' ? {} : LETTER_PREFIX;
          const after = mode === 'encode' ? 'ongyi tongyi' : json(`ref_${hexOf('qwen')}_ ${tokenIn(codec, 'qwen')}`);
          agree(mode, codec, message(at, `${esc}${after}`));
          agree(mode, codec, message(at, `x${esc}${after}`, `k${esc}`));
        }
  });

  it("a term at an escape's letter is decoded after all; after an escaped backslash it is a match in the raw bytes", () => {
    const cases: [string, number][] = [
      ['\\tongyi', 1], // decoded: a tab, then `ongyi` (no match)
      ['\\\\tongyi', 0], // a backslash, then `tongyi`: matched raw
      ['\\\\\\tongyi', 1],
      ['\\\\\\\\tongyi', 0],
      ['x\\ntongyi', 0],
    ];
    for (const [body, decodedAfterAll] of cases)
      for (let pad = 0; pad < 20; pad++) {
        const line = `{"jsonrpc":"2.0","id":1,"result":{"p":"${'q'.repeat(pad)}","text":"${body}"}}`;
        const on = agree('encode', {}, line);
        expectEqual({ body, pad, raw: on.raw, decoded: on.decoded }, { body, pad, raw: 1, decoded: decodedAfterAll });
      }
  });

  it('no string is read raw from the block of another escape on', () => {
    // (Stage 1 flags the message from the block where it meets one: strings before it, raw.)
    const far = 'a'.repeat(200);
    for (const other of ['\\/', '\\u0041', '\\uD83D\\uDE00'])
      for (const mode of ['encode', 'decode'] as const) {
        const line = `{"jsonrpc":"2.0","id":1,"result":{"a":"x\\ntongyi","b":"${far}","c":"${other}tongyi","d":"\\ttongyi"}}`;
        const on = agree(mode, {}, line);
        expectEqual({ other, mode, raw: on.raw }, { other, mode, raw: 1 });
      }
  });
});

describe('a message over the lines region', () => {
  /** Its trace pushed in pieces cut at `cuts`, the indexed path on. */
  const cutTrace = (mode: Mode, input: Uint8Array, cuts: number[]) =>
    withoutStacks(() => indexedTrace(mode, input, {}, true, outputAppender, true, cuts)).log;

  it('JSON quoted in text, terms after escapes, whole and cut, as the byte path writes it', () => {
    const entry = (k: number) =>
      json(
        `{"name":"Qwen ${k}","path":"/a/tongyi/${k}"}\n${k % 50 === 49 ? '\t' : ' '}tongyi\r\n${k % 3 ? '\\' : ''}taobao 通义千问 ${tokenIn({}, 'qwen')}`,
      );
    const body = Array.from({ length: 200 }, (_, k) => entry(k)).join(' ');
    for (const mode of ['encode', 'decode'] as const) {
      const input = B(`${message(5, body)}\n${message(1, body.slice(0, 3000))}\n`); // (a tab before a term in the first only)
      expect(input.length).toBeGreaterThan(LINES);
      const off = traced(mode, {}, input, false).log;
      const on = traced(mode, {}, input, true);
      expect(on.log).toEqual(off);
      expect(on.taken).toBe(2);
      expect(on.raw).toBeGreaterThan(0);
      for (let c = 1; c < input.length; c += c < 200 ? 7 : 1999) expectEqual(cutTrace(mode, input, [c]), off);
    }
  });
});
