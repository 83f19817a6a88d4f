// The upstream's head and body limits share one timer per length (src/cli/deadlines.ts). Held
// on vitest's fake clock to the millisecond against a reference that is a list of due times:
// whatever is set, renewed and cleared, in any order, each deadline fires once, when its time
// has come and not before, unless cleared first; one that fires may set or clear others.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Deadline, Deadlines } from '../src/cli/deadlines.js';
import { runs } from './arbitraries.ts';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

type Op = { op: 'set' } | { op: 'renew' | 'clear'; which: number } | { op: 'wait'; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ op: 'set' as const }),
  fc.record({ op: fc.constantFrom('renew' as const, 'clear' as const), which: fc.nat(20) }),
  fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 40 }) }),
);

describe('Deadlines', () => {
  it('fires each deadline once, at its time, unless cleared or renewed before (a list of due times)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.array(op, { maxLength: 40 }), (ms, ops) => {
        vi.setSystemTime(0);
        const deadlines = new Deadlines(ms);
        const made: Deadline[] = [];
        const fired: [number, number][] = []; // [which, when]
        // The reference: each deadline's due time, or none (fired, cleared).
        const due: (number | undefined)[] = [];
        let now = 0;
        for (const o of ops) {
          if (o.op === 'set') {
            const which = made.length;
            made.push(deadlines.set(() => void fired.push([which, now])));
            due.push(now + ms);
          } else if (o.op === 'wait') {
            for (let t = 0; t < o.ms; t++) {
              now++;
              vi.advanceTimersByTime(1);
              const expected = due.flatMap((d, which) => (d === now ? [which] : []));
              for (const which of expected) due[which] = undefined;
              const firedNow = fired.flatMap(([which, when]) => (when === now ? [which] : []));
              expect(firedNow.sort((a, b) => a - b)).toEqual(expected);
            }
          } else if (made.length) {
            const which = o.which % made.length;
            if (o.op === 'clear') {
              deadlines.clear(made[which]);
              due[which] = undefined;
            } else {
              deadlines.renew(made[which]!);
              due[which] = now + ms;
            }
          }
        }
        const last = now;
        now += ms + 1;
        vi.advanceTimersByTime(ms + 1); // (what is still set fires, once)
        const left = due.flatMap((d, which) => (d === undefined ? [] : [which]));
        const late = fired.flatMap(([which, when]) => (when > last ? [which] : []));
        expect(late.sort((a, b) => a - b)).toEqual(left);
      }),
      runs(200),
    );
  });

  it('a deadline that fires can set and clear others; one that throws leaves the rest due', () => {
    vi.setSystemTime(0);
    const deadlines = new Deadlines(10);
    const seen: string[] = [];
    const later = deadlines.set(() => seen.push('later'));
    deadlines.set(() => {
      seen.push('first');
      deadlines.clear(later);
      deadlines.set(() => seen.push('set by first'));
    });
    deadlines.set(() => {
      throw new Error('a fire that throws');
    });
    deadlines.set(() => seen.push('after the throw'));
    deadlines.renew(later); // (now last in the list, due with the others still)
    expect(() => vi.advanceTimersByTime(10)).toThrow('a fire that throws');
    expect(seen).toEqual(['first']);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(['first', 'after the throw']);
    vi.advanceTimersByTime(9);
    expect(seen).toEqual(['first', 'after the throw', 'set by first']);
  });
});
