// The transducer's working memory (state, stack, windows, records, events, output, input and
// the batch regions: about 1 MB) is not a stream's but a call's or a message's: a stream takes
// a block from here for a batch call (NDJSON lines, framed bodies, a large message) or for a
// message read the per-message way, and gives it back when the call or the message ends. So a
// stream between messages holds no WASM memory at all, and thousands of idle streams (an HTTP
// server's open event streams) cost none; only streams in the middle of a message hold one.
// Blocks given back are kept for the next taker of the same layout, laid out already (a call
// then sets a few fields, not the whole state); past a few, they go back to the allocator.
import { allocate, allocationCount, free } from '../core/memory.js';
import { WasmMemoryFullError } from '../errors.js';

/** A block of WASM memory and the layout of its regions (`key`: the same key, the same layout). */
export interface PooledBlock {
  readonly block: number;
  readonly size: number;
  readonly key: string;
}

/**
 * Idle blocks kept, of any layout (a process with many codecs has many: the oldest goes): as
 * many as calls usually nest (a deferred value's transducer, a consumer's own stream).
 */
const KEEP = 8;
const idle: PooledBlock[] = [];

/** A kept block laid out as `key` says (the latest given back), or undefined. */
export function takeBlock<T extends PooledBlock>(key: string): T | undefined {
  for (let i = idle.length - 1; i >= 0; i--) {
    if (idle[i]!.key !== key) continue;
    const kept = idle[i]!;
    if (i === idle.length - 1) idle.pop();
    else idle.splice(i, 1);
    return kept as T;
  }
  return undefined;
}

/** Gives back a block (with its layout) for the next taker. */
export function giveBlock(block: PooledBlock): void {
  idle.push(block);
  if (idle.length > KEEP) {
    const oldest = idle.shift()!;
    free(oldest.block, oldest.size);
  }
}

/**
 * `allocate(size)` for a block; when memory is full, the idle blocks go first (they may be of
 * another layout: a decoding stream's, another codec's) and it tries again.
 */
export function allocateBlock(size: number): number {
  try {
    return allocate(size);
  } catch (e) {
    if (!(e instanceof WasmMemoryFullError) || idle.length === 0) throw e;
    for (const kept of idle.splice(0)) free(kept.block, kept.size);
    return allocate(size);
  }
}

/** At least a block of the default codec (about 1 MiB), with room for a codec that expands more. */
const ROOM = 2 * 1024 * 1024;

/** allocationCount() when room was last found (-1: never). */
let roomFoundAt = -1;

/**
 * Throws WasmMemoryFullError unless a message's block can be had now: an HTTP piece asks before
 * it takes a request on, so that a full memory is a 503 at once, not a stream cut short later.
 * Found once, the room is there until something is allocated (a free only adds room, and
 * memory never shrinks): a small call, whose blocks come from the pool, allocates nothing, so
 * its check is a comparison, not a block allocated and freed (~2-7 µs a call in loaded profiles).
 */
export function assertRoom(): void {
  if (allocationCount() === roomFoundAt) return;
  free(allocateBlock(ROOM), ROOM);
  roomFoundAt = allocationCount();
}
