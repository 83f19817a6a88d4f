// The start of a message cut by a chunk's end (an NDJSON line, a Content-Length frame, an SSE
// event), held until it ends so that the whole message can take the batch, however the stream is
// cut. Copied, since the chunk's owner may reuse its buffer. One buffer per stream, made at the
// first hold; it grows by doubling up to `capacity` for a long message (a large one), and a
// grown one goes after a run of small ones (shrink.ts).

import { ShrinkRule } from './shrink.js';

const EMPTY = new Uint8Array(0);
const KEEP = 32 * 1024;

export class Carry {
  private buf: Uint8Array | null = null;
  /** How many bytes are held. */
  length = 0;
  private readonly shrink = new ShrinkRule(KEEP);

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
    if (this.buf && this.shrink.letGo(this.buf.length, held.length)) this.buf = null; // (the view keeps it while it is read)
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
