// The output of one push goes out as one chunk (up to a bound): a TransformStream's enqueue
// costs more than transforming a small message, and messages arrive many to a chunk. Pieces
// are copied in as they come (they may be views into WASM memory, valid only for the call)
// into a buffer the batch keeps; a flush copies them out into a chunk of exactly their size,
// with a buffer of its own (a consumer may keep or transfer it). Allocating a buffer is what
// costs (the allocator often hands out fresh pages: tens of microseconds per 64 KiB here), so
// each push allocates once, the bytes it hands out and no more: no guessed size, no growing,
// no trimming copy. The second copy is cheap (the kept buffer is warm in cache).

/** Output is let through once this much has gathered, so a huge input chunk is not doubled. */
const MAX_BATCH = 1024 * 1024;
const FIRST_CAPACITY = 4 * 1024;
/** The kept buffer stays up to this size; past it, it goes at the flush (an idle stream holds little). */
const KEEP = 256 * 1024;

export class OutputBatch {
  private buf: Uint8Array | null = null;
  private size = 0;

  constructor(private readonly emit: (bytes: Uint8Array) => void) {}

  /** Makes room for about the output of `inputBytes` (tokens make it longer), so adding rarely grows. */
  reserve(inputBytes: number): void {
    if (this.size === 0) this.room(Math.min(KEEP, inputBytes + (inputBytes >> 3) + 1024));
  }

  /** Grows the kept buffer to hold `need` bytes (at most MAX_BATCH), keeping what it holds. */
  private room(need: number): Uint8Array {
    const buf = this.buf;
    if (buf && need <= buf.length) return buf;
    const grown = new Uint8Array(Math.min(MAX_BATCH, Math.max(need, FIRST_CAPACITY, buf ? buf.length * 2 : 0)));
    if (buf && this.size > 0) grown.set(buf.subarray(0, this.size));
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
      }
    }
    if (full) for (const chunk of full) this.emit(chunk);
  };

  /** What has gathered, in a buffer of its own size; the batch is empty afterwards. */
  private take(): Uint8Array {
    const buf = this.buf!;
    const out = new Uint8Array(this.size);
    out.set(this.size === buf.length ? buf : buf.subarray(0, this.size));
    this.size = 0;
    return out;
  }

  /** Emits what has gathered, as one chunk with a buffer of its own. */
  flush(): void {
    if (this.size === 0) return;
    const out = this.take();
    if (this.buf!.length > KEEP) this.buf = null; // (a burst's buffer is not held while idle)
    this.emit(out);
  }
}
