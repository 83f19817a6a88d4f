// memoise keeps short keys only: a peer's long strings are computed each time, never held.
import { describe, expect, it } from 'vitest';
import { memoise } from '../src/util/memoise.ts';

describe('memoise', () => {
  it('caches keys up to maxKeyLength, computes longer ones every time, and drops the cache when full', () => {
    let calls = 0;
    const f = memoise(
      (k) => {
        calls++;
        return k.toUpperCase();
      },
      3,
      4,
    );
    expect([f('abcd'), f('abcd')]).toEqual(['ABCD', 'ABCD']);
    expect(calls).toBe(1);
    expect([f('abcde'), f('abcde')]).toEqual(['ABCDE', 'ABCDE']);
    expect(calls).toBe(3);
    for (const k of ['a', 'b', 'c']) f(k); // (the third fills it: the cache is dropped)
    calls = 0;
    f('abcd');
    expect(calls).toBe(1);
  });
});
