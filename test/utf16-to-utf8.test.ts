// The core's UTF-16 -> UTF-8 transcoder (assembly/utf8-from16.ts: ASCII 32 and 16 units a step,
// blocks below U+0800, of three bytes, of ASCII and three bytes, of anything in the BMP, and one
// by one where a surrogate is) against TextEncoder, lone surrogates (U+FFFD) included, at every
// length to 300 and with each kind of unit on either side of the block edges; and encodeText's
// two ways in (this transcoder, encodeInto) giving the same result.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { encodeString } from '../src/core/encode-string.ts';
import { core } from '../src/core/instance.ts';
import { allocate, free, heap, heap32 } from '../src/core/memory.ts';
import { anyString, fragmentString, runs } from './arbitraries.ts';

const MAX_UNITS = 300;
const SIZE = MAX_UNITS * 5 + 32; // (the UTF-16 in, 3 bytes a unit and 16 out, the count)
let src = 0;
let dst = 0;
let lone = 0;
beforeAll(() => {
  src = allocate(SIZE);
  dst = src + MAX_UNITS * 2;
  lone = dst + MAX_UNITS * 3 + 16;
});
afterAll(() => free(src, SIZE)); // (files after this one share the heap)
const encoder = new TextEncoder();

/** The core's bytes for `s` and its count of lone surrogates. */
function transcode(s: string): { bytes: Uint8Array; lone: number } {
  const units = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) units[i] = s.charCodeAt(i);
  heap().set(new Uint8Array(units.buffer), src);
  const n = core.utf16ToUtf8(src, s.length, dst, lone);
  return { bytes: heap().slice(dst, dst + n), lone: heap32()[lone >>> 2]! };
}

/** Lone surrogates, counted a unit at a time. */
function loneSurrogates(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    else if (c >= 0xd800 && c <= 0xdfff) count++;
  }
  return count;
}

const agrees = (s: string) => {
  const got = transcode(s);
  expect(got.bytes).toEqual(encoder.encode(s));
  expect(got.lone).toBe(loneSurrogates(s));
};

// Units of each kind the core tells apart, at the edges of their ranges.
const kinds = {
  ascii: [0x00, 0x20, 0x41, 0x7f],
  two: [0x80, 0xe9, 0xff, 0x100, 0x7ff],
  three: [0x800, 0x4e2d, 0xd7ff, 0xe000, 0xfeff, 0xfffd, 0xffff],
  high: [0xd800, 0xdbff],
  low: [0xdc00, 0xdfff],
};
const unitOf = fc.oneof(...Object.values(kinds).map((k) => fc.constantFrom(...k)));
/** Runs of one kind of unit, so that blocks of one kind and their edges both come up. */
const runsOfKinds = fc.array(fc.tuple(unitOf, fc.integer({ min: 1, max: 40 })), { maxLength: 30 }).map((pieces) =>
  pieces
    .map(([u, n]) => String.fromCharCode(u).repeat(n))
    .join('')
    .slice(0, MAX_UNITS),
);

describe('utf16ToUtf8', () => {
  it('writes what TextEncoder writes, for any string', () => {
    fc.assert(
      fc.property(fc.oneof(anyString(MAX_UNITS), fragmentString(40), runsOfKinds), (s) => agrees(s.slice(0, MAX_UNITS))),
      runs(2000),
    );
  });

  it('at every length to 300: each kind of text, another kind or a surrogate at its ends and block edges', () => {
    const fills = ['a', 'é', '中', 'ab中é'];
    const others = ['\uD800', '\uDC00', '\uD83D\uDE00', 'a', 'é', '中'];
    const wrong: string[] = [];
    // (compared as bytes, and by expect only at the end: 50,000 strings)
    const check = (s: string) => {
      const got = transcode(s);
      if (Buffer.compare(got.bytes, encoder.encode(s)) !== 0 || got.lone !== loneSurrogates(s)) wrong.push(s);
    };
    for (let n = 0; n <= MAX_UNITS; n++) {
      for (const fill of fills) {
        const s = fill.repeat(n).slice(0, n);
        check(s);
        for (const u of others) {
          check((u + s).slice(0, n));
          check((s + u).slice(-n));
        }
        // Blocks are 8, 16 and 32 units from wherever the last unit taken one by one left off:
        // every edge of the shorter strings.
        if (n > 80) continue;
        for (let at = 1; at < n; at++) for (const u of others) check((s.slice(0, at) + u + s.slice(at + u.length)).slice(0, n));
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});

/** Well-formed text with terms (ASCII, CJK) in runs of every kind, astral characters too. */
const textWithTerms = fc
  .array(
    fc.tuple(fc.constantFrom('a', ' ', 'é', '中', '😀', '𐀀', 'qwen', 'QWEN ', '通义', '阿里 ', 'alibaba'), fc.integer({ min: 1, max: 12 })),
    { maxLength: 30 },
  )
  .map((pieces) => pieces.map(([p, n]) => p.repeat(n)).join(''));

describe("encodeText's input as UTF-16 or by encodeInto", () => {
  const { encodeJob } = compile(resolveOptions({}));
  const same = (s: string, chunk: number) => {
    expect(encodeString(encodeJob, s, chunk, undefined, 'utf16')).toBe(encodeString(encodeJob, s, chunk, undefined, 'encodeInto'));
  };

  it('gives the same result, in any region (terms cut by its edges, pairs kept whole)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          textWithTerms,
          fragmentString(60).filter((s) => s.isWellFormed()),
        ),
        fc.constantFrom(8, 13, 61, 256 * 1024),
        same,
      ),
      runs(500),
    );
  });

  it('gives undefined for both where a surrogate is lone', () => {
    // (the same result from both, and, where one is lone, that result undefined: equal alone
    // holds if both ways missed it)
    const lone = (s: string, chunk: number) => {
      same(s, chunk);
      if (!s.isWellFormed()) expect(encodeString(encodeJob, s, chunk, undefined, 'utf16')).toBeUndefined();
    };
    fc.assert(fc.property(fc.oneof(anyString(300), fragmentString(60), runsOfKinds), fc.constantFrom(8, 61, 256 * 1024), lone), runs(300));
  });
});
