// NDJSON (MCP stdio): one message or batch per line. '\n' ends a line; a '\r' before it is JSON
// whitespace and is kept (but not counted against maxMessageBytes: it is the line ending's).
// Blank lines pass through. A last line without '\n' is a message too. An invalid message taken
// by onInvalidMessage loses its line, unless part of it was already written: that part is ended
// with '\n' (the pipe made sure it does not parse), so the receiver drops it too.
//
// Between messages, the lines that need no per-message work go through the pipe's fast lane
// (many lines per core call); the first one it refuses, and a line cut by the chunk's end, go
// the per-message way below, which reports errors and runs the callbacks as always.

import { Carry } from './carry.js';
import { byteFinder } from './find-byte.js';
import type { Framer } from './framer.js';
import type { MessagePipe } from './pipe.js';

const NEWLINE = new Uint8Array([0x0a]); // (copied into the output batch, never handed out)
const BACKSLASH = 0x5c;
const CR_BYTE = new Uint8Array([0x0d]);
/** 1 when `chunk` ends in a CR (the line ending's, if an LF comes next: not counted), else 0. */
const endsInCR = (chunk: Uint8Array) => (chunk[chunk.length - 1] === 0x0d ? 1 : 0);

export function ndjsonFramer(pipe: MessagePipe, emit: (b: Uint8Array) => void): Framer {
  // A CR that ended the last chunk: the line ending's if the next byte is LF.
  let pendingCR = false;
  // The start of a line cut by the last chunk's end, held (copied: the chunk's owner may reuse
  // it) until its end arrives, so the whole line goes through the lane rather than the
  // per-message way in pieces: only between messages, and only while it could fit the lane.
  const held = new Carry(pipe.holdable + 2); // (+2: the line's CR and LF)
  // Past the lane's region a line is held only while what came of it holds an escape: the large
  // path gains on escaped text, and a line with none (an image's base64) streams the per-message
  // way as fast, without the copies a hold adds (screenshots were 1.25-1.35x slower held).
  let heldEscaped = false;
  const laneLine = pipe.laneBytes - 2; // (the longest line the lane takes, less its CR and LF)
  const worthHolding = (length: number, escaped: () => boolean): boolean => {
    if (length > pipe.holdable) return false;
    if (length <= laneLine || heldEscaped) return true;
    heldEscaped = escaped();
    return heldEscaped;
  };

  const endLine = () => {
    const result = pipe.end();
    if (result === 'dropped' || (result === 'invalid' && pipe.written === 0)) return;
    emit(NEWLINE);
  };

  /** What was held, as a chunk of its own: a whole line, or one that did not end in time to fit the lane. */
  const release = () => {
    heldEscaped = false;
    lines(held.take(), false);
  };

  const lines = (chunk: Uint8Array, mayHold: boolean) => {
    const find = byteFinder(chunk);
    let start = 0;
    pipe.newChunk();
    if (pendingCR) {
      pendingCR = false;
      pipe.feed(CR_BYTE, chunk[0] === 0x0a ? 1 : 0);
    }
    for (;;) {
      let nl = find(0x0a, start);
      if (nl >= 0 && !pipe.active) {
        const at = pipe.lines(chunk, start, nl);
        if (at !== start) {
          start = at;
          nl = find(0x0a, start);
        }
      }
      if (nl < 0) {
        if (start === chunk.length) return;
        if (mayHold && !pipe.active && worthHolding(chunk.length - start - endsInCR(chunk), () => find(BACKSLASH, start) >= 0)) {
          held.add(chunk.subarray(start));
          return;
        }
        let end = chunk.length;
        if (chunk[end - 1] === 0x0d) {
          pendingCR = true;
          end--;
        }
        if (start < end) pipe.feed(chunk.subarray(start, end));
        return;
      }
      if (nl > start) pipe.feed(chunk.subarray(start, nl), chunk[nl - 1] === 0x0d ? 1 : 0);
      endLine();
      start = nl + 1;
    }
  };

  return {
    push(chunk) {
      if (chunk.length === 0) return;
      if (held.length > 0) {
        const find = byteFinder(chunk);
        const nl = find(0x0a, 0);
        const escaped = () => find(BACKSLASH, 0) >= 0 || byteFinder(held.bytes)(BACKSLASH, 0) >= 0;
        if (nl < 0 && worthHolding(held.length + chunk.length - endsInCR(chunk), escaped)) {
          held.add(chunk);
          return;
        }
        const cr = nl >= 0 && (nl > 0 ? chunk[nl - 1] : held.bytes[held.length - 1]) === 0x0d ? 1 : 0;
        if (nl >= 0 && held.length + nl - cr <= pipe.holdable) {
          // The line is whole: it goes as a chunk of its own, the rest of this one after it.
          held.add(chunk.subarray(0, nl + 1));
          release();
          if (nl + 1 === chunk.length) return;
          chunk = chunk.subarray(nl + 1);
        } else release();
      }
      lines(chunk, true);
    },
    close() {
      if (held.length > 0) release();
      if (pendingCR) {
        pendingCR = false;
        pipe.feed(CR_BYTE);
      }
      pipe.end();
    },
    output: emit,
  };
}
