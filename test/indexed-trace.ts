// One stream's trace with the indexed path on or off, what the indexed-* tests compare: its
// output, callbacks and errors, and how many messages the indexed path took. Only for test
// files that run the core with its hooks (test/core-hooks.ts says how).
import fc from 'fast-check';
import { expect } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { createByteTransformer, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { describeError, outputAppender } from './ndjson-scenarios.ts';
import { growth } from './scaling.ts';

/**
 * What one stream did with `input` (pushed whole, or in pieces cut at the ascending offsets
 * `cuts`, each a copy): its output (through `writer`, into the log) and its callbacks and
 * errors in the order they came; `lines` false turns the NDJSON lane off.
 */
export function indexedTrace(
  mode: 'encode' | 'decode',
  input: Uint8Array,
  codec: StreamOptions,
  indexed: boolean,
  writer: (log: unknown[]) => (b: Uint8Array) => void,
  lines = true,
  cuts: readonly number[] = [],
): { log: unknown[]; taken: number } {
  const log: unknown[] = [];
  const options: StreamOptions = {
    ...codec,
    onInvalidMessage: (e) => void log.push(['invalid', ...describeError(e)]),
    onCollision: (e) => void log.push(['dropped', ...describeError(e)]),
  };
  const before = hooks.indexedPath(indexed ? 1 : 0);
  const t = byteTransformer(mode, options, writer(log), { lines });
  try {
    let from = 0;
    for (const c of cuts) {
      t.push(input.slice(from, c));
      from = c;
    }
    t.push(from === 0 ? input : input.slice(from));
    t.close();
  } catch (e) {
    log.push(['threw', ...describeError(e)]);
  }
  return { log, taken: hooks.indexedPath(1) - before };
}

/**
 * Each generated line traced with the indexed path on and off (`trace`) must agree, and more
 * than a tenth of them must be taken by it: else the path under test is barely reached.
 */
export function agreeTaken(
  lines: fc.Arbitrary<string>,
  trace: (line: string, indexed: boolean) => { log: unknown[]; taken: number },
  n = 400,
): void {
  let taken = 0;
  fc.assert(
    fc.property(lines, (line) => {
      const on = trace(line, true);
      expect(trace(line, false).log).toEqual(on.log);
      if (on.taken > 0) taken++;
    }),
    runs(n),
  );
  expect(taken).toBeGreaterThan(n / 10);
}

/** The terms the tests of stage 2's small loops use (indexed-members, indexed-loops-adversary). */
export const LOOP_TERMS: StreamOptions = { terms: { ascii: ['wanx', 'qwen'] } };

/** What one stream did with `line` (a newline added) under LOOP_TERMS, and whether the indexed path took it. */
export const loopLineTrace = (mode: 'encode' | 'decode', line: string, indexed: boolean) =>
  indexedTrace(mode, new TextEncoder().encode(`${line}\n`), LOOP_TERMS, indexed, outputAppender);

/**
 * How a stream's CPU time grows from `small` to `big` (test/scaling.ts), and how many of `big`'s
 * lines the indexed path took, counted on growth's warm-up run of `big` (no run of its own).
 */
export function indexedGrowth(
  mode: 'encode' | 'decode',
  small: Uint8Array,
  big: Uint8Array,
): { growth: number; taken: number | undefined } {
  const once = (b: Uint8Array) => () => {
    const t = createByteTransformer(mode, {}, () => {});
    t.push(b);
    t.close();
  };
  let taken: number | undefined;
  const bigCounted = () => {
    const before = hooks.indexedPath(1);
    once(big)();
    taken ??= hooks.indexedPath(1) - before;
  };
  return { growth: growth(once(small), bigCounted), taken };
}
