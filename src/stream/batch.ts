// The output of one push goes out as one chunk (up to a bound): a TransformStream's enqueue
// costs more than transforming a small message, and messages arrive many to a chunk. Pieces
// are copied in as they come (they may be views into WASM memory, valid only for the call), so
// the chunk handed out is the only copy, and it owns its buffer (a consumer may transfer it).

/** Output is let through once this much has gathered, so a huge input chunk is not doubled. */
const MAX_BATCH = 1024 * 1024;
const FIRST_CAPACITY = 16 * 1024;

export class OutputBatch {
  private buf: Uint8Array | null = null;
  private size = 0;

  constructor(private readonly emit: (bytes: Uint8Array) => void) {}

  /** Sizes the next chunk for about `n` bytes, so it grows (a copy) only when more comes. */
  reserve(n: number): void {
    if (!this.buf) this.buf = new Uint8Array(Math.min(MAX_BATCH, Math.max(n, FIRST_CAPACITY)));
  }

  /** Copies `bytes` in (it need not outlive the call). */
  readonly add = (bytes: Uint8Array): void => {
    const n = bytes.length;
    if (n === 0) return;
    const need = this.size + n;
    if (!this.buf || need > this.buf.length) {
      const grown = new Uint8Array(Math.max(need, Math.min(MAX_BATCH, (this.buf?.length ?? FIRST_CAPACITY / 2) * 2)));
      if (this.buf) grown.set(this.buf.subarray(0, this.size));
      this.buf = grown;
    }
    this.buf.set(bytes, this.size);
    this.size = need;
    if (this.size >= MAX_BATCH) this.flush();
  };

  /** Emits what has gathered, as one chunk with a buffer of its own. */
  flush(): void {
    if (!this.buf || this.size === 0) return;
    const out = this.buf.subarray(0, this.size);
    this.buf = null;
    this.size = 0;
    this.emit(out);
  }
}
