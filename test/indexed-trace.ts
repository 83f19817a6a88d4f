// One stream's trace with the indexed path on or off, what the indexed-* tests compare: its
// output, callbacks and errors, and how many messages the indexed path took. Only for test
// files that run the core with its hooks (test/core-hooks.ts says how).
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import type { StreamOptions } from '../src/stream/index.ts';
import { hooks } from './core-hooks.ts';
import { describeError } from './ndjson-scenarios.ts';

/**
 * What one stream did with `input`: its output (through `writer`, into the log) and its
 * callbacks and errors in the order they came; `lines` false turns the NDJSON lane off.
 */
export function indexedTrace(
  mode: 'encode' | 'decode',
  input: Uint8Array,
  codec: StreamOptions,
  indexed: boolean,
  writer: (log: unknown[]) => (b: Uint8Array) => void,
  lines = true,
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
    t.push(input);
    t.close();
  } catch (e) {
    log.push(['threw', ...describeError(e)]);
  }
  return { log, taken: hooks.indexedPath(1) - before };
}
