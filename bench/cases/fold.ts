// fold: 'nfkc' against the default fold on the same text: the cost of catching lookalikes
// where there are none (the target), and the figures where there are many.
import { createCodec } from '../../src/index.ts';
import type { BenchCase } from '../case.ts';
import { cjkText, cleanText, mixedText, ndjsonTraffic, shortStrings } from '../corpus.ts';
import { countBytes } from './streams.ts';

const folded = createCodec({ fold: 'nfkc' });
const plain = createCodec();
const bytes = (s: string) => Buffer.byteLength(s);
// (At most 15% slower than the default fold: a ratio of at least 0.85.)
const atMost15PercentSlower = { ratio: 0.85 };

/** The text with every term written in lookalikes (fullwidth letters, a zero-width space inside). */
function disguised(s: string): string {
  return s.replace(/qwen|alibaba|aliyun|dashscope|taobao/gi, (t) =>
    [...t].map((c, i) => String.fromCodePoint(c.toLowerCase().codePointAt(0)! + 0xfee0) + (i === 1 ? '\u200B' : '')).join(''),
  );
}

const TERMS = /qwen|alibaba|aliyun|dashscope|taobao/i;

function pair(name: string, input: string, target?: BenchCase['target'], same = true): BenchCase {
  return {
    group: 'fold nfkc',
    name,
    bytes: bytes(input),
    ours: () => folded.encodeText(input),
    baselineName: "fold 'ascii' (default)",
    baseline: () => plain.encodeText(input),
    target,
    // Without lookalikes both folds find the same spans; with them, 'nfkc' leaves none behind.
    check: same
      ? () => folded.encodeText(input) === plain.encodeText(input)
      : () =>
          !TERMS.test(
            folded
              .encodeText(input)
              .normalize('NFKC')
              .replace(/\u200B/g, ''),
          ) &&
          TERMS.test(
            plain
              .encodeText(input)
              .normalize('NFKC')
              .replace(/\u200B/g, ''),
          ),
  };
}

export function foldCases(): BenchCase[] {
  const mixed = mixedText(1, 256 * 1024);
  const shorts = shortStrings(7, 4000);
  const traffic = ndjsonTraffic(21, 4 * 1024 * 1024);
  return [
    pair('mixed text 256 KiB', mixed, atMost15PercentSlower),
    pair('clean text 1 MiB', cleanText(4, 1 << 20), atMost15PercentSlower),
    pair('CJK-heavy text 256 KiB', cjkText(2, 256 * 1024)),
    pair('mixed text 256 KiB, every term in lookalikes', disguised(mixed), undefined, false),
    {
      group: 'fold nfkc',
      name: `${shorts.length} short strings (< 64 chars)`,
      bytes: shorts.reduce((n, s) => n + bytes(s), 0),
      ours: () => shorts.map(folded.encodeText),
      baselineName: "fold 'ascii' (default)",
      baseline: () => shorts.map(plain.encodeText),
    },
    {
      group: 'fold nfkc',
      name: 'NDJSON encode stream, 4 MiB',
      bytes: traffic.length,
      ours: () => countBytes('encode', traffic, { fold: 'nfkc' }),
      baselineName: "fold 'ascii' (default)",
      baseline: () => countBytes('encode', traffic),
      target: atMost15PercentSlower,
    },
  ];
}
