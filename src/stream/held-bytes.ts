// Bytes held in order (a message's output while it waits, an SSE event, a Content-Length body),
// in chunks addressed by offset: every framing and the assembler hold bytes this one way.
import { keepBuffer, lendBuffer, returnBuffer } from './buffer-pool.js';

/** Span of one chunk; only the first starts smaller and grows (most messages are small). */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const FIRST_CHUNK = 1024;

/**
 * The chunk holding offset `at`. Not `at >>> CHUNK_BITS`: that wraps at 4 GiB, and what is held
 * may pass it (a message's output: encoding grows a default term up to 5x, a user's short one
 * more), so the bytes past it went into the first chunks. (`at & (CHUNK - 1)` is right at any offset: 2^32 is whole chunks.)
 */
const chunkOf = (at: number) => Math.floor(at / CHUNK);

/**
 * Bytes held, append-only, in chunks addressed by offset: copied in once and never moved (a
 * flat buffer that doubles, or splices, copies them again and again).
 */
export class HeldBytes {
  private chunks: (Uint8Array | null)[] = [];
  length = 0;
  /** Chunks before this one were let go of by dropBefore. */
  private firstKept = 0;

  /**
   * `keepChunks`: how many chunks are kept for the next message when it empties. A fresh buffer
   * costs more than copying into a warm one, and messages of a few hundred KiB (screenshots)
   * come one after another; but every chunk kept is held while the stream idles.
   */
  constructor(
    private readonly keepChunks = 1,
    /**
     * Its chunks are lent by the pool (buffer-pool.ts) and given back when it empties, so that
     * none is held between messages; only for holders that keep no view of it past `reset`
     * or `drain` (the framings; not the assembler, whose `endInto` hands views out first).
     */
    private readonly pooled = false,
  ) {}

  /** Chunk 0 (the one that grows), grown or new, lent when pooled. */
  private first(size: number, was: Uint8Array | null | undefined, off: number): Uint8Array {
    if (!this.pooled) {
      const grown = new Uint8Array(size);
      if (was) grown.set(was.subarray(0, off));
      return grown;
    }
    const grown = lendBuffer(size);
    if (was) {
      grown.set(was.subarray(0, off));
      returnBuffer(was);
    }
    return grown;
  }

  /** Lets go of chunk k (its bytes will not be read again). */
  private letGo(k: number, handedOut: boolean): void {
    const c = this.chunks[k];
    this.chunks[k] = null;
    if (!this.pooled || !c) return;
    if (handedOut) keepBuffer(c);
    else returnBuffer(c);
  }

  push(b: Uint8Array): void {
    let at = 0;
    while (at < b.length) {
      const k = chunkOf(this.length);
      const off = this.length & (CHUNK - 1);
      const n = Math.min(CHUNK - off, b.length - at);
      let c = this.chunks[k];
      if (!c || off + n > c.length) {
        // Only chunk 0 grows (a copy of at most one chunk); later ones start full size.
        let grown: Uint8Array;
        if (k > 0) grown = this.pooled ? lendBuffer(CHUNK) : new Uint8Array(CHUNK);
        else grown = this.first(Math.min(CHUNK, Math.max(FIRST_CHUNK, 2 * (c?.length ?? 0), off + n)), c, off);
        c = this.chunks[k] = grown;
      }
      c.set(n === b.length ? b : b.subarray(at, at + n), off);
      this.length += n;
      at += n;
    }
  }

  /** Calls `f` with views of [start, end), chunk by chunk. */
  forEach(start: number, end: number, f: (bytes: Uint8Array) => void): void {
    while (start < end) {
      const k = chunkOf(start);
      const off = start & (CHUNK - 1);
      const n = Math.min(CHUNK - off, end - start);
      f(this.chunks[k]!.subarray(off, off + n));
      start += n;
    }
  }

  /** Views of [start, end), chunk by chunk. */
  range(start: number, end: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    this.forEach(start, end, (v) => void out.push(v));
    return out;
  }

  /** The bytes of [start, end) in one array (short spans: keys, ids). */
  read(start: number, end: number): Uint8Array {
    const k = chunkOf(start);
    if (k === chunkOf(end - 1) && end > start) return this.chunks[k]!.subarray(start & (CHUNK - 1), (start & (CHUNK - 1)) + end - start);
    const out = new Uint8Array(Math.max(0, end - start));
    let at = 0;
    this.forEach(start, end, (v) => {
      out.set(v, at);
      at += v.length;
    });
    return out;
  }

  /** Lets go of the chunks wholly inside [start, end): they will not be read again. */
  drop(start: number, end: number): void {
    for (let k = chunkOf(start + CHUNK - 1); (k + 1) * CHUNK <= end; k++) this.letGo(k, false);
  }

  /** Lets go of every chunk wholly before `end`: nothing before it will be read again (a streamed SSE event's written lines). */
  dropBefore(end: number): void {
    let k = this.firstKept;
    for (; (k + 1) * CHUNK <= end; k++) this.letGo(k, false);
    this.firstKept = k;
  }

  /**
   * Hands all of it to `emit`, which must copy what it keeps, chunk by chunk, letting go of each
   * chunk once written but the first `keepChunks` (kept for reuse), and empties.
   */
  drain(emit: (bytes: Uint8Array) => void): void {
    const { chunks, length, pooled } = this;
    const keep = pooled ? 0 : this.keepChunks; // (pooled: each goes back to the pool once written)
    if (chunks.length > keep) this.chunks = chunks.slice(0, keep);
    this.length = 0;
    this.firstKept = 0;
    for (let k = 0; k * CHUNK < length; k++) {
      const c = chunks[k]!;
      if (k >= keep) chunks[k] = null; // (written: it may go now)
      emit(c.subarray(0, Math.min(CHUNK, length - k * CHUNK)));
      if (pooled) returnBuffer(c);
    }
  }

  /** Empties it; keeps the first `keepChunks` chunks for reuse unless its chunks were handed out. */
  reset(handedOut = false): void {
    this.length = 0;
    this.firstKept = 0;
    if (this.pooled) {
      for (let k = 0; k < this.chunks.length; k++) this.letGo(k, handedOut);
      this.chunks = [];
    } else if (handedOut) this.chunks = [];
    else if (this.chunks.length > this.keepChunks) this.chunks.length = this.keepChunks;
  }
}
