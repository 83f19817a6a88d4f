// The core's UTF-16 to UTF-8 transcoder (assembly/utf16.ts utf16ToUtf8: ASCII 16 units at a
// time, the rest one by one) called directly, against Node's UTF-8 encoder; and encodeString's
// path through it (strings up to a fifth of the work region) against the encodeInto path it
// replaces there. Both builds (the vitest projects).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { encodeString, SHORT_STRING } from '../src/core/encode-string.ts';
import { core } from '../src/core/instance.ts';
import { allocate, free, heap } from '../src/core/memory.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { referenceEncode } from './reference.ts';
import { MOBILE_MCP } from './reference-options.ts';

const MAX_UNITS = 160;
const src = allocate(2 * MAX_UNITS);
const dst = allocate(3 * MAX_UNITS + 16);
afterAll(() => {
  free(src, 2 * MAX_UNITS);
  free(dst, 3 * MAX_UNITS + 16);
});

/** The core's UTF-8 of `s`, or -1 (a lone surrogate). */
function transcoded(s: string): Uint8Array | -1 {
  Buffer.from(heap().buffer).fill(0xaa, dst, dst + 3 * MAX_UNITS + 16);
  Buffer.from(heap().buffer).write(s, src, 'utf16le');
  const n = core.utf16ToUtf8(src, s.length, dst);
  return n < 0 ? -1 : heap().slice(dst, dst + n);
}
const expected = (s: string) => (s.isWellFormed() ? new Uint8Array(Buffer.from(s, 'utf8')) : -1);

// Each kind of unit the transcoder tells apart, at its edges; pairs whole and cut.
const SPECIAL = [
  '\x7f',
  '\x80',
  '\u07ff',
  '\u0800',
  '中',
  '\ud7ff',
  '\ue000',
  '\uffff',
  '\ud83d\ude00',
  '\ud800',
  '\udfff',
  '\udc00\ud800',
];

describe('utf16ToUtf8', () => {
  it('writes every kind of unit at every position of the blocks, in every length, or says -1', () => {
    const wrong: string[] = [];
    for (const special of SPECIAL) {
      for (let length = special.length; length <= 40; length++) {
        for (let at = 0; at + special.length <= length; at++) {
          const s = 'a'.repeat(at) + special + 'b'.repeat(length - at - special.length);
          if (JSON.stringify(transcoded(s)) !== JSON.stringify(expected(s)) && wrong.length < 10) wrong.push(JSON.stringify(s));
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('agrees with the UTF-8 encoder on any string', () => {
    const piece = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('x'.repeat(16), 'y'.repeat(17), '通义千问', '😀'));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const s = pieces.join('').slice(0, MAX_UNITS);
        expect(transcoded(s)).toEqual(expected(s));
      }),
      runs(500),
    );
  });
});

describe("encodeString's UTF-16 path", () => {
  const { encodeJob } = compile(resolveOptions());
  // Past the short strings; a region of 4 bytes a unit holds the string in one round of the
  // encodeInto path, and is below the 5 the UTF-16 path asks for.
  const long = fc
    .tuple(fragmentString(40), fc.string({ unit: 'grapheme', maxLength: 40 }))
    .map(([a, b]) => `${'z'.repeat(SHORT_STRING)} ${a}${b}`);

  it('gives what the encodeInto path gives, and the reference', () => {
    fc.assert(
      fc.property(long, (s) => {
        const out = encodeString(encodeJob, s);
        expect(out).toBe(encodeString(encodeJob, s, 4 * s.length));
        expect(out).toBe(s.isWellFormed() ? referenceEncode(s, MOBILE_MCP) : undefined);
      }),
      runs(500),
    );
  });
});
