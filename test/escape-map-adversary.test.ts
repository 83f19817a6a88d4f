// Adversarial checks of the escape map (assembly/json/windows.ts `advance`, indexed.ts
// `decodeText`): the indexed path writes matches by jumping from escape to escape, the byte path
// (hooks.indexedPath(0)) searches the raw bytes. Strings built unit by unit, each character written
// raw or escaped every way JSON allows (short escapes, \u in either hex case, pairs with halves
// in mixed case), plus lone halves, a high half before a non-low \u or a short escape; matches and
// tokens (tokens themselves written with escapes) right before, after and between escapes;
// several strings per message (keys, values, data: URIs, tool schemas) so the map must not leak
// from one to the next; custom terms holding characters JSON escapes; NFKC and ASCII folding;
// and strings with 1,022 to 1,026 map entries (the map holds 1,024).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createByteTransformer, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { describeError } from './ndjson-scenarios.ts';
import { bytes } from './stream-helpers.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

const hex4 = (u: number, upper: boolean) => {
  const h = u.toString(16).padStart(4, '0');
  return upper ? h.toUpperCase() : h;
};
const SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** JSON text for one character: raw (where allowed), its short escape, or \u escapes (hex case per half). */
function writeChar(ch: string, how: number): string {
  const cp = ch.codePointAt(0)!;
  const mustEscape = cp < 0x20 || ch === '"' || ch === '\\';
  const way = how % 4;
  if (way === 0 && !mustEscape) return ch;
  if (way === 1 && SHORT[ch]) return SHORT[ch];
  if (cp < 0x10000) return `\\u${hex4(cp, way === 3)}`;
  const hi = 0xd800 + ((cp - 0x10000) >> 10);
  const lo = 0xdc00 + ((cp - 0x10000) & 0x3ff);
  return `\\u${hex4(hi, (how & 4) !== 0)}\\u${hex4(lo, (how & 8) !== 0)}`;
}
const writeText = (s: string, hows: number[]) => [...s].map((ch, i) => writeChar(ch, hows[i % hows.length]!)).join('');

/** Token (default prefix and suffix) for a term, in lower or upper hex. */
const tokenOf = (term: string, upper: boolean) => {
  const h = Buffer.from(term).toString('hex');
  return `__mcp_ref_${upper ? h.toUpperCase() : h}__`;
};

// The characters a string is made of: term letters, everything JSON escapes, multi-byte text,
// lookalikes NFKC folds (fullwidth, a ligature), and the characters of the custom terms below.
const chars = [
  'Q',
  'w',
  'e',
  'n',
  'q',
  'W',
  'x',
  'a',
  ' ',
  '/',
  '"',
  '\\',
  '\n',
  '\t',
  '\b',
  '\f',
  '\r',
  '\u0001',
  'é',
  '中',
  '😀',
  'Ｑ',
  'ﬁ',
  '℡',
  '㎏',
  'i',
  '_',
];
// (Some start or end with a character JSON escapes: a match then starts or ends right at an escape.)
const terms = ['Qwen', 'a/b', 'x"y', 'c\\d', 'l\nm', '😀Q', 'é中', 'ﬁx', 'Ｑwen', '/Q', '"w', '\\e', '\nQ', 'n\t', 'x/', 'ix', 'el'];
// (NFKC refuses terms with a composed character such as é.)
const nfkcTerms = terms.filter((t) => t !== 'é中');
// Raw escape sequences that are no character's writing: lone halves, a high half before a
// non-low \u or a short escape, two high halves, a pair after a high half.
const oddities = [
  '\\ud800',
  '\\uDC00',
  '\\uD800\\u0041',
  '\\ud83d\\n',
  '\\uDBFF\\uDFFF',
  '\\ud800\\ud800\\udc00',
  '\\uD83D\\uDE00',
  '\\ud83d\\u005C',
];

const unit = (decoding: boolean) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...chars), fc.nat(15)).map(([c, h]) => writeChar(c, h)) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...terms), fc.array(fc.nat(15), { minLength: 1, maxLength: 6 })).map(([t, h]) => writeText(t, h)),
    },
    { weight: 1, arbitrary: fc.constantFrom(...oddities) },
    {
      weight: decoding ? 3 : 0,
      arbitrary: fc
        .tuple(fc.constantFrom(...terms), fc.boolean(), fc.array(fc.nat(15), { minLength: 1, maxLength: 6 }))
        .map(([t, upper, h]) => writeText(tokenOf(t, upper), h)),
    },
  );
const jsonString = (decoding: boolean) => fc.array(unit(decoding), { maxLength: 24 }).map((u) => `"${u.join('')}"`);

// A message with several strings: keys, values, a data: URI, a tool schema, content items.
const message = (decoding: boolean) => {
  const s = jsonString(decoding);
  return fc
    .tuple(s, s, s, s, s, fc.constantFrom('text/plain', 'image/png'), fc.nat(3))
    .map(
      ([k, v, w, t, name, mime, shape]) =>
        [
          `{"jsonrpc":"2.0","id":1,"result":{${k}:${v},"list":[${w},${t}],${name}:{${k}:${w}}}}`,
          `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":${v}},{"type":"resource","resource":{"uri":${w},"text":${t}}}],"x":"data:${mime};base64,UXdlbg==","y":${k}}}`,
          `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":${name},"description":${v},"inputSchema":{"type":"object","properties":{${k}:{"type":"string","description":${t},"maxLength":12}}}}]}}`,
          `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${v},"progress":1,"message":${w},${k}:${t}}}`,
        ][shape]!,
    );
};

const codecs: StreamOptions[] = [
  {},
  { fold: 'nfkc' },
  { terms: { exact: terms } },
  { terms: { exact: nfkcTerms }, fold: 'nfkc' },
  { terms: { ascii: ['Qwen', 'a/b', 'x"y', 'c\\d', '/q', '"W'], exact: ['l\nm', '😀Q', 'é中', '\nQ', 'n\t'] } },
];

/** Output (hex) and callbacks or error of one message through a fresh stream, in one chunk. */
function run(mode: 'encode' | 'decode', codec: StreamOptions, input: Uint8Array): unknown[] {
  const log: unknown[] = [];
  const t = createByteTransformer(
    mode,
    {
      ...codec,
      onInvalidMessage: (e) => void log.push(['invalid', ...describeError(e)]),
      onCollision: (e) => void log.push(['dropped', ...describeError(e)]),
    },
    (b) => void log.push(Buffer.from(b).toString('hex')),
  );
  try {
    t.push(input);
    t.close();
  } catch (e) {
    log.push(['threw', ...describeError(e)]);
  }
  return log;
}

/** Runs on the indexed path and on the byte path; returns whether the indexed path took it. */
function agree(mode: 'encode' | 'decode', codec: StreamOptions, input: Uint8Array): boolean {
  const before = hooks.indexedPath(1);
  const on = run(mode, codec, input);
  const taken = hooks.indexedPath(0) > before;
  expect(on).toEqual(run(mode, codec, input));
  hooks.indexedPath(1);
  return taken;
}

describe('the escape map, adversarially', () => {
  it('writes messages with escapes of every kind around matches and tokens as the byte path does', () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc
          .constantFrom('encode' as const, 'decode' as const)
          .chain((mode) =>
            fc.tuple(fc.constant(mode), fc.array(message(mode === 'decode'), { minLength: 1, maxLength: 3 }), fc.nat(codecs.length - 1)),
          ),
        ([mode, messages, c]) => {
          if (agree(mode, codecs[c]!, bytes(messages.map((m) => `${m}\n`).join('')))) taken++;
        },
      ),
      runs(300),
    );
    expect(taken).toBeGreaterThan(0); // (the indexed path did take messages)
  });

  it('writes strings with exactly 1,022 to 1,026 map entries as the byte path does, matches on either side of the edge', () => {
    // Each unit is `x` (or a match) and one escape of a kind worth one entry (a pair is one; a
    // lone high half before `x` or a match one); a match written escaped adds one entry per
    // character. The string has exactly `entries` entries (the map holds 1,024), with matches
    // (or tokens) just before the last escapes and one after the last.
    const kinds = fc.constantFrom('\\n', '\\"', '\\/', '\\u00E9', '\\uD83D\\uDE00', '\\ud83d', '\\uDC00', '\\u4e2d', '\\\\', '\\t');
    fc.assert(
      fc.property(
        fc.integer({ min: 1022, max: 1026 }),
        fc.array(kinds, { minLength: 1, maxLength: 3 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 3 }), { minLength: 0, maxLength: 3 }),
        fc.constantFrom('encode' as const, 'decode' as const),
        fc.nat(codecs.length - 1),
        fc.nat(15),
        (entries, ks, before, mode, c, how) => {
          const plain = mode === 'encode' ? 'Qwen' : tokenOf('Qwen', how > 7);
          const word = writeText(plain, [how]);
          const wordEntries = how % 4 === 0 ? 0 : plain.length;
          const count = entries - wordEntries * (before.length + 1);
          const at = new Set(before.map((d) => count - d));
          const parts: string[] = [];
          for (let k = 0; k < count; k++) parts.push(`${at.has(k) ? word : 'x'}${ks[k % ks.length]}`);
          const big = `"${parts.join('')}${word}"`;
          // A second string after it, with few escapes and a match: nothing of the first map may leak into it.
          const after = `"${writeText('Qwen', [how + 1])}\\n${word}"`;
          const input = bytes(`{"jsonrpc":"2.0","id":1,"result":{"text":${big},"more":${after}}}\n`);
          expect(agree(mode, codecs[c]!, input)).toBe(true);
        },
      ),
      runs(60),
    );
  });
});
