// The pattern compiler reads byte classes off the patterns and builds the DFA over classes
// (src/compile/byte-classes.ts patternClasses, dfa.ts). Held to the obvious construction: the
// DFA over all 256 bytes, then bytes whose columns are equal in every row grouped. The tables
// the core walks must be the same, entry for entry.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TERMS, expandPatterns, type Pattern } from '../src/codec/terms.ts';
import { byteClasses } from '../src/compile/byte-classes.ts';
import { compilePatternDfa, patternBytes } from '../src/compile/dfa.ts';
import { determinize } from '../src/compile/subsets.ts';
import { runs } from './arbitraries.ts';

/** The DFA over 256 bytes, packed by column equality: the construction before classes came first. */
function reference(patterns: readonly Pattern[]) {
  const seqs = patterns.map(patternBytes);
  const stride = Math.max(...seqs.map((s) => s.length)) + 1;
  const { rows, accepting } = determinize(
    seqs.map((_, p) => p * stride),
    (pos, edge) => {
      const seq = seqs[Math.floor(pos / stride)]!;
      const k = pos % stride;
      if (k === seq.length) return true;
      for (const b of seq[k]!) edge(b, pos + 1);
      return false;
    },
    false,
    '',
  );
  const { classes, classCount } = byteClasses(rows);
  const transitions = new Uint16Array(rows.length * classCount);
  rows.forEach((row, s) => {
    for (let b = 0; b < 256; b++) transitions[s * classCount + classes[b]!] = row[b]!;
  });
  return { classes, classCount, transitions, accepting: Uint8Array.from(accepting) };
}

function same(patterns: readonly Pattern[]): void {
  const got = compilePatternDfa(patterns);
  const want = reference(patterns);
  expect(got.classCount).toBe(want.classCount);
  expect(Buffer.from(got.classes).equals(Buffer.from(want.classes))).toBe(true);
  expect(Buffer.from(got.accepting).equals(Buffer.from(want.accepting))).toBe(true);
  expect(Buffer.from(got.transitions.buffer).equals(Buffer.from(want.transitions.buffer))).toBe(true);
}

// Letters in both cases, digits, punctuation, 2-4 byte characters: cased and exact patterns
// that share prefixes and bytes.
const char = fc.constantFrom(...'qQwWeEnNaAlLiIbB0_-.阿里é𝄞'.split(/(?:)/u));
const pattern = fc.record({ text: fc.array(char, { minLength: 1, maxLength: 7 }).map((a) => a.join('')), ignoreCase: fc.boolean() });

describe('pattern DFA over byte classes read off the patterns', () => {
  it('is the DFA of the default terms, packed by column equality', () => {
    same(expandPatterns(DEFAULT_TERMS, '__mcp_ref_'));
  });

  it('is the same tables on random pattern sets', () => {
    fc.assert(
      fc.property(fc.uniqueArray(pattern, { minLength: 1, maxLength: 12, selector: (p) => `${p.ignoreCase}:${p.text}` }), (patterns) => {
        same(patterns);
      }),
      runs(300),
    );
  });
});
