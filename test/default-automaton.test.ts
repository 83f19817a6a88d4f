// The default terms' automaton ships compiled (src/compile/default-automaton.ts, written by
// scripts/gen-default-automaton.ts). It must be what the compiler makes of the default terms
// today, entry for entry, and must serve those patterns only.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { render } from '../scripts/gen-default-automaton.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { defaultAutomaton } from '../src/compile/default-tables.ts';
import { compilePatternDfa } from '../src/compile/dfa.ts';
import { compileAutomaton } from '../src/compile/index.ts';
import { patternsKey } from '../src/compile/patterns-key.ts';

const same = (a: ArrayLike<number>, b: ArrayLike<number>) => Buffer.from(Uint8Array.from(a)).equals(Buffer.from(Uint8Array.from(b)));

describe('the default automaton, compiled ahead of time', () => {
  const { patterns } = resolveOptions({});

  it('is current: the committed file is what the generator renders (run it after changing the terms or the compiler)', () => {
    expect(render()).toBe(readFileSync(new URL('../src/compile/default-automaton.ts', import.meta.url), 'utf8'));
  });

  it('reads back as the compiled tables, entry for entry', () => {
    const got = defaultAutomaton(patternsKey(patterns))!;
    const want = compilePatternDfa(patterns);
    expect(got).toBeDefined();
    expect({ ...got, transitions: 0, classes: 0, accepting: 0, grams: 0, teddy: 0 }).toEqual({
      ...want,
      transitions: 0,
      classes: 0,
      accepting: 0,
      grams: 0,
      teddy: 0,
    });
    expect(got.transitions.length).toBe(want.transitions.length);
    expect(new Uint16Array(got.transitions).every((v, i) => v === want.transitions[i])).toBe(true);
    for (const k of ['classes', 'accepting', 'grams', 'teddy'] as const) expect(same(got[k], want[k]), k).toBe(true);
  });

  it('serves the default patterns only', () => {
    const others = [
      patterns.slice(1),
      [...patterns].reverse(),
      patterns.map((p, i) => (i === 0 ? { ...p, ignoreCase: !p.ignoreCase } : p)),
    ];
    for (const ps of others) {
      expect(defaultAutomaton(patternsKey(ps))).toBeUndefined();
      const want = compilePatternDfa(ps);
      expect(same(new Uint8Array(compileAutomaton(ps).transitions.buffer), new Uint8Array(want.transitions.buffer))).toBe(true);
    }
    expect(resolveOptions({ prefix: '__cuaf_' }).patterns).not.toEqual(patterns);
    expect(defaultAutomaton(patternsKey(resolveOptions({ prefix: '__cuaf_' }).patterns))).toBeUndefined();
  });
});
