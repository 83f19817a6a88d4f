// The output of one push goes out as one chunk (up to a bound): a TransformStream's enqueue
// costs more than transforming a small message, and messages arrive many to a chunk. Pieces
// are copied in as they come (they may be views into WASM memory, valid only for the call), so
// the chunk handed out owns its buffer (a consumer may keep or transfer it).
//
// A new buffer is what costs (the allocator often hands out fresh pages: tens of microseconds
// per 64 KiB here, more than copying it), so each push allocates once, about what it hands out:
// a push's output gathers in a buffer lent by the pool (buffer-pool.ts) for the push, and a
// flush copies it out into a chunk of exactly its size and gives the buffer back: between
// pushes the batch holds none. The lent buffer grows with the push's output (a large NDJSON
// line's is one push's); the pool keeps the sizes pushes use warm.
// Output past MAX_BATCH in one push gathers in buffers made for it, which go out as they are
// when about full (a second copy of a huge output costs more).

import { keepBuffer, lendBuffer, returnBuffer } from './buffer-pool.js';

/** Output is let through once this much has gathered, so a huge input chunk is not doubled. */
const MAX_BATCH = 1024 * 1024;
const FIRST_CAPACITY = 4 * 1024;

export class OutputBatch {
  /** Where output gathers: `kept`, or a larger buffer made for this push's output. */
  private buf: Uint8Array | null = null;
  /** The buffer lent for this push: copied out of, never handed out (but when full), given back at the flush. */
  private kept: Uint8Array | null = null;
  private size = 0;
  /** A chunk went out full during this push: more is likely to follow, in full chunks. */
  private spilled = false;

  constructor(private readonly emit: (bytes: Uint8Array) => void) {}

  /** Makes room for about the output of `inputBytes` (tokens make it longer), so adding rarely grows. */
  reserve(inputBytes: number): void {
    if (this.size === 0) this.room(Math.min(MAX_BATCH, inputBytes + (inputBytes >> 3) + 1024));
  }

  /** A buffer holding what has gathered with room for `need` bytes in all (at most MAX_BATCH). */
  private room(need: number): Uint8Array {
    const buf = this.buf ?? this.kept;
    if (buf && need <= buf.length) {
      this.buf = buf;
      return buf;
    }
    const capacity = this.spilled ? MAX_BATCH : Math.min(MAX_BATCH, Math.max(need, FIRST_CAPACITY, buf ? buf.length * 2 : 0));
    const grown = this.spilled ? new Uint8Array(capacity) : lendBuffer(capacity);
    if (buf && this.size > 0) grown.set(buf.subarray(0, this.size));
    if (!this.spilled) {
      if (this.kept) returnBuffer(this.kept); // (copied from: it may go)
      this.kept = grown;
    }
    this.buf = grown;
    return grown;
  }

  /**
   * Copies `bytes` in (it need not outlive the call); what passes the bound goes out in bounded
   * chunks, once all of `bytes` is copied (a consumer may grow WASM memory, detaching it).
   */
  readonly add = (bytes: Uint8Array): void => {
    let full: Uint8Array[] | null = null;
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, MAX_BATCH - this.size);
      const buf = this.room(this.size + n);
      buf.set(n === bytes.length ? bytes : bytes.subarray(at, at + n), this.size);
      this.size += n;
      at += n;
      if (this.size >= MAX_BATCH) {
        full ??= [];
        full.push(this.take());
        this.spilled = true;
      }
    }
    if (full) for (const chunk of full) this.emit(chunk);
  };

  /** What has gathered, as a chunk with a buffer of its own; the batch is empty afterwards. */
  private take(): Uint8Array {
    const buf = this.buf!;
    const size = this.size;
    this.size = 0;
    if (buf !== this.kept || size >= MAX_BATCH) {
      // (A full kept buffer goes out too, and is kept no more: output past MAX_BATCH is not
      // copied twice.)
      if (buf === this.kept) {
        keepBuffer(buf); // (handed out: the pool has it no more)
        this.kept = null;
      }
      this.buf = null; // (handed out, or too large to keep idle)
      // About full: it goes as it is. A chunk much smaller than its buffer gets a buffer of its
      // own size: a consumer that queues chunks must not hold many times the bytes it counts.
      if (buf.length - size <= Math.max(256, size >> 2)) return size === buf.length ? buf : buf.subarray(0, size);
    }
    // A copy into a new buffer, whatever the class of `buf` (a Node Buffer's `slice` is a view,
    // which would let the pool lend out what this chunk holds).
    return new Uint8Array(buf.subarray(0, size));
  }

  /** Emits what has gathered, as one chunk with a buffer of its own, and gives the lent buffer back. */
  flush(): void {
    this.spilled = false;
    const chunk = this.size === 0 ? null : this.take();
    const { kept } = this;
    if (kept) {
      // (Before `emit`: a consumer may push into another stream, which may take it.)
      this.kept = null;
      this.buf = null;
      returnBuffer(kept);
    }
    if (chunk) this.emit(chunk);
  }
}
