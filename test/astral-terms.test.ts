// Terms holding characters past U+FFFF, at the edges of the surrogate ranges (U+10000 is
// \uD800\uDC00, U+103FF \uD800\uDFFF, U+1F7FF \uD83D\uDFFF, U+10FFFF \uDBFF\uDFFF), against the
// reference: through the object API, and through the streams with the characters written raw
// or as \u pairs in either hex case, on the indexed path and on the byte path. The default
// terms hold no such character, so nothing else compares a pair's halves at their edges.
import fc from 'fast-check';
import { afterEach, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { type ReferenceOptions, referenceDecode, referenceEncode } from './reference.ts';
import { bytes, split, transformChunks } from './stream-helpers.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

const EDGES = ['\u{10000}', '\u{103FF}', '\u{1F7FF}', '\u{10FFFF}'];
// Their neighbours: one unit either side of a range (U+FFFF, U+E000, U+10400, U+1F800, U+D7FF).
const NEAR = ['\uFFFF', '\uE000', '\u{10400}', '\u{1F800}', '\u{1F7FE}', '\u{10FFFE}', '\uD7FF'];
// (No hex digit alone: a term that could appear inside a token is refused; none of the
// letters of the keys written below.)
const OTHER = ['y', 'Z', '中', 'é', ' '];

const term = fc
  .array(fc.oneof(fc.constantFrom(...EDGES), fc.constantFrom(...NEAR, ...OTHER)), { minLength: 1, maxLength: 3 })
  .map((a) => a.join(''));
const termSet = fc.uniqueArray(term, { minLength: 1, maxLength: 4 });
const textOf = (terms: string[]) =>
  fc.array(fc.oneof(fc.constantFrom(...terms), fc.constantFrom(...EDGES, ...NEAR, ...OTHER)), { maxLength: 12 }).map((a) => a.join(''));

const hex4 = (u: number, upper: boolean) => (upper ? u.toString(16).toUpperCase() : u.toString(16)).padStart(4, '0');

/** A JSON string for s: each character past U+FFFF raw or as a \u pair, each half in either hex case. */
function spell(s: string, hows: number[]): string {
  let k = 0;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const how = hows[k++ % hows.length]!;
    if (cp < 0x10000 || how % 3 === 0) out += ch;
    else {
      const hi = 0xd800 + ((cp - 0x10000) >> 10);
      const lo = 0xdc00 + ((cp - 0x10000) & 0x3ff);
      out += `\\u${hex4(hi, (how & 4) !== 0)}\\u${hex4(lo, (how & 8) !== 0)}`;
    }
  }
  return `${out}"`;
}

it('terms with characters at the surrogate ranges’ edges match as the reference says, raw or escaped, on either path', () => {
  let taken = 0;
  fc.assert(
    fc.property(
      termSet.chain((terms) =>
        fc.tuple(
          fc.constant(terms),
          fc.array(textOf(terms), { minLength: 1, maxLength: 4 }),
          fc.array(fc.nat(15), { minLength: 1, maxLength: 12 }),
        ),
      ),
      fc.array(fc.nat(600), { maxLength: 4 }),
      ([exact, texts, hows], cuts) => {
        const ref: ReferenceOptions = { prefix: '__mcp_ref_', suffix: '__', upper: false, terms: { ascii: [], exact, pairs: [] } };
        const options = { terms: { exact } };
        const codec = createCodec(options);
        for (const s of texts) {
          expect(codec.encodeText(s)).toBe(referenceEncode(s, ref));
          expect(codec.decodeText(referenceEncode(s, ref))).toBe(s);
        }
        // A value and a key of each message, spelled as written above.
        const input = texts
          .map((s) => `{"jsonrpc":"2.0","id":1,"result":{"text":${spell(s, hows)},"k":{${spell(s, [...hows].reverse())}:0}}}\n`)
          .join('');
        const want = texts.map((s) => ({
          jsonrpc: '2.0',
          id: 1,
          result: { text: referenceEncode(s, ref), k: { [referenceEncode(s, ref)]: 0 } },
        }));
        const lines = (out: string) =>
          out
            .split('\n')
            .slice(0, -1)
            .map((l) => JSON.parse(l) as unknown);
        for (const indexed of [1, 0]) {
          const before = hooks.indexedPath(indexed);
          const encoded = transformChunks('encode', options, split(bytes(input), cuts));
          if (indexed) taken += hooks.indexedPath(1) - before;
          expect(lines(encoded)).toEqual(want);
          // Decoding the encoded stream gives the texts back (its tokens are the reference's).
          const decoded = lines(transformChunks('decode', options, split(bytes(encoded), cuts)));
          expect(decoded.map((m) => (m as { result: { text: string } }).result.text)).toEqual(
            texts.map((s) => referenceDecode(referenceEncode(s, ref), ref)),
          );
          // Framed by Content-Length, whole.
          const framed = texts.map((s) => {
            const body = `{"jsonrpc":"2.0","id":1,"result":{"text":${spell(s, hows)}}}`;
            return `Content-Length: ${bytes(body).length}\r\n\r\n${body}`;
          });
          const out = transformChunks('encode', { ...options, framing: 'content-length' }, split(bytes(framed.join('')), cuts));
          const bodies = out
            .split(/Content-Length: \d+\r\n\r\n/)
            .slice(1)
            .map((b) => (JSON.parse(b) as { result: { text: string } }).result.text);
          expect(bodies).toEqual(texts.map((s) => referenceEncode(s, ref)));
        }
      },
    ),
    runs(100),
  );
  expect(taken).toBeGreaterThan(0); // (the indexed path did take messages)
});
