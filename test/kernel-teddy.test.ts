// The Teddy prefilter (stage 1 of assembly/match.ts, SIMD build), tested in the simdutf manner:
// the core's own scan, on tables made for the test, against a scalar reference, exhaustively
// over every byte at every lane of a 16-byte block and across block ends, and on random masks.
// The core has no export for the filter alone, so the automaton is made to show it: it matches
// any one byte of a chosen set, and the start set admits everything, so the match records are
// exactly the positions the filter lets through (those the set allows). The scalar build has no
// Teddy stage: there the records are every position the set allows, which is its reference.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CoreTables, type Descriptor, writeDescriptor } from '../src/core/descriptor.ts';
import { core, coreVariant } from '../src/core/instance.ts';
import { heap, heap32, workspace } from '../src/core/memory.ts';
import { runs } from './arbitraries.ts';

const BLOCK = 16;
const POSITIONS = 4; // bytes per fingerprint
const MASKS = POSITIONS * 32;
const BYTE_RECORDS = 2;

/** Tables whose automaton matches one byte of `allowed` (256 flags) and nothing longer. */
function filterTables(teddy: Uint8Array, allowed: readonly boolean[], teddyAscii?: Uint8Array): CoreTables {
  return {
    teddyAscii,
    classes: Uint8Array.from(allowed, (a) => (a ? 1 : 0)),
    classCount: 2,
    // state 0 dead, 1 start (class 1 -> 2), 2 accepting and dead-ended
    transitions: Uint16Array.from([0, 0, 0, 2, 0, 0]),
    accepting: Uint8Array.from([0, 0, 1]),
    teddy,
    grams: new Uint8Array(4096).fill(0xff),
    gramMask: 0xff, // one byte, as long as the shortest match (the core takes that bound from it)
  };
}

/** The positions the core tries (as match starts), in order. */
function tried(desc: Descriptor, input: Uint8Array): number[] {
  const ws = workspace(Math.max(input.length, 64), 8 * input.length + 64);
  heap().set(input, ws.input);
  core.scan(desc.ptr, ws.input, input.length, ws.output, 1, BYTE_RECORDS);
  const words = heap32();
  const starts: number[] = [];
  for (let k = 0; k < desc.matchCount(); k++) starts.push(words[(ws.output >> 2) + 2 * k]!);
  return starts;
}

/** Whether some bucket admits the four bytes at c (each folded with | 0x20, as the core does). */
function fingerprintPasses(teddy: Uint8Array, input: Uint8Array, c: number): boolean {
  let buckets = 0xff;
  for (let j = 0; j < POSITIONS; j++) {
    const f = input[c + j]! | 0x20;
    buckets &= teddy[j * 32 + (f & 15)]! & teddy[j * 32 + 16 + (f >> 4)]!;
  }
  return buckets !== 0;
}

/** Final strings up to this long are tested without the loop. */
const SHORT_MAX = 64;

/**
 * Positions the SIMD loop leaves to the scalar one, which asks the automaton's start row
 * instead: fingerprints that would end past the input, and the positions just before the last
 * block when that block overlaps the previous one by all but one or two bytes (its lanes 1-2
 * would need the masks of bytes the loop did not load). `from`: where the loop started (its
 * blocks are from there on). A string of at most SHORT_MAX bytes (`loop` false) is tested in
 * overlapping blocks with no such gap.
 */
const leftToScalar = (c: number, len: number, from = 0, loop = len > SHORT_MAX) =>
  c + POSITIONS - 1 >= len || (loop && len > BLOCK && c >= from && c >= len - ((len - from) % BLOCK) - (POSITIONS - 1) && c < len - BLOCK);

/**
 * Where the ASCII masks stop: they test the starts before it. A string of at most SHORT_MAX
 * bytes is tested whole with them when it is all ASCII; a longer input, from 0 up to its first block
 * (from 0, in steps of 16) that holds a byte >= 0x80 or runs past the end, less 3 (the lanes
 * 0-2 of that block): the general masks test the rest in blocks from there.
 */
function asciiRunEnd(input: Uint8Array): number {
  const len = input.length;
  const ascii = (from: number, to: number) => input.subarray(from, to).every((b) => b < 0x80);
  if (len <= SHORT_MAX) return len >= POSITIONS && ascii(0, len) ? len : 0;
  let q = 0;
  while (q + BLOCK <= len && ascii(q, q + BLOCK)) q += BLOCK;
  return Math.max(q - (POSITIONS - 1), 0);
}

/** The reference: the positions the core should try (with `teddyAscii`, as the core uses both). */
function reference(teddy: Uint8Array, allowed: readonly boolean[], input: Uint8Array, teddyAscii?: Uint8Array): number[] {
  const from = teddyAscii && input.length > SHORT_MAX ? asciiRunEnd(input) : 0;
  const asciiUpTo = teddyAscii ? asciiRunEnd(input) : 0;
  const out: number[] = [];
  for (let c = 0; c < input.length; c++) {
    if (!allowed[input[c]!]) continue;
    if (coreVariant === 'scalar' || leftToScalar(c, input.length, from)) out.push(c);
    else if (fingerprintPasses(c < asciiUpTo ? teddyAscii! : teddy, input, c)) out.push(c);
  }
  return out;
}

/** Seeded masks (xorshift), so the exhaustive cases are the same on every run. */
function seededMasks(seed: number): Uint8Array {
  let x = seed;
  return Uint8Array.from({ length: MASKS }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    // sparse: about one bucket bit in four, so a fingerprint passes or fails on every byte
    return x & (x >>> 8) & 0xff;
  });
}

describe(`Teddy prefilter kernel (${coreVariant} build)`, () => {
  const all = Array.from({ length: 256 }, () => true);

  // Every length up to two blocks and one byte (each remainder mod 16, whole blocks, the carry of
  // lanes 0-2 from the block before), three blocks around their end, and the short path's
  // longest strings and the loop's shortest after them.
  const LENGTHS = [
    ...Array.from({ length: 2 * BLOCK + 1 }, (_, i) => i + 1),
    3 * BLOCK - 1,
    3 * BLOCK,
    3 * BLOCK + 1,
    SHORT_MAX - 1,
    SHORT_MAX,
    SHORT_MAX + 1,
    SHORT_MAX + 14,
  ];

  /** Masks seeded from `seed` in which the filler byte passes every position in every bucket. */
  function masksPassing(seed: number, filler: number): Uint8Array {
    const teddy = seededMasks(seed);
    for (let j = 0; j < POSITIONS; j++) {
      teddy[j * 32 + (filler & 15)] = 0xff;
      teddy[j * 32 + 16 + (filler >> 4)] = 0xff;
    }
    return teddy;
  }

  /** Every byte value at every position among fillers, at every length of LENGTHS: the core against `want`. */
  function everyByteEverywhere(desc: Descriptor, filler: number, want: (input: Uint8Array) => number[]): void {
    let cases = 0;
    let mismatches = 0;
    let firstMismatch = '';
    for (const len of LENGTHS) {
      const input = new Uint8Array(len).fill(filler);
      for (let p = 0; p < len; p++) {
        for (let v = 0; v < 256; v++) {
          input[p] = v;
          const got = tried(desc, input);
          const expected = want(input);
          cases++;
          if (got.length !== expected.length || got.some((c, i) => c !== expected[i])) {
            mismatches++;
            firstMismatch ||= `length ${len}, byte ${v} at ${p}: tried [${got}], reference [${expected}]`;
          }
        }
        input[p] = filler;
      }
    }
    expect(firstMismatch).toBe('');
    expect(mismatches).toBe(0);
    expect(cases).toBe(256 * LENGTHS.reduce((a, b) => a + b, 0));
  }

  // The filler byte passes every position in every bucket, so the one byte placed among
  // fillers decides alone whether the fingerprints holding it pass.
  const FILLER = 0x61;

  it('every byte, at every lane and each fingerprint position, across block ends, at every short length', () => {
    const teddy = masksPassing(0x9e3779b9, FILLER);
    const desc = writeDescriptor(filterTables(teddy, all), 'x', 'y', '0123456789abcdef', 1);
    everyByteEverywhere(desc, FILLER, (input) => reference(teddy, all, input));
  });

  it("ASCII masks (fold 'nfkc'): up to the first block holding a byte >= 0x80, then the general ones, for every byte at every position", () => {
    // A byte >= 0x80 at each position ends the ASCII run at its block; other bytes keep it.
    const teddy = masksPassing(0x9e3779b9, FILLER);
    const teddyAscii = masksPassing(0x85ebca6b, FILLER);
    const desc = writeDescriptor(filterTables(teddy, all, teddyAscii), 'x', 'y', '0123456789abcdef', 1);
    everyByteEverywhere(desc, FILLER, (input) => reference(teddy, all, input, teddyAscii));
  });

  // Dense masks (OR of two draws) let fingerprints pass; a quarter of the bytes not allowed.
  const masks = fc
    .tuple(fc.uint8Array({ minLength: MASKS, maxLength: MASKS }), fc.uint8Array({ minLength: MASKS, maxLength: MASKS }))
    .map(([a, b]) => a.map((x, i) => x | b[i]!));
  const allowed = fc.array(
    fc.nat(3).map((n) => n !== 0),
    { minLength: 256, maxLength: 256 },
  );

  it('random masks, allowed bytes and inputs of up to 5 blocks', () => {
    // Inputs from a few bytes (case pairs included), so fingerprints pass often enough.
    const alphabet = [0x00, 0x20, 0x41, 0x61, 0x42, 0x62, 0x5f, 0x7f, 0x80, 0xa0, 0xc3, 0xe4, 0xff];
    const fromAlphabet = (min: number, max: number) =>
      fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => Uint8Array.from(a));
    const input = fc.oneof(
      fc.uint8Array({ maxLength: 5 * BLOCK }),
      fromAlphabet(0, 5 * BLOCK),
      // lengths around block ends, where the last block overlaps the one before
      fc.constantFrom(15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 78, 79).chain((n) => fromAlphabet(n, n)),
    );
    fc.assert(
      fc.property(masks, allowed, input, (teddy, ok, bytes) => {
        const desc = writeDescriptor(filterTables(teddy, ok), 'x', 'y', '0123456789abcdef', 1);
        expect(tried(desc, bytes)).toEqual(reference(teddy, ok, bytes));
      }),
      runs(300),
    );
  });

  it('random general and ASCII masks, allowed bytes, and ASCII inputs of up to 5 blocks with a few bytes >= 0x80', () => {
    const asciiBytes = [0x00, 0x20, 0x41, 0x61, 0x42, 0x62, 0x5f, 0x7f];
    const input = fc
      .tuple(
        fc.array(fc.constantFrom(...asciiBytes), { maxLength: 5 * BLOCK }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(0x80, 0xa0, 0xc3, 0xe4, 0xff)), { maxLength: 2 }),
      )
      .map(([bytes, high]) => {
        const out = [...bytes];
        for (const [at, b] of high) if (out.length > 0) out[at % out.length] = b;
        return Uint8Array.from(out);
      });
    fc.assert(
      fc.property(masks, masks, allowed, input, (teddy, teddyAscii, ok, bytes) => {
        const desc = writeDescriptor(filterTables(teddy, ok, teddyAscii), 'x', 'y', '0123456789abcdef', 1);
        expect(tried(desc, bytes)).toEqual(reference(teddy, ok, bytes, teddyAscii));
      }),
      runs(300),
    );
  });

  it('the reference sees the filter: with masks admitting nothing, the SIMD build tries only what it leaves to the scalar loop', () => {
    const desc = writeDescriptor(filterTables(new Uint8Array(MASKS), all), 'x', 'y', '0123456789abcdef', 1);
    for (const len of [2, 3, 4, 15, 16, 17, 30, 31, 32, 46, 47, 48, 63, 64, 65, 78, 79, 80]) {
      const want = coreVariant === 'scalar' ? [...Array(len).keys()] : [...Array(len).keys()].filter((c) => leftToScalar(c, len));
      expect(tried(desc, new Uint8Array(len).fill(0x61))).toEqual(want);
    }
  });
});
