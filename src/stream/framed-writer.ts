// The frames around a batch of messages the core transformed (Content-Length headers, SSE lines)
// and their outputs, gathered into one buffer and written out once per batch: per message, a
// few writes of a few bytes each cost more in views made and calls than the copies they save.
// The outputs are copied in once, behind the room the batch may take, and each is moved from
// there to its place (no view per message). The buffer is lent by the pool (buffer-pool.ts)
// for the batch and given back after it is written: between batches the writer holds none.
import { lendBuffer, returnBuffer } from './buffer-pool.js';

const NONE = new Uint8Array(0);

/** The least size lent: most HTTP responses carry one small message. */
const FIRST = 1024;
/** Shorter pieces are copied byte by byte (a view to copy from costs more). */
const SHORT = 48;

export class FramedWriter {
  private buf = NONE; // (lent from `load` to `flush`)
  private size = 0;
  /** Where the loaded outputs are. */
  private source = 0;

  private room(n: number): Uint8Array {
    if (this.size + n > this.buf.length) {
      // (Not when `framing` was told right: the loaded outputs lie beyond what is written.)
      const grown = lendBuffer(Math.max(this.buf.length * 2, this.size + n));
      grown.set(this.buf);
      this.give();
      this.buf = grown;
    }
    return this.buf;
  }

  /**
   * Starts a batch: keeps a copy of its outputs (a view that may not outlive the call), behind
   * room for all it may write: the outputs and at most `framing` bytes of frames.
   */
  load(outputs: Uint8Array, framing: number): void {
    this.size = 0;
    this.source = framing + outputs.length;
    const need = this.source + outputs.length;
    if (need > this.buf.length) {
      this.give(); // (one an earlier batch did not write out, if it threw)
      this.buf = lendBuffer(Math.max(FIRST, need));
    }
    this.buf.set(outputs, this.source);
  }

  /** Appends src[start, end). */
  bytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    const buf = this.room(n);
    if (n <= SHORT) for (let i = start, o = this.size; i < end; i++, o++) buf[o] = src[i]!;
    else buf.set(src.subarray(start, end), this.size);
    this.size += n;
  }

  /** Appends the loaded outputs' bytes [start, end). */
  output(start: number, end: number): void {
    const buf = this.room(end - start);
    buf.copyWithin(this.size, this.source + start, this.source + end);
    this.size += end - start;
  }

  /** Appends the ASCII digits of n (a safe integer). */
  digits(n: number): void {
    let width = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) width++;
    const buf = this.room(width);
    for (let o = this.size + width - 1; o >= this.size; o--) {
      buf[o] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
    }
    this.size += width;
  }

  /** Writes what was gathered (a view, copied by `emit`), empties, and gives the buffer back. */
  flush(emit: (bytes: Uint8Array) => void): void {
    const { size } = this;
    this.size = 0;
    try {
      if (size > 0) emit(this.buf.subarray(0, size));
    } finally {
      this.give();
    }
  }

  private give(): void {
    if (this.buf !== NONE) returnBuffer(this.buf);
    this.buf = NONE;
  }
}
