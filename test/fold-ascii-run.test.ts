// The ASCII run of fold 'nfkc' (assembly/match.ts: its own Teddy masks, `teddyAscii` from
// src/fold/prefilter.ts, up to the first block holding a byte >= 0x80) against the path it
// replaces: the same tables without those masks, the general ones throughout. The core's
// records and the bytes it leaves undecided must be the same, on text that is mostly ASCII
// spellings of the terms, with lookalikes and other bytes >= 0x80 here and there.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../src/codec/options.ts';
import { compileAutomaton } from '../src/compile/index.ts';
import { MODE_BYTE_RECORDS } from '../src/core/abi.ts';
import { type Descriptor, writeDescriptor } from '../src/core/descriptor.ts';
import { core, coreVariant } from '../src/core/instance.ts';
import { heap, heap32, workspace } from '../src/core/memory.ts';
import { DEFAULT_TERMS } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { foldedPatterns, lookalikeText } from './fold-reference.ts';

const utf8 = new TextEncoder();

/** [records..., consumed] of one scan. */
function scan(desc: Descriptor, input: Uint8Array, final: number): number[] {
  const ws = workspace(Math.max(input.length, 64), 8 * input.length + 64);
  heap().set(input, ws.input);
  const consumed = core.scan(desc.ptr, ws.input, input.length, ws.output, final, MODE_BYTE_RECORDS);
  const words = heap32();
  return [...words.subarray(ws.output >> 2, (ws.output >> 2) + 2 * desc.matchCount()), consumed];
}

describe(`fold 'nfkc': the ASCII run against the general masks throughout (${coreVariant} build)`, () => {
  const automaton = compileAutomaton(resolveOptions({ fold: 'nfkc' }).patterns);
  const withRun = writeDescriptor(automaton, 'x', 'y', '0123456789abcdef', 1);
  const without = writeDescriptor({ ...automaton, teddyAscii: undefined }, 'x', 'y', '0123456789abcdef', 1);

  // ASCII spellings of the folded terms in any case, the words around them, and now and then a
  // piece with lookalikes (or any character): runs of ASCII blocks, then the rest.
  const spelling = fc
    .tuple(
      fc.constantFrom(...foldedPatterns(DEFAULT_TERMS).filter((p) => /^[\x20-\x7e]+$/.test(p))),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
    )
    .map(([p, upper]) => Array.from(p, (c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join(''));
  const ascii = fc.oneof(spelling, fc.constantFrom(' ', 'the ', 'date ', 'MacOS ', 'al', 'q', 'Lica', 'x'.repeat(13), 'dashscop'));
  const text = fc
    .array(
      fc.oneof(
        { arbitrary: ascii, weight: 12 },
        { arbitrary: lookalikeText(DEFAULT_TERMS, 2), weight: 1 },
        { arbitrary: fc.string({ maxLength: 3, unit: 'binary' }), weight: 1 },
      ),
      {
        maxLength: 40,
      },
    )
    .map((parts) => utf8.encode(parts.join('')));

  it('finds the same matches and leaves the same bytes undecided, final or not', () => {
    fc.assert(
      fc.property(text, fc.constantFrom(0, 1), (input, final) => {
        expect(scan(withRun, input, final)).toEqual(scan(without, input, final));
      }),
      runs(300),
    );
  });

  it('sees the matches: the properties above compare scans that find terms', () => {
    const input = utf8.encode(`${'x'.repeat(40)}QWEN and ALI-cloud ${'y'.repeat(30)}`);
    const got = scan(withRun, input, 1);
    expect(got.length).toBe(5); // two records and the count consumed
    expect(got.at(-1)).toBe(input.length);
  });
});
