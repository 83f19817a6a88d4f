// The CLI's line splitter (scan): the same lines however the bytes arrive, a line end at the
// very start of a chunk included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ndjsonLines } from '../src/cli/ndjson-lines.ts';
import { runs } from './arbitraries.ts';
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
      fc.asyncProperty(fc.array(fc.constantFrom('{"a":1}', '', ' \r', '\r', 'x'), { maxLength: 6 }), fc.array(fc.nat(60), { maxLength: 6 }), async (parts, cuts) => {
        const input = parts.join('\n');
        const want = input.split('\n');
        if (want[want.length - 1] === '') want.pop(); // (a last line only if it holds anything)
        expect(await lines(split(bytes(input), cuts))).toEqual(want);
      }),
      runs(300),
    );
  });

  it('ends a line at a chunk that starts with \\n', async () => {
    expect(await lines([bytes('{"a":1}'), bytes('\n{"b":2}\n')])).toEqual(['{"a":1}', '{"b":2}']);
  });
});
