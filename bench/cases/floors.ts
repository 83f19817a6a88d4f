// Floors: what the engine's native primitives do with the same bytes (no ratio: references),
// and the U+FFFD byte scan against Buffer.indexOf.
import { findReplacementBytes } from '../../src/index.ts';
import type { BenchCase } from '../case.ts';
import { cjkText, ndjsonTraffic } from '../corpus.ts';

export function floorCases(): BenchCase[] {
  const traffic = ndjsonTraffic(21, 8 * 1024 * 1024);
  const text = new TextDecoder().decode(traffic);
  const lines = text.split('\n').filter(Boolean);
  const buf = Buffer.from(traffic.buffer, traffic.byteOffset, traffic.length);
  const cjk = Buffer.from(cjkText(9, 8 * 1024 * 1024) + '\uFFFD');
  const fffd = Buffer.from('\uFFFD');
  return [
    { group: 'floor', name: 'JSON.parse (8 MiB NDJSON)', bytes: traffic.length, ours: () => lines.map((l) => JSON.parse(l)).length },
    { group: 'floor', name: 'TextDecoder (8 MiB NDJSON)', bytes: traffic.length, ours: () => new TextDecoder().decode(traffic).length },
    { group: 'floor', name: "Buffer.indexOf('qwen') (8 MiB NDJSON)", bytes: traffic.length, ours: () => buf.indexOf('qwen', 0) },
    { group: 'floor', name: 'Buffer.indexOf(U+FFFD) (8 MiB CJK, one hit at the end)', bytes: cjk.length, ours: () => cjk.indexOf(fffd) },
    {
      group: 'U+FFFD scan',
      name: 'bytes, 8 MiB CJK text (findReplacementBytes)',
      bytes: cjk.length,
      ours: () => findReplacementBytes(cjk).replacementCharacterCount,
      // What a JS program does with bytes: decode, then search the string.
      baselineName: 'TextDecoder + indexOf',
      baseline: () => {
        const s = new TextDecoder().decode(cjk);
        let n = 0;
        for (let i = s.indexOf('\uFFFD'); i >= 0; i = s.indexOf('\uFFFD', i + 1)) n++;
        return n;
      },
      target: { mbps: 2000 },
    },
  ];
}
