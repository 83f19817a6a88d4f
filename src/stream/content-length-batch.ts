// Whole Content-Length frames through the core's batch entry: at a frame boundary with nothing
// held, the frames whole in the chunk (header and body, each body within maxMessageBytes) are
// transformed many per core call and written with their new Content-Length; the first frame it
// cannot take goes the per-frame way (content-length.ts), which reports and checks it as always.
// And a frame cut by the chunk's end that the batch could take whole is held until it ends.

import { Carry } from './carry.js';
import { type HeaderReader, NEED_MORE, REFUSED, writeHeader } from './content-length-header.js';
import { FramedWriter } from './framed-writer.js';
import type { MessagePipe } from './pipe.js';

/** The longest header block of a frame held until it ends (usual ones are 20-60 bytes). */
const CARRY_HEADER = 1024;

export class FrameBatch {
  // Frames gathered for the core's batch entry (chunk offsets): per frame, where its header
  // block starts and its Content-Length digits' span; per body, start and length.
  // (Plain arrays: a typed array costs microseconds to make, once per HTTP response's stream.)
  private readonly frames: number[] = [];
  private readonly bodies: number[] = [];
  private readonly out = new FramedWriter();

  constructor(
    private readonly pipe: MessagePipe,
    private readonly header: HeaderReader,
    private readonly emit: (b: Uint8Array) => void,
  ) {}

  /**
   * The frame at b[at, end): its whole length if the batch could take it (whole in b or not),
   * -1 if its header block has not ended yet but still may within CARRY_HEADER, else 0.
   */
  wholeLength(b: Uint8Array, at: number, end: number): number {
    const stop = this.header.read(b, at, end);
    if (stop === NEED_MORE) return end - at <= CARRY_HEADER ? -1 : 0;
    if (stop === REFUSED) return 0;
    const length = this.header.bodyLength;
    const { pipe } = this;
    return length > pipe.maxMessageBytes || length >= pipe.largeMessage || stop - at > CARRY_HEADER ? 0 : stop - at + length;
  }

  /**
   * At a header block's start, nothing held: the frames from `at` whole in `chunk` go through
   * the core, up to `framedBytes` bytes of bodies per call (a longer body, shorter than
   * `largeMessage`, in a call of its own), and are written with their new Content-Length.
   * Returns where it stopped, at a frame start: that frame (refused, cut by the chunk's end, too
   * large, or a header the per-frame way refuses) goes the per-frame way.
   */
  take(chunk: Uint8Array, at: number): number {
    const { pipe, header, frames, bodies } = this;
    const { framedBodies, framedBytes } = pipe;
    batches: for (;;) {
      let n = 0;
      let from = -1;
      let p = at;
      let full = false;
      while (n < framedBodies) {
        const stop = header.read(chunk, p, chunk.length);
        if (stop < 0) break;
        const length = header.bodyLength;
        if (length > pipe.maxMessageBytes || stop + length > chunk.length) break;
        if (from < 0) from = stop;
        if (stop + length - from > framedBytes) {
          if (n === 0 && pipe.takesLarge(length)) {
            // Too long for a batch: on its own, then the frames after it batched again.
            if (!this.large(chunk, p, stop, length)) return at;
            at = stop + length;
            continue batches;
          }
          full = n > 0;
          break;
        }
        frames[3 * n] = p;
        frames[3 * n + 1] = header.digitsStart;
        frames[3 * n + 2] = header.digitsEnd;
        bodies[2 * n] = stop;
        bodies[2 * n + 1] = length;
        n++;
        p = stop + length;
      }
      if (n === 0) return at;
      const taken = this.write(chunk, at, from, p, n);
      if (taken < n) return frames[3 * taken]!;
      at = p;
      if (!full && n < framedBodies) return at;
    }
  }

  /** The body chunk[stop, stop + length), its header block from `start`, on its own: false if `large` refused it. */
  private large(chunk: Uint8Array, start: number, stop: number, length: number): boolean {
    const { digitsStart, digitsEnd } = this.header;
    return this.pipe.large(chunk, stop, length, (output) => {
      writeHeader(this.emit, chunk, start, digitsStart, digitsEnd, stop, output.length);
      this.emit(output);
    });
  }

  /** The n frames gathered, chunk[at, to), through the core and written: how many it took. */
  private write(chunk: Uint8Array, at: number, from: number, to: number, n: number): number {
    const { frames, bodies, out } = this;
    return this.pipe.framed(chunk, from, to, bodies, n, (output, ends, taken) => {
      // (The outputs are copied before anything is written; a new length takes at most 16 digits.)
      out.load(output, to - at + 16 * n);
      let written = at; // (the chunk's bytes before it are out: a body's end is the next header's start)
      let made = 0;
      for (let k = 0; k < taken; k++) {
        const end = ends[k]!;
        out.bytes(chunk, written, frames[3 * k + 1]!);
        out.digits(end - made);
        out.bytes(chunk, frames[3 * k + 2]!, bodies[2 * k]!);
        out.output(made, end);
        made = end;
        written = bodies[2 * k]! + bodies[2 * k + 1]!;
      }
      out.flush(this.emit);
    });
  }
}

/**
 * A frame cut by the chunk's end that the batch could take whole (a header block of at most
 * CARRY_HEADER bytes, a body shorter than `largeMessage` and within maxMessageBytes), held
 * (copied: the chunk's owner may reuse it) until its last byte arrives, then read as a chunk of
 * its own; so how a stream is cut does not decide which path a message takes.
 */
export class HeldFrame {
  private readonly carry: Carry;
  /** The frame's whole length, or -1 while its header block is not whole. */
  private want = 0;

  constructor(
    private readonly batch: FrameBatch,
    private readonly header: HeaderReader,
    largeMessage: number,
  ) {
    this.carry = new Carry(CARRY_HEADER + 4 + largeMessage);
  }

  get length(): number {
    return this.carry.length;
  }

  /** Holds the frame at chunk[at, end) if the batch could take it once whole: whether it did. */
  hold(chunk: Uint8Array, at: number): boolean {
    const frame = this.batch.wholeLength(chunk, at, chunk.length);
    if (frame >= 0 && frame <= chunk.length - at) return false;
    this.want = frame;
    this.carry.add(chunk.subarray(at));
    return true;
  }

  /**
   * Adds what of `chunk` the frame held needs: the rest of the chunk once the frame is whole
   * (or will not be taken; `take` gives it), or null while it is still cut.
   */
  add(chunk: Uint8Array): Uint8Array | null {
    const { carry } = this;
    if (this.want < 0) {
      // Its header block has not ended: up to CARRY_HEADER of it more, and look again.
      const take = Math.min(chunk.length, CARRY_HEADER + 4 - carry.length);
      const before = carry.length;
      carry.add(chunk.subarray(0, take));
      // Open still unless its blank line ends in what came (searching the whole block again
      // per push would make small chunks cost its length each).
      const held = carry.bytes;
      if (held.length <= CARRY_HEADER && this.header.read(held, 0, held.length, before) === NEED_MORE) return null;
      this.want = this.batch.wholeLength(held, 0, held.length);
      if (this.want < 0) return null; // (all of the chunk taken, the block still open)
      // A frame that ended inside what was taken gives the rest back (the next frame's start).
      const back = this.want > 0 ? Math.max(0, held.length - this.want) : 0;
      carry.giveBack(back);
      chunk = chunk.subarray(take - back);
    }
    const need = this.want - carry.length;
    if (this.want > 0 && need > chunk.length) {
      carry.add(chunk);
      return null;
    }
    if (need > 0) {
      carry.add(chunk.subarray(0, need));
      return chunk.subarray(need);
    }
    return chunk;
  }

  /** The bytes held, let go of (a view, valid while nothing is held again). */
  take(): Uint8Array {
    return this.carry.take();
  }
}
