// The WASM core's exports: its functions, and (as immutable globals) the constants of its
// interface (abi.ts), from which the build generates src/core/abi.ts for the host. Memory is
// laid out by the host (src/core/memory.ts) above heapBase(); nothing here allocates. The
// shipped core exports this and no more; test-hooks.ts adds what tests look inside with.
export * from './abi';
export { scan } from './match';
export { jsonFinish, jsonReset, jsonStep } from './json/transducer';
export { jsonLarge, jsonLines } from './json/lines';
export { jsonMessages } from './json/framed';
export { countReplacement } from './fffd';
export { result16 } from './result16';
export { utf16ToUtf8 } from './utf8-from16';

export function heapBase(): usize {
  return __heap_base;
}
