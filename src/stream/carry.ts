// The start of a message cut by a chunk's end (an NDJSON line, a Content-Length frame, an SSE
// event), held until it ends so that the whole message can take the batch, however the stream is
// cut. Copied, since the chunk's owner may reuse its buffer. One buffer per stream, made at the
// first hold; it grows by doubling up to `capacity` for a long message (a large one), and a
// grown one stays while large messages come now and then (growing it again costs page faults
// and copies: 7% on mixed traffic with a screenshot in ten) and goes after SHRINK_AFTER small
// ones in a row.

const EMPTY = new Uint8Array(0);
const KEEP = 32 * 1024;
const SHRINK_AFTER = 64;

export class Carry {
  private buf: Uint8Array | null = null;
  /** How many bytes are held. */
  length = 0;
  /** Messages of at most KEEP bytes taken in a row while the buffer is larger. */
  private small = 0;

  constructor(readonly capacity: number) {}

  /** The held bytes: a view, valid until the next `add`. */
  get bytes(): Uint8Array {
    return this.buf ? this.buf.subarray(0, this.length) : EMPTY;
  }

  /** Appends bytes (at most `capacity` in all). */
  add(bytes: Uint8Array): void {
    const need = this.length + bytes.length;
    if (!this.buf || need > this.buf.length) {
      let size = this.buf ? this.buf.length * 2 : Math.min(this.capacity, KEEP);
      while (size < need) size *= 2;
      const grown = new Uint8Array(Math.min(size, this.capacity));
      if (this.buf) grown.set(this.bytes);
      this.buf = grown;
    }
    this.buf.set(bytes, this.length);
    this.length = need;
  }

  /** The held bytes, the carry emptied (the view stays valid while nothing is added). */
  take(): Uint8Array {
    const held = this.bytes;
    this.length = 0;
    if (this.buf && this.buf.length > KEEP) {
      this.small = held.length <= KEEP ? this.small + 1 : 0;
      if (this.small >= SHRINK_AFTER) {
        this.buf = null; // (the view keeps it while it is read)
        this.small = 0;
      }
    }
    return held;
  }

  /** Forgets the last n bytes held (taken past the message's end: they go back to the chunk). */
  giveBack(n: number): void {
    this.length -= n;
  }

  /** Forgets the first n bytes held (written out), moving the rest to the start. */
  shift(n: number): void {
    this.buf!.copyWithin(0, n, this.length);
    this.length -= n;
  }
}
