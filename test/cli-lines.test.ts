// LineSplitter (the guard's reader): every line `keep` wants, whole and in order; `keep` sees a
// line's first 512 bytes, or all of a shorter one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../src/cli/lines.ts';
import { runs } from './arbitraries.ts';

const HEAD = 512;
// Lines short and long (over the head), their bytes mostly 'a', some 'k' (which `keep` looks for).
const line = fc.tuple(fc.nat(1200), fc.nat(1200)).map(([n, k]) => 'a'.repeat(n) + (k % 3 === 0 ? 'k' : '') + 'a'.repeat(k % 7));
const keep = (head: Uint8Array) => head.includes(0x6b);

describe('LineSplitter', () => {
  it('passes on exactly the non-empty lines whose head `keep` accepts, whole, however the input is cut', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(fc.nat(20_000), { maxLength: 6 }), (lines, cuts) => {
        const input = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const got: string[] = [];
        const splitter = new LineSplitter((l) => void got.push(Buffer.from(l).toString()), keep);
        let from = 0;
        for (const cut of [...cuts.map((c) => c % (input.length + 1)).sort((a, b) => a - b), input.length]) {
          splitter.push(input.subarray(from, Math.max(from, cut)));
          from = Math.max(from, cut);
        }
        splitter.end();
        expect(got).toEqual(lines.filter((l) => l.length > 0 && keep(Buffer.from(l).subarray(0, HEAD))));
      }),
      runs(200),
    );
  });
});
