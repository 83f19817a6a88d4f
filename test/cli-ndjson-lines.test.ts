// The CLI's line splitter (scan): the same lines however the bytes arrive, a line end at the
// very start of a chunk included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ndjsonLines } from '../src/cli/ndjson-lines.ts';
import { SseReader } from '../src/http/sse-reader.ts';
import { runs } from './arbitraries.ts';
import { growth, growthAsync, LINEAR_BOUND } from './scaling.ts';
import { bytes, split, text } from './stream-helpers.ts';

async function lines(chunks: Uint8Array[]): Promise<string[]> {
  const out: string[] = [];
  async function* source() {
    yield* chunks;
  }
  for await (const line of ndjsonLines(source())) out.push(text(line));
  return out;
}

describe('ndjsonLines', () => {
  it('splits at \\n only, whatever the chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('{"a":1}', '', ' \r', '\r', 'x'), { maxLength: 6 }),
        fc.array(fc.nat(60), { maxLength: 6 }),
        async (parts, cuts) => {
          const input = parts.join('\n');
          const want = input.split('\n');
          if (want[want.length - 1] === '') want.pop(); // (a last line only if it holds anything)
          expect(await lines(split(bytes(input), cuts))).toEqual(want);
        },
      ),
      runs(300),
    );
  });

  it('ends a line at a chunk that starts with \\n', async () => {
    expect(await lines([bytes('{"a":1}'), bytes('\n{"b":2}\n')])).toEqual(['{"a":1}', '{"b":2}']);
  });
});

describe('long lines cost their length once (connect and serve read hosts and servers this way)', () => {
  const pieces = (n: number, piece: string) => Array.from({ length: n }, () => piece);
  it('ndjsonLines: one line of 1 MB vs 4 MB, in 1 KiB chunks', async () => {
    const chunk = bytes('x'.repeat(1024));
    const read = (n: number) => async () => {
      async function* source() {
        for (let i = 0; i < n; i++) yield chunk;
        yield bytes('\n');
      }
      let length = 0;
      for await (const line of ndjsonLines(source())) length += line.length;
      expect(length).toBe(n * 1024);
    };
    expect(await growthAsync(read(1024), read(4096), 1)).toBeLessThan(LINEAR_BOUND);
  });

  it('SseReader: one data line of 1 MB vs 4 MB, in 1 KiB pieces', () => {
    const read = (n: number) => () => {
      const reader = new SseReader(1 << 30);
      let got = 0;
      reader.onEvent = (e) => {
        got = e.data.length;
      };
      reader.push('data: ');
      for (const p of pieces(n, 'x'.repeat(1024))) reader.push(p);
      reader.push('\n\n');
      expect(got).toBe(n * 1024);
    };
    expect(growth(read(1024), read(4096))).toBeLessThan(LINEAR_BOUND);
  });
});
