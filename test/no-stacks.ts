// Errors made by the thousand in a test's loop (JSON.parse's SyntaxError when a test asks which
// lines are JSON, eventsource-parser's ParseError for each line it cannot read; the stream's own
// PayloadStreamError records none): V8 records a stack trace for each, which costs more than the
// check (indexed-escape-runs spent 4 of its 11 s a build on them, stream-ndjson-bytes 3.3 of
// 11.8, before PayloadStreamError stopped recording one). The tests compare an error's code, message
// and place, never its stack. Only the code under test runs without: an assertion that fails
// still reports where (with the limit at 0 around the whole test, vitest shows no place).

/** `f()` with no stack trace recorded for the errors made in it. */
export function withoutStacks<T>(f: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return f();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Whether JSON.parse takes `text` (asked by the thousand: the SyntaxError records no stack). */
export const parsesAsJson = (text: string): boolean =>
  withoutStacks(() => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  });
