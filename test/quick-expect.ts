// expect() for loops of thousands: vitest spends about 10 µs building an assertion for each
// `expect(...)` call (its state, chai's proxy), more than many checks cost. These compare first
// and call expect only when the values differ, so a failure reads as it would have.
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

/** expect(actual).toEqual(expected); deeply strictly equal values pass at once (toEqual is looser, never stricter). */
export function expectEqual(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toEqual(expected);
}

/** expect(actual).toBe(expected). */
export function expectBe(actual: unknown, expected: unknown): void {
  if (!Object.is(actual, expected)) expect(actual).toBe(expected);
}
