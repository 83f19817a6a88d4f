// Content-Length framing (LSP-style base protocol, HTTP bodies): a header block, a blank line,
// then exactly Content-Length BYTES of body. The body is transformed on the fly; its new length
// is only known at its end, so the transformed body is held until then (once, in blocks of at
// most 1 MiB, which are also the pieces written out) and the header block is written with
// Content-Length recomputed (every other header, and the line endings, kept). A header block
// that parsers could read differently is refused: two Content-Length headers (even equal ones),
// a bare CR, or LF and CRLF line endings mixed (a CRLF-only parser would read other lines).

import { Carry } from './carry.js';
import { FramedWriter } from './framed-writer.js';
import type { Framer } from './framer.js';
import { HeldBytes } from './held-bytes.js';
import type { MessagePipe } from './pipe.js';
import { PayloadStreamError } from './stream-error.js';
import { FRAMED, FRAMES, LARGE_LINE } from './transducer.js';

const MAX_HEADER_BYTES = 64 * 1024;
const HEADER_STEP = 256;
/** The longest header block of a frame held until it ends (usual ones are 20-60 bytes). */
const CARRY_HEADER = 1024;
const latin1 = new TextDecoder('latin1');

/**
 * Where the header block in b[start, length) ends (just past its blank line), or -1; bytes
 * before `from` were searched.
 */
function headerEnd(b: Uint8Array, start: number, length: number, from: number): number {
  for (let i = Math.max(start, from - 2); i < length; i++) {
    if (b[i] !== 0x0a) continue;
    if (b[i + 1] === 0x0a && i + 1 < length) return i + 2;
    if (b[i + 1] === 0x0d && b[i + 2] === 0x0a && i + 2 < length) return i + 3;
  }
  return -1;
}

const NAME = [0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x6c, 0x65, 0x6e, 0x67, 0x74, 0x68]; // 'content-length'
const isBlank = (c: number | undefined) => c === 0x20 || c === 0x09;

/** The Content-Length value of the last header block read: its digits' span, and its number. */
const parsed = { digitsStart: 0, digitsEnd: 0, length: 0 };

/** Whether byte c is NAME's k-th byte in either ASCII case (only letters fold: `\r | 0x20` is `-`). */
const nameByte = (c: number, k: number) => c === NAME[k] || (NAME[k]! >= 0x61 && c === NAME[k]! - 0x20);

/**
 * `content-length[ \t]*:` (the name in any ASCII case) at b[i], before `limit`: the index after
 * the colon, or -1.
 */
function nameAndColon(b: Uint8Array, i: number, limit: number): number {
  for (let k = 0; k < NAME.length; k++, i++) if (i >= limit || !nameByte(b[i]!, k)) return -1;
  while (i < limit && isBlank(b[i])) i++;
  return i < limit && b[i] === 0x3a ? i + 1 : -1;
}

/** What `digitsAt` read: the digits' span and their sum as a number (exact to 15 digits). */
const value = { start: 0, end: 0, n: 0 };

/** `[ \t]*\d+[ \t]*` at b[i], before `limit`: the index after it, with `value` set, or -1. */
function digitsAt(b: Uint8Array, i: number, limit: number): number {
  while (i < limit && isBlank(b[i])) i++;
  value.start = i;
  let n = 0;
  while (i < limit && b[i]! >= 0x30 && b[i]! <= 0x39) n = n * 10 + b[i++]! - 0x30;
  value.end = i;
  value.n = n;
  if (value.end === value.start) return -1;
  while (i < limit && isBlank(b[i])) i++;
  return i;
}

/**
 * Reads a header block, b[start, end): null, with `parsed` set (offsets in b), or why it is
 * refused. A line matches `content-length[ \t]*:` (ASCII case ignored) to be a Content-Length
 * header, and its value must be `[ \t]*\d+[ \t]*` to the line's end (before its CR, if CRLF).
 * Read byte by byte: no text decoded, no regular expression run, per message.
 */
function readHeader(b: Uint8Array, start: number, end: number): string | null {
  let crlf = 0;
  let lf = 0;
  for (let i = start; i < end; i++) {
    if (b[i] === 0x0d) {
      if (b[i + 1] !== 0x0a || i + 1 >= end) return 'a bare CR in the header block (ambiguous)';
    } else if (b[i] === 0x0a) {
      lf++;
      if (i > start && b[i - 1] === 0x0d) crlf++;
    }
  }
  if (crlf !== 0 && crlf !== lf) return 'LF and CRLF line endings mixed in the header block (ambiguous)';
  // Every CR now ends a line with the LF after it.
  let names = 0;
  let found = false;
  for (let at = start; at < end; ) {
    let lineEnd = b.indexOf(0x0a, at);
    const next = lineEnd + 1;
    if (lineEnd > at && b[lineEnd - 1] === 0x0d) lineEnd--;
    const colon = nameAndColon(b, at, lineEnd);
    at = next;
    if (colon < 0) continue;
    if (++names > 1) return 'more than one Content-Length header (ambiguous)';
    if (digitsAt(b, colon, lineEnd) !== lineEnd) continue;
    found = true;
    parsed.digitsStart = value.start;
    parsed.digitsEnd = value.end;
    // (Past 15 digits a sum of digits is not the nearest double: read as text.)
    parsed.length = value.end - value.start <= 15 ? value.n : Number(latin1.decode(b.subarray(value.start, value.end)));
  }
  return found ? null : 'no valid Content-Length header';
}

/**
 * The usual header block, read in one pass: `Content-Length` (ASCII case ignored), blanks, ':',
 * blanks, at most 15 digits, blanks, then CRLF CRLF or LF LF, all in b before `limit`. Returns
 * its end, with `parsed` set, or -1 (then headerEnd and readHeader decide, as for any block):
 * such a block is what they read it to be.
 */
function usualHeader(b: Uint8Array, at: number, limit: number): number {
  limit = Math.min(limit, at + MAX_HEADER_BYTES + 4); // (as far as headerEnd looks: blanks may be many)
  const colon = nameAndColon(b, at, limit);
  const i = colon < 0 ? -1 : digitsAt(b, colon, limit);
  if (i < 0 || value.end - value.start > 15) return -1;
  let end: number;
  if (b[i] === 0x0d) {
    if (b[i + 1] !== 0x0a || b[i + 2] !== 0x0d || b[i + 3] !== 0x0a) return -1;
    end = i + 4;
  } else {
    if (b[i] !== 0x0a || b[i + 1] !== 0x0a) return -1;
    end = i + 2;
  }
  if (end > limit) return -1;
  parsed.digitsStart = value.start;
  parsed.digitsEnd = value.end;
  parsed.length = value.n;
  return end;
}

/** ASCII digits of n (a safe integer), in a buffer reused for the next (the output batch copies them). */
const lengthDigits = new Uint8Array(16);
function digits(n: number): Uint8Array {
  let i = lengthDigits.length;
  do {
    lengthDigits[--i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  } while (n > 0);
  return lengthDigits.subarray(i);
}

export function contentLengthFramer(pipe: MessagePipe, emit: (b: Uint8Array) => void): Framer {
  // The transformed body, held until its new length is known; 256 KiB of it kept for the next.
  const body = new HeldBytes(4);
  let skipping = false; // a body over maxMessageBytes, refused: skipped, never held
  let header = new Uint8Array(64); // (grows by doubling; 64 bytes or less are cheap to make)
  let headerLength = 0;
  // The header block of the message being read stays in `header` until its body ends: where
  // its Content-Length digits are, and where it ends.
  let digitsStart = 0;
  let digitsEnd = 0;
  let blockEnd = 0;
  let remaining = -1; // body bytes still expected; -1 while reading headers
  let bodyLength = 0; // what the last header block said
  // The number a framing error gives the frame being read: the pipe's count of messages (a body
  // of only whitespace is not one, as a blank NDJSON line is not), plus this frame unless the
  // pipe has begun it (a refused body is begun). One count for framing and JSON errors alike.
  const frameNumber = () => pipe.messageNumber + (pipe.active || skipping ? 0 : 1);

  // Frames gathered for the core's batch entry (chunk offsets): per frame, where its header
  // block starts and its Content-Length digits' span; per body, start and length.
  // (Plain arrays: a typed array costs microseconds to make, once per HTTP response's stream.)
  const frames: number[] = [];
  const bodies: number[] = [];
  const out = new FramedWriter();
  // A frame cut by the chunk's end that the batch could take whole (a header block of at most
  // CARRY_HEADER bytes, a body shorter than LARGE_LINE and within maxMessageBytes) is held (copied: the chunk's
  // owner may reuse it) until its last byte arrives, then read as a chunk of its own; so how a
  // stream is cut does not decide which path a message takes. `carryWant`: the frame's whole
  // length, or -1 while its header block is not whole.
  const carry = new Carry(CARRY_HEADER + 4 + LARGE_LINE);
  let carryWant = 0;

  /**
   * The frame at b[at, end): its whole length if the batch could take it (whole in b or not),
   * -1 if its header block has not ended yet but still may within CARRY_HEADER, else 0.
   */
  const frameStatus = (b: Uint8Array, at: number, end: number): number => {
    let stop = usualHeader(b, at, end);
    if (stop < 0) {
      stop = headerEnd(b, at, Math.min(end, at + MAX_HEADER_BYTES + 4), at);
      if (stop < 0) return end - at <= CARRY_HEADER ? -1 : 0;
      if (readHeader(b, at, stop) !== null) return 0;
    }
    const length = parsed.length;
    return length > pipe.maxMessageBytes || length >= LARGE_LINE || stop - at > CARRY_HEADER ? 0 : stop - at + length;
  };

  /** The held bytes, read as a chunk of their own (the frame is whole, or will not be taken). */
  const release = () => read(carry.take(), false);

  /**
   * At a header block's start, nothing held: the frames from `at` whole in `chunk` (header and
   * body), each body within maxMessageBytes, are transformed in the core, up to FRAMED bytes of
   * bodies per call (a longer body, shorter than LARGE_LINE, in a call of its own), and written
   * with their new Content-Length. Returns where it stopped, at a
   * frame start: that frame (refused, cut by the chunk's end, too large, or a header the
   * per-frame way refuses) goes the per-frame way, which reports and checks it as always.
   */
  const takeFrames = (chunk: Uint8Array, at: number): number => {
    batches: for (;;) {
      let n = 0;
      let from = -1;
      let p = at;
      let full = false;
      while (n < FRAMES) {
        let stop = usualHeader(chunk, p, chunk.length);
        if (stop < 0) {
          stop = headerEnd(chunk, p, Math.min(chunk.length, p + MAX_HEADER_BYTES + 4), p);
          if (stop < 0 || readHeader(chunk, p, stop) !== null) break;
        }
        const length = parsed.length;
        if (length > pipe.maxMessageBytes || stop + length > chunk.length) break;
        if (from < 0) from = stop;
        if (stop + length - from > FRAMED) {
          if (n === 0 && pipe.takesLarge(length)) {
            // Too long for a batch: on its own, then the frames after it batched again.
            const [digitsFrom, digitsTo] = [parsed.digitsStart, parsed.digitsEnd];
            const took = pipe.large(chunk, stop, length, (output) => {
              emit(chunk.subarray(p, digitsFrom));
              emit(digits(output.length));
              emit(chunk.subarray(digitsTo, stop));
              emit(output);
            });
            if (!took) return at;
            at = stop + length;
            continue batches;
          }
          full = n > 0;
          break;
        }
        frames[3 * n] = p;
        frames[3 * n + 1] = parsed.digitsStart;
        frames[3 * n + 2] = parsed.digitsEnd;
        bodies[2 * n] = stop;
        bodies[2 * n + 1] = length;
        n++;
        p = stop + length;
      }
      if (n === 0) return at;
      const taken = pipe.framed(chunk, from, p, bodies, n);
      // (The outputs are copied before anything is written; a new length takes at most 16 digits.)
      out.load(pipe.framedOutput(), p - at + 16 * n);
      let written = at; // (the chunk's bytes before it are out: a body's end is the next header's start)
      let made = 0;
      for (let k = 0; k < taken; k++) {
        const end = pipe.framedEnd(k);
        out.bytes(chunk, written, frames[3 * k + 1]!);
        out.digits(end - made);
        out.bytes(chunk, frames[3 * k + 2]!, bodies[2 * k]!);
        out.output(made, end);
        made = end;
        written = bodies[2 * k]! + bodies[2 * k + 1]!;
      }
      out.flush(emit);
      if (taken < n) return frames[3 * taken]!;
      at = p;
      if (!full && n < FRAMES) return at;
    }
  };

  const endBody = () => {
    remaining = -1;
    const result = pipe.end();
    if (result === 'dropped' || result === 'invalid') {
      body.reset(); // the whole message goes: no header, no body
      return;
    }
    const length = body.length;
    emit(header.subarray(0, digitsStart));
    emit(digits(length));
    emit(header.subarray(digitsEnd, blockEnd));
    body.drain(emit);
  };

  const read = (chunk: Uint8Array, mayHold: boolean) => {
    let at = 0;
    while (at < chunk.length) {
      if (remaining < 0) {
        if (headerLength === 0 && pipe.framedReady()) {
          at = takeFrames(chunk, at);
          if (at === chunk.length) break;
          const frame = mayHold ? frameStatus(chunk, at, chunk.length) : 0;
          if (frame < 0 || frame > chunk.length - at) {
            carryWant = frame;
            carry.add(chunk.subarray(at));
            break;
          }
        }
        let end = -1;
        let before = headerLength;
        if (headerLength === 0) {
          // The usual case: the whole block is in this chunk. Found in place, copied once.
          const limit = Math.min(chunk.length, at + MAX_HEADER_BYTES + 4);
          const stop = headerEnd(chunk, at, limit, at);
          if (stop >= 0) {
            end = stop - at;
            if (end > header.length) header = new Uint8Array(Math.max(header.length * 2, end));
            header.set(chunk.subarray(at, stop));
          }
        }
        if (end < 0) {
          // A block split between chunks: accumulate until the blank line, a little at a time
          // (copying the rest of a large chunk per message would cost more than its body).
          const take = Math.min(chunk.length - at, HEADER_STEP, MAX_HEADER_BYTES + 4 - headerLength);
          if (headerLength + take > header.length) {
            const grown = new Uint8Array(Math.max(header.length * 2, headerLength + take));
            grown.set(header.subarray(0, headerLength));
            header = grown;
          }
          header.set(chunk.subarray(at, at + take), headerLength);
          before = headerLength;
          headerLength += take;
          end = headerEnd(header, 0, headerLength, before);
          if (end < 0) {
            if (headerLength > MAX_HEADER_BYTES)
              throw new PayloadStreamError('too-large', 'header block too large', frameNumber(), MAX_HEADER_BYTES);
            at += take;
            continue;
          }
        }
        const refused = readHeader(header, 0, end);
        if (refused) throw new PayloadStreamError('framing', refused, frameNumber(), 0);
        remaining = parsed.length;
        bodyLength = remaining;
        digitsStart = parsed.digitsStart;
        digitsEnd = parsed.digitsEnd;
        blockEnd = end;
        at += end - before;
        headerLength = 0;
        if (remaining > pipe.maxMessageBytes) {
          pipe.reject('too-large', `message larger than maxMessageBytes (${pipe.maxMessageBytes})`, pipe.maxMessageBytes); // (throws unless onInvalidMessage takes it)
          skipping = true;
        }
        if (remaining === 0) endBody();
        continue;
      }
      const n = Math.min(remaining, chunk.length - at);
      remaining -= n;
      at += n;
      if (skipping) {
        if (remaining === 0) skipping = false;
        remaining = remaining === 0 ? -1 : remaining;
        continue;
      }
      pipe.feed(chunk.subarray(at - n, at));
      if (pipe.invalid && body.length) body.reset(); // (skipped to its end, not held)
      if (remaining === 0) endBody();
    }
  };

  return {
    push(chunk) {
      if (carry.length > 0) {
        if (carryWant < 0) {
          // Its header block has not ended: up to CARRY_HEADER of it more, and look again.
          const take = Math.min(chunk.length, CARRY_HEADER + 4 - carry.length);
          const before = carry.length;
          carry.add(chunk.subarray(0, take));
          // Open still unless its blank line ends in what came (searching the whole block again
          // per push would make small chunks cost its length each).
          const held = carry.bytes;
          if (held.length <= CARRY_HEADER && headerEnd(held, 0, held.length, before) < 0) return;
          carryWant = frameStatus(held, 0, held.length);
          if (carryWant < 0) return; // (all of the chunk taken, the block still open)
          // A frame that ended inside what was taken gives the rest back (the next frame's start).
          const back = carryWant > 0 ? Math.max(0, held.length - carryWant) : 0;
          carry.giveBack(back);
          chunk = chunk.subarray(take - back);
        }
        const need = carryWant - carry.length;
        if (carryWant > 0 && need > chunk.length) {
          carry.add(chunk);
          return;
        }
        if (need > 0) {
          carry.add(chunk.subarray(0, need));
          chunk = chunk.subarray(need);
        }
        release(); // (whole, or not to be taken)
      }
      read(chunk, true);
    },
    close() {
      if (carry.length > 0) release(); // (cut by the stream's end: read as it came, and reported so)
      if (remaining > 0) {
        throw new PayloadStreamError(
          'incomplete',
          `Content-Length runs past the end of the stream (${remaining} bytes missing)`,
          frameNumber(),
          bodyLength - remaining, // (the body's bytes that came: none of an empty one fed the pipe)
        );
      }
      if (headerLength > 0)
        throw new PayloadStreamError('incomplete', 'the stream ends inside a header block', frameNumber(), headerLength);
    },
    output: (bytes) => body.push(bytes), // (a view, valid only for the call: copied)
  };
}
