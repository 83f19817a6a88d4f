// Errors without stack traces for the tests that raise tens of thousands of them: capturing a
// stack costs several microseconds an error, often more than the check it ends (a third of
// stream-ndjson-bytes' time). Only the stacks are gone: each error's class, code, message and
// offsets are what the tests compare, and a failing expect still reports its own place.
import { afterAll, beforeAll } from 'vitest';

/** Error.stackTraceLimit = 0 for the tests of the describe (or file) it is called in; restored after. */
export function withoutStackTraces(): void {
  let limit = Error.stackTraceLimit;
  beforeAll(() => {
    limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
  });
  afterAll(() => {
    Error.stackTraceLimit = limit;
  });
}
