// The core as tests build it (scripts/build.mjs: build/core-hooks.*.wasm, which the package
// does not ship): the shipped core's exports, and hooks to look inside it. Tests load it in
// place of the shipped one with test/core-hooks.ts.
export * from './index';
export { indexedPath } from './json/whole'; // the indexed path against the per-message one
export { wholeScans } from './json/indexed-rewrite'; // messages matched in one pass
export { indexedAgain } from './json/indexed'; // messages the indexed path read again
export { rawDecoded, rawStrings } from './json/indexed-text'; // strings with escapes matched raw, and decoded after all
export { keyId } from './fields'; // test/kernel-key-id.test.ts
