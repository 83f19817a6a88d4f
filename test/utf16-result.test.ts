// The result made by the core as UTF-16 (src/core/utf16-result.ts, where Node's Buffer reads it
// back) against the result built from slices and tokens in JS (what other hosts take): the same
// string for any well-formed text, any token format, any work region size.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { type CodecOptions, resolveOptions } from '../src/codec/options.ts';
import { encodeString } from '../src/core/encode-string.ts';
import { core } from '../src/core/instance.ts';
import { allocate, free, heapStats } from '../src/core/memory.ts';
import { utf16Results } from '../src/core/utf16-result.ts';
import { fragmentString, runs } from './arbitraries.ts';

const formats: [string, CodecOptions][] = [
  ['the default', {}],
  ['upper-case hex, a long suffix', { prefix: '<<x', suffix: '::zz>>', hexCase: 'upper' }],
  ['astral and CJK terms', { prefix: '__t_', terms: { exact: ['😀a', '中文', 'é'], ascii: ['qz'] } }],
  ["fold 'nfkc'", { fold: 'nfkc' }],
];
const custom = fc
  .array(fc.constantFrom('😀a', '中文', 'é', 'QZ', '😀', '中', 'a', ' ', '<<x', '__t_', 'z>>'), { maxLength: 60 })
  .map((a) => a.join(''));
const wellFormed = fc.oneof(fragmentString(60), custom, fc.string({ unit: 'grapheme', maxLength: 120 })).filter((s) => s.isWellFormed());

describe('the UTF-16 result', () => {
  it('is what this host builds', () => expect(utf16Results).toBe(true));

  it.each(formats)('equals the slices and tokens (%s), in any region', (_, options) => {
    const { encodeJob } = compile(resolveOptions(options));
    fc.assert(
      fc.property(wellFormed, fc.constantFrom(8, 13, 61, 256 * 1024), (s, chunk) => {
        expect(encodeString(encodeJob, s, chunk, 'utf16')).toBe(encodeString(encodeJob, s, chunk, 'slices'));
      }),
      runs(300),
    );
  });

  it('agrees on long strings, across a grown result region and grown memory', () => {
    const { encodeJob } = compile(resolveOptions({}));
    const agree = (s: string) =>
      expect(encodeString(encodeJob, s, undefined, 'utf16')).toBe(encodeString(encodeJob, s, undefined, 'slices'));
    agree('qwen '.repeat(20));
    // A region of about 1.6 MB, replacing the small one: still under RESULT16_MAX_BYTES, so the
    // core writes it (20,000 repeats would need 3.3 MB and take the slices path).
    agree(`${'通义 é qwen '.repeat(10000)}😀`);
    // Memory grown under the Buffer made over it: the next result is read from the new memory.
    const size = core.memory.buffer.byteLength;
    free(allocate(size), size);
    expect(core.memory.buffer.byteLength).toBeGreaterThan(size);
    agree('ALIBABA cloud '.repeat(9));
  });

  it('leaves a string too long for a bounded region to the slices path', () => {
    const { encodeJob } = compile(resolveOptions({}));
    const s = 'qwen 通义 '.repeat(200_000); // (its result would need about 14 MB)
    encodeString(encodeJob, 'qwen '.repeat(20), undefined, 'utf16'); // (the region of a short one first)
    const before = heapStats().top;
    expect(encodeString(encodeJob, s, undefined, 'utf16')).toBe(encodeString(encodeJob, s, undefined, 'slices'));
    expect(heapStats().top - before).toBeLessThanOrEqual(4 << 20); // (RESULT16_MAX_BYTES, with room)
  });
});
