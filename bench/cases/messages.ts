// encodeMessage / decodeMessage against the recursive regex object walk; U+FFFD reports
// against a plain JS scan.
import { decodeMessage, encodeMessage, findReplacementCharacters } from '../../src/index.ts';
import { createWalkCodec } from '../baseline-walk.ts';
import type { BenchCase } from '../case.ts';
import { appsListResult, cjkText, imageResult, toolsListResult } from '../corpus.ts';

const walker = createWalkCodec();
const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
const threeX = { ratio: 3 };

function pair(name: string, message: unknown, target?: BenchCase['target'], unit?: BenchCase['unit']): BenchCase[] {
  const encoded = encodeMessage(message);
  return [
    {
      group: 'encodeMessage',
      name,
      bytes: size(message),
      unit,
      ours: () => encodeMessage(message),
      baselineName: 'regex walk',
      baseline: () => walker.encodeMessage(message),
      target,
    },
    {
      group: 'decodeMessage',
      name,
      bytes: size(encoded),
      unit,
      ours: () => decodeMessage(encoded),
      baselineName: 'regex walk',
      baseline: () => walker.decodeMessage(encoded),
    },
  ];
}

/** The scan people write: a recursive walk with a character loop, Buffer for the byte offset. */
function plainScan(v: unknown, path: (string | number)[] = [], out: unknown[] = []): unknown[] {
  const one = (s: string, p: (string | number)[]) => {
    let count = 0;
    let first = -1;
    for (let i = 0; i < s.length; i++)
      if (s.charCodeAt(i) === 0xfffd) {
        if (first < 0) first = i;
        count++;
      }
    if (count) out.push({ path: p, count, first, utf8: Buffer.byteLength(s.slice(0, first)) });
  };
  if (typeof v === 'string') one(v, path);
  else if (Array.isArray(v)) {
    v.forEach((x, i) => {
      plainScan(x, [...path, i], out);
    });
  } else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) {
      one(k, [...path, k]);
      plainScan(x, [...path, k], out);
    }
  return out;
}

export function messageCases(): BenchCase[] {
  const args = { path: '/notes/会议纪要.md', content: cjkText(5, 512 * 1024) + '\uFFFD', tags: ['a', 'b'], meta: { author: 'me' } };
  const ours = () =>
    findReplacementCharacters(args).map((r) => ({
      path: r.path,
      count: r.replacementCharacterCount,
      first: r.characterOffset,
      utf8: r.utf8ByteOffset,
    }));
  return [
    ...pair('apps list (3,000 apps)', appsListResult(5, 3000), threeX),
    ...pair('tools/list (200 tools)', toolsListResult(6, 200), threeX),
    // Two content entries: neither side reads the base64 it keeps, so the cost is per message
    // (µs), not per byte; not the large result the 3x target is about.
    ...pair('image result (2 MiB base64)', imageResult(7, 1536 * 1024), undefined, 'µs/msg'),
    {
      group: 'findReplacementCharacters',
      name: 'write_file arguments (512 KiB CJK)',
      bytes: size(args),
      ours,
      baselineName: 'plain JS scan',
      baseline: () => plainScan(args),
    },
  ];
}
