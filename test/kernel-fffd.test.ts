// The U+FFFD counter of the WASM core (assembly/fffd.ts countReplacement: SIMD compares three
// shifted loads per 16 positions, then a scalar tail), called directly, in the simdutf manner:
// every short sequence over the bytes that matter (EF BF BD, and bytes that are none of them),
// at every position of a 16-byte block, in inputs whose length puts the sequence in the SIMD
// loop, across its last block, or in the scalar tail; against a scalar reference. Both builds
// (the vitest projects).
import { afterAll, describe, expect, it } from 'vitest';
import { core } from '../src/core/instance.ts';
import { allocate, free, heap, heap32 } from '../src/core/memory.ts';

const BLOCK = 16;
/** The longest input: the sequence after a block of filler, at any lane, and two blocks more. */
const MAX = 5 * BLOCK;
// (Four bytes of room before the input, to start it at any alignment.)
const room = allocate(MAX + 4 + 8);
const result = room + MAX + 4;
afterAll(() => free(room, MAX + 4 + 8));

/** The reference: how many EF BF BD, and where the first starts (-1: none). */
function reference(b: Uint8Array): [number, number] {
  let count = 0;
  let first = -1;
  for (let i = 0; i + 3 <= b.length; i++) {
    if (b[i] === 0xef && b[i + 1] === 0xbf && b[i + 2] === 0xbd) {
      if (first < 0) first = i;
      count++;
    }
  }
  return [count, first];
}

/** The core's count over `n` bytes at `at` (the bytes after them are there too: never read). */
function counted(at: number, n: number): [number, number] {
  core.countReplacement(at, n, result);
  const words = heap32();
  return [words[result >> 2]!, words[(result >> 2) + 1]! | 0];
}

/** Every sequence of `length` bytes over `alphabet`. */
function* sequences(alphabet: number[], length: number): Generator<number[]> {
  if (length === 0) return yield [];
  for (const head of sequences(alphabet, length - 1)) for (const b of alphabet) yield [...head, b];
}

/**
 * Runs each sequence at every lane of the block after `lead` bytes of `filler`, and gives the
 * core every length of input from the sequence's start to MAX: the sequence whole, or cut by the
 * end of the input with its other bytes still in memory after it (the core must not read them).
 * Returns the disagreements with the reference (at most 10).
 */
function check(seqs: Iterable<number[]>, filler: number, lead = BLOCK, aligns = [0]): string[] {
  const wrong: string[] = [];
  const input = new Uint8Array(MAX);
  for (const seq of seqs) {
    for (let lane = 0; lane < BLOCK; lane++) {
      const start = lead + lane;
      if (start + seq.length > MAX) continue;
      input.fill(filler);
      input.set(seq, start);
      for (const align of aligns) {
        heap().set(input, room + align);
        for (let n = start; n <= MAX; n += n < start + seq.length + 20 ? 1 : 5) {
          const want = reference(input.subarray(0, n));
          const got = counted(room + align, n);
          if ((got[0] !== want[0] || got[1] !== want[1]) && wrong.length < 10) {
            wrong.push(
              `[${seq.map((x) => x.toString(16)).join(' ')}] at ${start} of ${n} (align ${align}): core ${got}, reference ${want}`,
            );
          }
        }
      }
    }
  }
  return wrong;
}

const FFFD = [0xef, 0xbf, 0xbd];

describe('countReplacement (the U+FFFD counter), against a scalar reference', () => {
  it('every sequence of up to four bytes of EF, BF, BD and others, at every lane, every input length', () => {
    const alphabet = [0xef, 0xbf, 0xbd, 0x61];
    for (let length = 1; length <= 4; length++) expect(check(sequences(alphabet, length), 0x61)).toEqual([]);
  });

  it('a U+FFFD beside bytes that share its high bits, in a filler of either kind', () => {
    // (A wrong splat or compare lane would confuse EF/BF/BD with their neighbours or with 0xFF.)
    const near = [0xee, 0xf0, 0xbe, 0xc0, 0xbc, 0xff, 0x00, 0x7f];
    const seqs = function* () {
      for (const x of near) {
        yield [x, ...FFFD];
        yield [...FFFD, x];
        for (let k = 0; k < 3; k++) yield FFFD.map((b, i) => (i === k ? x : b));
      }
    };
    expect(check(seqs(), 0x61)).toEqual([]);
    expect(check(seqs(), 0xbd)).toEqual([]);
  });

  it('several U+FFFD: the first is the least offset, all are counted, at any alignment', () => {
    const seqs = function* () {
      for (let gap = 0; gap <= 2 * BLOCK; gap++) yield [...FFFD, ...new Array<number>(gap).fill(0x61), ...FFFD];
      yield [...FFFD, ...FFFD, ...FFFD, ...FFFD, ...FFFD];
    };
    expect(check(seqs(), 0x61, 0, [0, 1, 2, 3])).toEqual([]);
  });

  it('counts none in an empty input or one shorter than U+FFFD', () => {
    heap().set([0xef, 0xbf, 0xbd], room);
    for (let n = 0; n < 3; n++) expect(counted(room, n)).toEqual([0, -1]);
    heap().set([0xbf, 0xbd], room);
    expect(counted(room, 2)).toEqual([0, -1]);
  });
});
