// The WASM core's exports. Memory is laid out by the host (src/core/memory.ts) above
// heapBase(); nothing here allocates.
export { scan } from './match';
export { jsonFinish, jsonReset, jsonStep } from './json';
export { countReplacement } from './fffd';

export function heapBase(): usize {
  return __heap_base;
}
