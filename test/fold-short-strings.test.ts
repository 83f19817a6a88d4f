// fold 'nfkc' on final strings of 1-80 bytes (assembly/match.ts: 4-16 bytes one block, 17-64
// shortBlocks, with the ASCII masks when the string is all ASCII and the general ones when not;
// from 65 the loop, its ASCII run two blocks a step): the core's byte records against the
// automaton walked in JS at every position (leftmost-longest, no prefilter), so a start the
// prefilter drops shows. Terms, their near misses and lookalikes end at every offset of strings
// whose lengths straddle 16/17, 32/33, 64/65. Both builds (vitest projects).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../src/codec/options.ts';
import { compileAutomaton } from '../src/compile/index.ts';
import { MODE_BYTE_RECORDS } from '../src/core/abi.ts';
import { writeDescriptor } from '../src/core/descriptor.ts';
import { core, coreVariant } from '../src/core/instance.ts';
import { heap, heap32, workspace } from '../src/core/memory.ts';
import { DEFAULT_TERMS } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { foldedPatterns, lookalikeTerm } from './fold-reference.ts';

const utf8 = new TextEncoder();
const automaton = compileAutomaton(resolveOptions({ fold: 'nfkc' }).patterns);
const desc = writeDescriptor(automaton, 'x', 'y', '0123456789abcdef', 1);

/** The core's matches in final input, as [start, end) byte pairs. */
function scanned(input: Uint8Array): number[][] {
  const ws = workspace(Math.max(input.length, 64), 8 * input.length + 64);
  heap().set(input, ws.input);
  core.scan(desc.ptr, ws.input, input.length, ws.output, 1, MODE_BYTE_RECORDS);
  const words = heap32();
  return Array.from({ length: desc.matchCount() }, (_, k) => [words[(ws.output >> 2) + 2 * k]!, words[(ws.output >> 2) + 2 * k + 1]!]);
}

/** The reference: the automaton walked from every position, the longest match taken and skipped. */
function walked(input: Uint8Array): number[][] {
  const { transitions, classes, classCount, accepting } = automaton;
  const out: number[][] = [];
  for (let p = 0; p < input.length; p++) {
    let best = 0;
    for (let j = p, s = 1; j < input.length; j++) {
      s = transitions[s * classCount + classes[input[j]!]!]!;
      if (s === 0) break;
      if (accepting[s]) best = j + 1;
    }
    if (best > 0) {
      out.push([p, best]);
      p = best - 1;
    }
  }
  return out;
}

/** s placed so that it ends at every byte of a string of n bytes (z around it), or s itself if longer. */
function everyPlace(s: Uint8Array, n: number, filler: number): Uint8Array[] {
  if (s.length >= n) return [s];
  return Array.from({ length: n - s.length + 1 }, (_, at) => {
    const input = new Uint8Array(n).fill(filler);
    input.set(s, at);
    return input;
  });
}

// The lengths where the paths meet: one block and one byte, two, the short path's last and the loop's first.
const EDGES = [1, 3, 4, 15, 16, 17, 18, 29, 31, 32, 33, 34, 45, 47, 48, 49, 63, 64, 65, 66, 79, 80];
const ASCII_PATTERNS = foldedPatterns(DEFAULT_TERMS).filter((p) => /^[\x20-\x7e]+$/.test(p));

describe(`fold 'nfkc', final strings of 1-80 bytes, every offset (${coreVariant} build)`, () => {
  it('each ASCII pattern, in both cases, and its near miss at every offset: the walk reference', () => {
    let matched = 0;
    let firstMismatch = '';
    for (const p of ASCII_PATTERNS) {
      for (const spelling of [p, p.toUpperCase(), p.slice(0, -1), `${p.slice(0, 1)}\u00e9${p.slice(1)}`]) {
        for (const n of EDGES) {
          for (const input of everyPlace(utf8.encode(spelling), n, 0x7a)) {
            const reference = walked(input);
            const [got, want] = [scanned(input), reference].map((m) => m.join(' '));
            matched += reference.length;
            if (got !== want) firstMismatch ||= `${JSON.stringify(spelling)} in ${n} bytes: [${got}], reference [${want}]`;
          }
        }
      }
    }
    expect(firstMismatch).toBe('');
    expect(matched).toBeGreaterThan(1000); // (the sweep finds terms)
  });

  // A sequence of ASCII spellings, lookalike spellings, near misses and other characters,
  // at every offset of a string of n bytes, the filler ASCII or not.
  const spelling = fc
    .tuple(fc.constantFrom(...ASCII_PATTERNS), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.boolean())
    .map(([p, upper, miss]) => Array.from(miss ? p.slice(0, -1) : p, (c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join(''));
  const piece = fc.oneof(
    { arbitrary: spelling, weight: 4 },
    { arbitrary: lookalikeTerm(DEFAULT_TERMS), weight: 3 },
    { arbitrary: fc.constantFrom(' ', '-', 'al', 'q', 'é', '中', '\u200b', '😀'), weight: 2 },
  );
  const seq = fc.array(piece, { minLength: 1, maxLength: 3 }).map((ps) => utf8.encode(ps.join('')));
  const length = fc.oneof(fc.constantFrom(...EDGES), fc.integer({ min: 1, max: 80 }));

  it('terms, near misses and lookalikes at every offset: the walk reference', () => {
    fc.assert(
      fc.property(seq, length, fc.constantFrom(0x7a, 0x20, 0x80), (s, n, filler) => {
        // (0x80: a lone continuation byte, so that the string is not ASCII wherever the sequence is)
        for (const input of everyPlace(s, n, filler)) expect(scanned(input), `${input.length} bytes: ${input}`).toEqual(walked(input));
      }),
      runs(300),
    );
  });
});
