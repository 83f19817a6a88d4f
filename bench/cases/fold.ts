// fold: 'nfkc' against the default fold on the same text: the cost of catching lookalikes
// where there are none (the target), and the figures where there are many.
import { createCodec } from '../../src/index.ts';
import { createByteTransformer } from '../../src/stream/index.ts';
import type { BenchCase } from '../case.ts';
import { cjkText, cleanText, mixedText, ndjsonTraffic, shortStrings } from '../corpus.ts';

type MakeCodec = (o?: { fold?: 'nfkc' }) => { encodeText(s: string): string };
type MakeTransformer = (
  mode: 'encode',
  o: { fold?: 'nfkc' },
  emit: (b: Uint8Array) => void,
) => { push(c: Uint8Array): void; close(): void };

const bytes = (s: string) => Buffer.byteLength(s);
// (At most 15% slower than the default fold: a ratio of at least 0.85.)
const atMost15PercentSlower = { ratio: 0.85 };
const CHUNK = 64 * 1024;

/** The text with every term written in lookalikes (fullwidth letters, a zero-width space inside). */
export function disguised(s: string): string {
  return s.replace(/qwen|alibaba|aliyun|dashscope|taobao/gi, (t) =>
    [...t].map((c, i) => String.fromCodePoint(c.toLowerCase().codePointAt(0)! + 0xfee0) + (i === 1 ? '\u200B' : '')).join(''),
  );
}

const TERMS = /qwen|alibaba|aliyun|dashscope|taobao/i;
/** No term is left in the text, lookalikes read as what they stand for. */
const noTermIn = (s: string) => !TERMS.test(s.normalize('NFKC').replace(/\u200B/g, ''));

/** A row: fold 'nfkc' and the default, each a call on a build's API. */
export interface FoldRow {
  readonly name: string;
  readonly bytes: number;
  readonly ours: () => unknown;
  readonly baseline: () => unknown;
  readonly baselineName?: string;
  readonly target?: BenchCase['target'];
  readonly check?: () => boolean;
}

/** The rows on one build's API (bench/fold-ab.ts runs them on two). */
export function foldRows(make: MakeCodec, transformer: MakeTransformer): FoldRow[] {
  const folded = make({ fold: 'nfkc' });
  const plain = make();
  const countBytes = (input: Uint8Array, options: { fold?: 'nfkc' }) => {
    let total = 0;
    const t = transformer('encode', options, (b) => {
      total += b.length;
    });
    for (let i = 0; i < input.length; i += CHUNK) t.push(input.subarray(i, i + CHUNK));
    t.close();
    return total;
  };
  // Without lookalikes both folds find the same spans; with them, 'nfkc' leaves none behind.
  const pair = (name: string, input: string, target?: FoldRow['target'], same = true): FoldRow => ({
    name,
    bytes: bytes(input),
    ours: () => folded.encodeText(input),
    baseline: () => plain.encodeText(input),
    target,
    check: same
      ? () => folded.encodeText(input) === plain.encodeText(input)
      : () => noTermIn(folded.encodeText(input)) && !noTermIn(plain.encodeText(input)),
  });
  const mixed = mixedText(1, 256 * 1024);
  const shorts = shortStrings(7, 4000);
  const traffic = ndjsonTraffic(21, 4 * 1024 * 1024);
  const lookalikes = disguised(mixed);
  return [
    pair('mixed text 256 KiB', mixed, atMost15PercentSlower),
    pair('clean text 1 MiB', cleanText(4, 1 << 20), atMost15PercentSlower),
    pair('CJK-heavy text 256 KiB', cjkText(2, 256 * 1024)),
    // No target here: the default misses the 510 terms in lookalikes that fold 'nfkc' exists to
    // find, and writes 22% fewer tokens (docs/PERFORMANCE.md: what the lookalikes target means).
    pair('mixed text 256 KiB, every term in lookalikes', lookalikes, undefined, false),
    {
      // The target's row for lookalikes: the same lookalike text against the default on the text
      // it disguises, both finding every term (fold 'nfkc' still reads 3% more bytes and writes
      // longer tokens). Both MB/s count the lookalike text's bytes: the ratio is of times.
      name: 'every term in lookalikes, vs the default on the same terms undisguised',
      bytes: bytes(lookalikes),
      ours: () => folded.encodeText(lookalikes),
      baselineName: "fold 'ascii' (default), on the text without lookalikes",
      baseline: () => plain.encodeText(mixed),
      check: () => noTermIn(folded.encodeText(lookalikes)) && noTermIn(plain.encodeText(mixed)),
      target: atMost15PercentSlower,
    },
    {
      name: `${shorts.length} short strings (< 64 chars)`,
      bytes: shorts.reduce((n, s) => n + bytes(s), 0),
      ours: () => shorts.map(folded.encodeText),
      baseline: () => shorts.map(plain.encodeText),
    },
    {
      name: 'NDJSON encode stream, 4 MiB',
      bytes: traffic.length,
      ours: () => countBytes(traffic, { fold: 'nfkc' }),
      baseline: () => countBytes(traffic, {}),
      target: atMost15PercentSlower,
    },
  ];
}

export function foldCases(): BenchCase[] {
  return foldRows(createCodec, createByteTransformer).map((row) => ({
    group: 'fold nfkc',
    baselineName: "fold 'ascii' (default)",
    ...row,
  }));
}
