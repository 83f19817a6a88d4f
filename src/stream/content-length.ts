// Content-Length framing (LSP-style base protocol, HTTP bodies): a header block, a blank line,
// then exactly Content-Length bytes of body. The header block is read by content-length-header.ts;
// this feeds the bodies to the pipe. A body is transformed on the fly; its new length is only
// known at its end, so the transformed body is held until then (once, in blocks of at most
// 1 MiB, which are also the pieces written out) and the header block is written with
// Content-Length recomputed (every other header, and the line endings, kept). Between frames,
// whole frames go through the core's batch (content-length-batch.ts) until the first it cannot
// take, which comes here.

import { FrameBatch, HeldFrame } from './content-length-batch.js';
import { HeaderReader, MAX_HEADER_BYTES, NEED_MORE, REFUSED, writeHeader } from './content-length-header.js';
import type { Framer } from './framer.js';
import { HeldBytes } from './held-bytes.js';
import type { MessagePipe } from './pipe.js';
import { PayloadStreamError } from './stream-error.js';

/** A header block cut by a chunk's end is gathered this many bytes at a time. */
const HEADER_STEP = 256;

/**
 * The header block of the frame being read, copied (the chunk's owner may reuse it): gathered
 * across chunks when cut, then kept until its body ends, to be written with the body's new length.
 */
class HeldHeader {
  private bytes = new Uint8Array(64); // (grows by doubling; 64 bytes or less are cheap to make)
  /** Bytes gathered of a block cut by a chunk's end: 0 while none is. */
  gathered = 0;
  // Where the whole block's Content-Length digits are, and where it ends.
  private digitsStart = 0;
  private digitsEnd = 0;
  private end = 0;

  /** Keeps the whole block chunk[at, end), as `reader` read it there. */
  keep(chunk: Uint8Array, at: number, end: number, reader: HeaderReader): void {
    if (end - at > this.bytes.length) this.bytes = new Uint8Array(Math.max(this.bytes.length * 2, end - at));
    this.bytes.set(chunk.subarray(at, end));
    this.mark(at, end, reader);
  }

  /**
   * Gathers up to HEADER_STEP more bytes of a cut block from chunk[at] (a little at a time:
   * copying the rest of a large chunk per message would cost more than its body), and reads
   * what it has: the bytes of chunk it took (the block is whole when `gathered` is 0 again), or
   * -1 if the block is refused (`reader.refusal` says why).
   */
  gather(chunk: Uint8Array, at: number, reader: HeaderReader): number {
    const before = this.gathered;
    const take = Math.min(chunk.length - at, HEADER_STEP, MAX_HEADER_BYTES + 4 - before);
    if (before + take > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, before + take));
      grown.set(this.bytes.subarray(0, before));
      this.bytes = grown;
    }
    this.bytes.set(chunk.subarray(at, at + take), before);
    this.gathered += take;
    const end = reader.read(this.bytes, 0, this.gathered, before);
    if (end === NEED_MORE) return take;
    if (end === REFUSED) return -1;
    this.mark(0, end, reader);
    return end - before;
  }

  private mark(at: number, end: number, reader: HeaderReader): void {
    this.digitsStart = reader.digitsStart - at;
    this.digitsEnd = reader.digitsEnd - at;
    this.end = end - at;
    this.gathered = 0;
  }

  /** Writes the block kept with its Content-Length now `length`. */
  write(emit: (b: Uint8Array) => void, length: number): void {
    writeHeader(emit, this.bytes, 0, this.digitsStart, this.digitsEnd, this.end, length);
  }
}

export function contentLengthFramer(pipe: MessagePipe, emit: (b: Uint8Array) => void): Framer {
  const reader = new HeaderReader();
  const header = new HeldHeader();
  const batch = new FrameBatch(pipe, reader, emit);
  const held = new HeldFrame(batch, reader, pipe.largeMessage);
  // The transformed body, held until its new length is known (its first chunk lent: buffer-pool.ts).
  const body = new HeldBytes(4, true);
  let skipping = false; // a body over maxMessageBytes, refused: skipped, never held
  let remaining = -1; // body bytes still expected; -1 while reading headers
  let bodyLength = 0; // what the last header block said
  // The number a framing error gives the frame being read: the pipe's count of messages (a body
  // of only whitespace is not one, as a blank NDJSON line is not), plus this frame unless the
  // pipe has begun it (a refused body is begun). One count for framing and JSON errors alike.
  const frameNumber = () => pipe.messageNumber + (pipe.active || skipping ? 0 : 1);

  const endBody = () => {
    remaining = -1;
    const result = pipe.end();
    if (result === 'dropped' || result === 'invalid') {
      body.reset(); // the whole message goes: no header, no body
      return;
    }
    header.write(emit, body.length);
    body.drain(emit);
  };

  /** The block is whole: its body comes next. */
  const beginBody = () => {
    remaining = reader.bodyLength;
    bodyLength = remaining;
    if (remaining > pipe.maxMessageBytes) {
      pipe.reject('too-large', `message larger than maxMessageBytes (${pipe.maxMessageBytes})`, pipe.maxMessageBytes); // (throws unless onInvalidMessage takes it)
      skipping = true;
    }
    if (remaining === 0) endBody();
  };

  /** Reads (more of) a header block from chunk[at]: where reading goes on. */
  const readHeader = (chunk: Uint8Array, at: number): number => {
    if (header.gathered === 0) {
      // The usual case: the whole block is in this chunk. Found in place, copied once.
      const end = reader.read(chunk, at, chunk.length);
      if (end >= 0) {
        header.keep(chunk, at, end, reader);
        beginBody();
        return end;
      }
      if (end === REFUSED) throw refused();
    }
    const took = header.gather(chunk, at, reader);
    if (took < 0) throw refused();
    if (header.gathered === 0) beginBody();
    return at + took;
  };

  const refused = () => {
    const { code, reason, byteOffset } = reader.refusal;
    return new PayloadStreamError(code, reason, frameNumber(), byteOffset);
  };

  /** Feeds body bytes from chunk[at] (or skips a refused body's): where reading goes on. */
  const readBody = (chunk: Uint8Array, at: number): number => {
    const n = Math.min(remaining, chunk.length - at);
    remaining -= n;
    at += n;
    if (skipping) {
      if (remaining === 0) skipping = false;
      remaining = remaining === 0 ? -1 : remaining;
      return at;
    }
    pipe.feed(chunk.subarray(at - n, at));
    if (pipe.invalid && body.length) body.reset(); // (skipped to its end, not held)
    if (remaining === 0) endBody();
    return at;
  };

  const read = (chunk: Uint8Array, mayHold: boolean) => {
    let at = 0;
    while (at < chunk.length) {
      if (remaining >= 0) {
        at = readBody(chunk, at);
        continue;
      }
      if (header.gathered === 0 && pipe.framedReady()) {
        at = batch.take(chunk, at);
        if (at === chunk.length) break;
        if (mayHold && held.hold(chunk, at)) break;
      }
      at = readHeader(chunk, at);
    }
  };

  return {
    push(chunk) {
      if (held.length > 0) {
        const rest = held.add(chunk);
        if (rest === null) return;
        read(held.take(), false); // (whole, or not to be taken)
        chunk = rest;
      }
      read(chunk, true);
    },
    close() {
      if (held.length > 0) read(held.take(), false); // (cut by the stream's end: read as it came, and reported so)
      if (remaining > 0) {
        throw new PayloadStreamError(
          'incomplete',
          `Content-Length runs past the end of the stream (${remaining} bytes missing)`,
          frameNumber(),
          bodyLength - remaining, // (the body's bytes that came: none of an empty one fed the pipe)
        );
      }
      if (header.gathered > 0)
        throw new PayloadStreamError('incomplete', 'the stream ends inside a header block', frameNumber(), header.gathered);
    },
    output: (bytes) => body.push(bytes), // (a view, valid only for the call: copied)
  };
}
