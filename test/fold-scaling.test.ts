// fold 'nfkc': ignorables between the letters of a term are part of the match, however many
// there are (capping them would let a term through); one such match costs linear time, in
// encodeText and through the byte streams, however they are cut: a stream once walked the
// undecided candidate (`q` and every ignorable after it) again at every chunk, 0.69 -> 10.6 s
// for 0.79 -> 3.1 MB in 1 KiB chunks.
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { createByteTransformer, type Framing } from '../src/stream/index.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';
import { bytes } from './stream-helpers.ts';

describe("fold 'nfkc' on a term spread by ignorables", () => {
  const codec = createCodec({ fold: 'nfkc' });
  const spread = (n: number) => `q${'\u200B'.repeat(n)}wen`;

  it('is one token that decodes to the text, and 4x the ignorables cost about 4x', () => {
    const text = spread(1000);
    const encoded = codec.encodeText(text);
    expect(encoded.startsWith('__mcp_ref_71') && encoded.endsWith('656e__') && !encoded.includes('\u200B')).toBe(true);
    expect(codec.decodeText(encoded)).toBe(text);
    const run = (n: number) => () => void codec.encodeText(spread(n));
    expect(growth(run(100_000), run(400_000))).toBeLessThan(LINEAR_BOUND);
  });
});

// The framings as a server writes them (an SSE event typed before its data, as the SDK writes
// them). A line, body or event up to 256 KiB cut by a chunk's end is held until it ends and taken
// whole, so these are larger: what is cut goes through the string windows.
const FRAME: Record<Framing, (body: string) => string> = {
  ndjson: (b) => `${b}\n`,
  sse: (b) => `event: message\ndata: ${b}\n\n`,
  'content-length': (b) => `Content-Length: ${bytes(b).length}\r\n\r\n${b}`,
};
const SMALL = 300_000;

/** 4x the bytes of `unit` through an encode stream cost about 4x, fed in `chunk`-byte pieces. */
function streamGrowth(fold: 'nfkc' | 'ascii', framing: Framing, head: string, unit: string, rest: string, chunk: number): number {
  const repeat = Math.ceil(SMALL / bytes(unit).length);
  const input = (n: number) =>
    bytes(
      FRAME[framing](`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"see ${head}${unit.repeat(n)}${rest} now"}]}}`),
    );
  const run = (data: Uint8Array) => () => {
    const t = createByteTransformer('encode', { fold, framing }, () => {});
    for (let i = 0; i < data.length; i += chunk) t.push(data.subarray(i, i + chunk));
    t.close();
  };
  return growth(run(input(repeat)), run(input(4 * repeat)));
}

describe("fold 'nfkc' byte streams on a term's first letter, then ignorables", () => {
  // Each kind of default-ignorable, with and without the rest of the term: the candidate stays
  // undecided until the string ends.
  const IGNORABLES: [string, string][] = [
    ['U+200B', '\u200B'],
    ['U+00AD', '\u00AD'],
    ['U+FE0F', '\uFE0F'],
    ['U+E0041', '\u{E0041}'],
  ];
  for (const framing of ['ndjson', 'sse', 'content-length'] as const) {
    for (const [name, unit] of IGNORABLES) {
      for (const rest of ['', 'wen']) {
        it(`${framing}: Q, then ${name} x n${rest ? ', then wen' : ''}, in 1 KiB chunks`, () => {
          expect(streamGrowth('nfkc', framing, 'Q', unit, rest, 1024)).toBeLessThan(LINEAR_BOUND);
        });
      }
    }
  }

  // Escaped, the raw window holds six bytes per ignorable.
  for (const rest of ['', 'wen']) {
    it(`ndjson: Q, then U+200B written \\u200b x n${rest ? ', then wen' : ''}, in 1 KiB chunks`, () => {
      expect(streamGrowth('nfkc', 'ndjson', 'Q', '\\u200b', rest, 1024)).toBeLessThan(LINEAR_BOUND);
    });
  }

  for (const chunk of [100, 16 * 1024 + 1]) {
    it(`ndjson: q then U+200B x n, then wen, in ${chunk}-byte chunks`, () => {
      expect(streamGrowth('nfkc', 'ndjson', 'q', '\u200B', 'wen', chunk)).toBeLessThan(LINEAR_BOUND);
    });
  }

  it('ndjson: a pair written ali, then ignorables, a dash, more ignorables, cloud', () => {
    expect(streamGrowth('nfkc', 'ndjson', 'ali\u200B-', '\u00AD', 'cloud', 1024)).toBeLessThan(LINEAR_BOUND);
  });
});

// The default fold has no long undecided candidate when encoding (a pair takes one separator,
// a term is ASCII letters): these stay linear, and stay so.
describe("fold 'ascii' byte streams on a term's first letters, then runs that end no match", () => {
  const cases: [string, string, string][] = [
    ['ali', '-', 'baba'],
    ['q', '_', 'wen'],
    ['__mcp', '_', 'ref_'],
  ];
  for (const [head, unit, rest] of cases) {
    it(`ndjson: ${head} then ${unit} x n, then ${rest}, in 1 KiB chunks`, () => {
      expect(streamGrowth('ascii', 'ndjson', head, unit, rest, 1024)).toBeLessThan(LINEAR_BOUND);
    });
  }
});
