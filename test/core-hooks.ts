// The core's test hooks (assembly/test-hooks.ts). The shipped core has none: a test file that
// uses them is listed in vitest.config.ts's HOOKS, whose projects run the whole host on the test
// build of the core (test/wasm-bytes-with-hooks.ts in place of src/core/wasm-bytes.ts); one that
// also needs a module graph of its own (OWN_MODULES) loads it by
//   vi.mock('../src/core/wasm-bytes.ts', () => import('./wasm-bytes-with-hooks.ts'));
import { type CoreExports, core } from '../src/core/instance.ts';

export interface CoreHooks {
  /** The indexed path on (1) or off (0), for whole messages; returns how many it has taken. */
  indexedPath(on: number): number;
  /** How many messages the indexed path matched in one pass. */
  wholeScans(): number;
  /** How many messages the indexed path read again (a `data` taken as text, given back). */
  indexedAgain(): number;
  /** How many strings with escapes the indexed path read as raw text (assembly/json/indexed-text.ts readString). */
  rawStrings(): number;
  /** How many of those it decoded after all: a match started at an escape's letter. */
  rawDecoded(): number;
  /** The id of the decoded key at p (n bytes; assembly/fields.ts), or KEY_OTHER. */
  keyId(p: number, n: number): number;
}

export const hooks = core as CoreExports & CoreHooks;
if (typeof hooks.indexedPath !== 'function')
  throw new Error(
    "test/core-hooks.ts: the shipped core has no hooks; list the test file in vitest.config.ts's HOOKS, or mock '../src/core/wasm-bytes.ts' with './wasm-bytes-with-hooks.ts' in an OWN_MODULES file",
  );
