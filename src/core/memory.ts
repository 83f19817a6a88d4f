// The host side of WASM memory: an allocator (first fit over address-ordered free ranges,
// coalesced on free, so memory given back is reused whatever its size) for codec tables and
// stream blocks, and a pair of work regions (input, output) reused by every string call.
// WASM memory cannot shrink; what is freed is reused. Views are cached and refreshed after growth.
import { WasmMemoryFullError } from '../errors.js';
import { core } from './instance.js';

const PAGE = 65536;
/**
 * Memory grows by a quarter of its size, at most this many pages (256 MiB), or by what one block
 * needs if that is more (near the 4 GiB limit, by only what it needs):
 * each grow has V8 account for the whole new buffer, and it may collect garbage, so a grow per
 * new stream made thousands of open streams cost a minute (86% of it in the collector). Pages
 * grown and not yet used are address space only.
 */
const MAX_STEP = 4096;
let top = align(core.heapBase());
let bytes = new Uint8Array(core.memory.buffer);
let words = new Uint32Array(core.memory.buffer);
// Free ranges below `top`, sorted by address, never adjacent (adjacent ones are merged).
const freeStarts: number[] = [];
const freeSizes: number[] = [];

function align(n: number): number {
  return Math.ceil(n / 16) * 16; // (not 32-bit arithmetic: a size past 2 GiB must not wrap)
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

/** allocate() calls that succeeded (frees never take room away: room found stays until the next). */
let allocations = 0;

/** How many allocations succeeded so far; unchanged, only frees happened since (room found then is there still). */
export function allocationCount(): number {
  return allocations;
}

/** Reserves `size` bytes (16-byte aligned) until they are given back with `free`. */
export function allocate(size: number): number {
  allocations++; // (counted before it may fail: a failed one leaves the heap as it was, and counting it only costs a check)
  const n = align(Math.max(size, 1));
  for (let i = 0; i < freeStarts.length; i++) {
    if (freeSizes[i]! < n) continue;
    const ptr = freeStarts[i]!;
    if (freeSizes[i] === n) {
      freeStarts.splice(i, 1);
      freeSizes.splice(i, 1);
    } else {
      freeStarts[i] = ptr + n;
      freeSizes[i]! -= n;
    }
    return ptr;
  }
  const ptr = top;
  const need = ptr + n - core.memory.buffer.byteLength;
  if (need > 0) {
    const pages = Math.ceil(need / PAGE);
    try {
      try {
        core.memory.grow(Math.max(pages, Math.min(MAX_STEP, core.memory.buffer.byteLength / PAGE / 4)));
      } catch {
        core.memory.grow(pages); // (near the limit: only what is needed)
      }
    } catch {
      // Past what WASM memory can hold (4 GiB): the heap is as it was. Idle streams hold none;
      // each stream in the middle of a message read in pieces holds about 1 MB.
      throw new WasmMemoryFullError(
        `mcp-payload-codec: WASM memory is full (${core.memory.buffer.byteLength} bytes; ${size} more asked for): ` +
          'each stream in the middle of a message read in pieces holds about 1 MB of it until that message ends or the stream is cancelled',
      );
    }
    refreshViews();
  }
  top = ptr + n;
  return ptr;
}

/** Gives back what `allocate(size)` returned at `ptr`. */
export function free(ptr: number, size: number): void {
  let start = ptr;
  let n = align(Math.max(size, 1));
  let lo = 0;
  let hi = freeStarts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (freeStarts[mid]! < start) lo = mid + 1;
    else hi = mid;
  }
  // Merge with the range after it, then the one before it.
  if (lo < freeStarts.length && start + n === freeStarts[lo]) {
    n += freeSizes[lo]!;
    freeStarts.splice(lo, 1);
    freeSizes.splice(lo, 1);
  }
  if (lo > 0 && freeStarts[lo - 1]! + freeSizes[lo - 1]! === start) {
    lo--;
    start = freeStarts[lo]!;
    n += freeSizes[lo]!;
    freeStarts.splice(lo, 1);
    freeSizes.splice(lo, 1);
  }
  if (start + n === top)
    top = start; // (the end of the heap is simply lowered)
  else {
    freeStarts.splice(lo, 0, start);
    freeSizes.splice(lo, 0, n);
  }
}

/** Bytes in use or free below the top of the heap, and how many are free (for tests). */
export function heapStats(): { top: number; free: number; ranges: number } {
  return { top, free: freeSizes.reduce((a, b) => a + b, 0), ranges: freeSizes.length };
}

/** Work regions reused by every call: input bytes, output (bytes or records). */
export interface Workspace {
  readonly input: number;
  readonly inputCapacity: number;
  readonly output: number;
  readonly outputCapacity: number;
}

let current: Workspace | undefined;
let view: { bytes: Uint8Array; ws: Workspace; capacity: number; view: Uint8Array } | undefined;

/**
 * The first `capacity` bytes of a work region's input, as a view made once per region and
 * memory (encodeInto writes there for every string; a new view each time cost 1-3%).
 */
export function inputView(ws: Workspace, capacity: number): Uint8Array {
  const v = view;
  if (v && v.bytes === bytes && v.ws === ws && v.capacity === capacity) return v.view;
  view = { bytes, ws, capacity, view: bytes.subarray(ws.input, ws.input + capacity) };
  return view.view;
}

/**
 * Work regions with at least the given capacities. Regions are replaced (never shrunk) when
 * a call needs more, and the old ones freed (no call holds them across another).
 */
export function workspace(input: number, output: number): Workspace {
  const c = current;
  if (c && c.inputCapacity >= input && c.outputCapacity >= output) return c;
  const inputCapacity = Math.max(input, c?.inputCapacity ?? 0);
  const outputCapacity = Math.max(output, c?.outputCapacity ?? 0);
  if (c) {
    free(c.input, c.inputCapacity);
    free(c.output, c.outputCapacity);
  }
  current = {
    input: allocate(inputCapacity),
    inputCapacity,
    output: allocate(outputCapacity),
    outputCapacity,
  };
  return current;
}

let result: { ptr: number; size: number } | undefined;

/**
 * A work region of at least `size` bytes for building a result (src/core/utf16-result.ts),
 * reused like the others: replaced, never shrunk, when a call needs more.
 */
export function resultRegion(size: number): number {
  if (result && result.size >= size) return result.ptr;
  if (result) free(result.ptr, result.size);
  result = { ptr: allocate(size), size };
  return result.ptr;
}
