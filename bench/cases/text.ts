// encodeText / decodeText against the regex implementation of the same semantics.
import { decodeText, encodeText } from '../../src/index.ts';
import { createAhoCodec } from '../baseline-aho.ts';
import { createRegexCodec } from '../baseline-regex.ts';
import type { BenchCase } from '../case.ts';
import { cjkText, cleanText, mixedText, shortStrings } from '../corpus.ts';

const regex = createRegexCodec();
const aho = createAhoCodec();
const bytes = (s: string) => Buffer.byteLength(s);

function pair(name: string, input: string, target?: BenchCase['target']): BenchCase[] {
  const encoded = encodeText(input);
  return [
    {
      group: 'encodeText',
      name,
      bytes: bytes(input),
      ours: () => encodeText(input),
      baselineName: 'regex',
      baseline: () => regex.encodeText(input),
      target,
    },
    {
      group: 'decodeText',
      name,
      bytes: bytes(encoded),
      ours: () => decodeText(encoded),
      baselineName: 'regex',
      baseline: () => regex.decodeText(encoded),
    },
  ];
}

export function textCases(): BenchCase[] {
  const shorts = shortStrings(7, 4000);
  const shortBytes = shorts.reduce((n, s) => n + bytes(s), 0);
  const clean4k = cleanText(3, 4096);
  const clean1m = cleanText(4, 1 << 20);
  const mixed = mixedText(1, 256 * 1024);
  return [
    {
      group: 'encodeText',
      name: 'mixed text 256 KiB (vs a matching package)',
      bytes: bytes(mixed),
      ours: () => encodeText(mixed),
      baselineName: '@monyone/aho-corasick',
      baseline: () => aho.encodeText(mixed),
    },
    ...pair('mixed text 4 KiB', mixedText(11, 4 * 1024), { ratio: 5 }),
    ...pair('mixed text 256 KiB', mixed, { ratio: 5 }),
    ...pair('CJK-heavy text', cjkText(2, 256 * 1024)),
    {
      group: 'encodeText',
      name: 'clean text 4 KiB',
      bytes: bytes(clean4k),
      ours: () => encodeText(clean4k),
      baselineName: 'regex',
      baseline: () => regex.encodeText(clean4k),
      target: { mbps: 1000 },
      check: () => encodeText(clean4k) === clean4k && regex.encodeText(clean4k) === clean4k,
    },
    {
      group: 'encodeText',
      name: 'clean text 1 MiB',
      bytes: bytes(clean1m),
      ours: () => encodeText(clean1m),
      baselineName: 'regex',
      baseline: () => regex.encodeText(clean1m),
      target: { mbps: 1000 },
      check: () => encodeText(clean1m) === clean1m && regex.encodeText(clean1m) === clean1m,
    },
    {
      group: 'encodeText',
      name: `${shorts.length} short strings (< 64 chars)`,
      bytes: shortBytes,
      ours: () => shorts.map(encodeText),
      baselineName: 'regex',
      baseline: () => shorts.map(regex.encodeText),
      target: { ratio: 1 },
    },
  ];
}
