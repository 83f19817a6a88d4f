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

// Only allocate() grows the memory (the core never allocates), so the views are refreshed
// there; reading `memory.buffer` on every call would cost more than a short string's scan.
function refreshViews(): void {
  bytes = new Uint8Array(core.memory.buffer);
  words = new Uint32Array(core.memory.buffer);
}

/** The current byte view of WASM memory. */
export function heap(): Uint8Array {
  return bytes;
}

/** The current 32-bit view of WASM memory (index = byte address / 4). */
export function heap32(): Uint32Array {
  return words;
}

/** Reserves `size` bytes that stay valid for the life of the module. */
export function allocate(size: number): number {
  const ptr = top;
  top = align(top + size);
  const need = top - core.memory.buffer.byteLength;
  if (need > 0) {
    core.memory.grow(Math.ceil(need / PAGE));
    refreshViews();
  }
  return ptr;
}

const freeBlocks = new Map<number, number[]>();

/** A block for a stream's state and buffers; give it back with releaseBlock when done. */
export function acquireBlock(size: number): number {
  return freeBlocks.get(size)?.pop() ?? allocate(size);
}

export function releaseBlock(ptr: number, size: number): void {
  const list = freeBlocks.get(size);
  if (list) list.push(ptr);
  else freeBlocks.set(size, [ptr]);
}

/** Work regions reused by every call: input bytes, output (bytes or records). */
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
export function workspace(input: number, output: number): Workspace {
  const c = current;
  if (c && c.inputCapacity >= input && c.outputCapacity >= output) return c;
  const inputCapacity = Math.max(input, c?.inputCapacity ?? 0);
  const outputCapacity = Math.max(output, c?.outputCapacity ?? 0);
  current = {
    input: allocate(inputCapacity), inputCapacity,
    output: allocate(outputCapacity), outputCapacity,
  };
  return current;
}
