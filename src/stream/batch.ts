// The output of one push goes out as one chunk (up to a bound): a TransformStream's enqueue
// costs more than transforming a small message, and messages arrive many to a chunk. Pieces
// are copied in as they come (they may be views into WASM memory, valid only for the call), so
// the chunk handed out is the only copy, and it owns its buffer (a consumer may transfer it).

/** Output is let through once this much has gathered, so a huge input chunk is not doubled. */
const MAX_BATCH = 1024 * 1024;
const FIRST_CAPACITY = 4 * 1024;
/**
 * A buffer up to this size whose bytes were copied out at a flush is kept for the next push:
 * allocating an ArrayBuffer costs microseconds, more than a small message's whole transform
 * (wrap pushes one message at a time). Never handed out, so reusing it changes no chunk.
 */
const KEEP = 64 * 1024;

export class OutputBatch {
  private buf: Uint8Array | null = null;
  private size = 0;
  /** Output bytes per input byte, as the last chunks went (tokens make output longer). */
  private ratio = 1.1;
  /** Input bytes of the push the current chunk was sized for (0: none). */
  private reserved = 0;
  /** The last chunk went out full, in the middle of a push. */
  private spilled = false;

  constructor(private readonly emit: (bytes: Uint8Array) => void) {}

  /**
   * Sizes the next chunk for the output of `inputBytes`, so it rarely grows (a copy); `flush`
   * learns the ratio.
   */
  reserve(inputBytes: number): void {
    this.reserved = inputBytes;
    const want = Math.min(MAX_BATCH, Math.max(Math.ceil(inputBytes * this.ratio) + 1024, FIRST_CAPACITY));
    if (!this.buf || (this.size === 0 && this.buf.length < want)) this.buf = new Uint8Array(want);
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
      const need = this.size + n;
      if (!this.buf || need > this.buf.length) {
        // After a full chunk more is likely to follow: start the next one full size.
        const grown = new Uint8Array(
          Math.max(need, full || this.spilled ? MAX_BATCH : Math.min(MAX_BATCH, this.buf ? this.buf.length * 2 : FIRST_CAPACITY)),
        );
        if (this.buf) grown.set(this.buf.subarray(0, this.size));
        this.buf = grown;
      }
      this.buf.set(n === bytes.length ? bytes : bytes.subarray(at, at + n), this.size);
      this.size = need;
      at += n;
      if (this.size >= MAX_BATCH) {
        full ??= [];
        full.push(this.buf);
        this.buf = null;
        this.size = 0;
      }
    }
    if (!full) return;
    const [rest, restSize] = [this.buf, this.size];
    for (const chunk of full) {
      this.buf = chunk;
      this.size = chunk.length;
      this.flush();
    }
    [this.buf, this.size] = [rest, restSize];
    this.spilled = true;
  };

  /** Emits what has gathered, as one chunk with a buffer of its own. */
  flush(): void {
    if (!this.buf || this.size === 0) return;
    // A chunk much smaller than its buffer gets a buffer of its own size: a consumer that
    // queues chunks must not hold many times the bytes it counts.
    const spare = this.buf.length - this.size;
    const copied = spare > Math.max(256, this.size >> 2);
    const out = copied ? this.buf.slice(0, this.size) : this.buf.subarray(0, this.size);
    if (this.reserved > 0) this.ratio = Math.min(2, Math.max(1, (this.ratio + this.size / this.reserved) / 2 + 0.05));
    this.reserved = 0;
    this.spilled = false;
    if (!copied || this.buf.length > KEEP) this.buf = null; // (handed out, or too large to keep idle)
    this.size = 0;
    this.emit(out);
  }
}
