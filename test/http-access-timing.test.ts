// The bearer check's time says nothing of a wrong token: one of the right length that differs
// in its first or its last character, and ones of other lengths (shorter, longer, half), cost the
// same as each other. A statistical test, not a timed assertion: CPU time, the least of runs
// taken in turn (noise only slows a run), against a bound far from what a leak gives (a `===`
// or an early exit makes some of these cost nothing next to the others: ratios of 100 or more).
import { describe, expect, it } from 'vitest';
import { tokenIndex } from '../src/http/access/bearer.ts';
import { cpuMillis } from './scaling.ts';

/** Long enough that the comparison, not the call, is what is measured. */
const L = 20_000;
const real = 'r'.repeat(L - 1) + 'Z';
const known = [{ token: real }, { token: `s${'q'.repeat(L - 2)}Y` }];
const wrong = {
  'right length, last character': `${real.slice(0, -1)}X`,
  'right length, first character': `X${real.slice(1)}`,
  'one shorter': real.slice(0, -1),
  'one longer': `${real}r`,
  'half as long': real.slice(0, L / 2),
  '16 characters': real.slice(0, 16),
};
const CALLS = 20;

describe('the bearer comparison', () => {
  it('costs the same for a wrong token of the right length and of wrong lengths (least CPU time of runs in turn)', () => {
    const kinds = Object.entries(wrong);
    for (const [, token] of kinds) expect(tokenIndex(known, token)).toBe(-1);
    expect(tokenIndex(known, real)).toBe(0);
    const least = new Map(kinds.map(([name]) => [name, Number.POSITIVE_INFINITY]));
    for (let round = 0; round < 10; round++)
      for (const [name, token] of kinds) {
        const ms = cpuMillis(() => {
          for (let i = 0; i < CALLS; i++) tokenIndex(known, token);
        });
        least.set(name, Math.min(least.get(name)!, ms));
      }
    const times = [...least.values()];
    const ratio = Math.max(...times) / Math.min(...times);
    // (equal work gives about 1; the bound is for a busy host, far below what a leak gives)
    expect(ratio, JSON.stringify(Object.fromEntries(least))).toBeLessThan(3);
  });
});
