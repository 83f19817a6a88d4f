// The host side of WASM memory: a bump allocator for long-lived tables and a pair of work
// regions (input, output) reused by every call. Views are cached and refreshed after growth.
import { core } from './instance.js';

const PAGE = 65536;
let top = align(core.heapBase());
let bytes = new Uint8Array(core.memory.buffer);
let words = new Uint32Array(core.memory.buffer);

function align(n: number): number {
  return (n + 15) & ~15;
}

/** The current byte view of WASM memory (a new one after the memory grew). */
export function heap(): Uint8Array {
  if (bytes.buffer !== core.memory.buffer) bytes = new Uint8Array(core.memory.buffer);
  return bytes;
}

/** The current 32-bit view of WASM memory (index = byte address / 4). */
export function heap32(): Uint32Array {
  if (words.buffer !== core.memory.buffer) words = new Uint32Array(core.memory.buffer);
  return words;
}

/** Reserves `size` bytes that stay valid for the life of the module. */
export function allocate(size: number): number {
  const ptr = top;
  top = align(top + size);
  const need = top - core.memory.buffer.byteLength;
  if (need > 0) core.memory.grow(Math.ceil(need / PAGE));
  return ptr;
}

/** Input and output work regions; see {@link workspace}. */
export interface Workspace {
  readonly input: number;
  readonly inputCapacity: number;
  readonly output: number;
  readonly outputCapacity: number;
}

let current: Workspace | undefined;

/**
 * Work regions with at least the given capacities. Regions are replaced (never shrunk) when
 * a call needs more; the old ones are left behind, which is bounded by the largest request.
 */
export function workspace(inputCapacity: number, outputCapacity: number): Workspace {
  if (current && current.inputCapacity >= inputCapacity && current.outputCapacity >= outputCapacity) return current;
  const inCap = Math.max(inputCapacity, current?.inputCapacity ?? 0);
  const outCap = Math.max(outputCapacity, current?.outputCapacity ?? 0);
  const input = allocate(inCap);
  const output = allocate(outCap);
  current = { input, inputCapacity: inCap, output, outputCapacity: outCap };
  return current;
}
