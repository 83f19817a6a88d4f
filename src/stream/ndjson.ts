// NDJSON (MCP stdio): one message or batch per line. '\n' ends a line; a '\r' before it is JSON
// whitespace and is kept (but not counted against maxMessageBytes: it is the line ending's).
// Blank lines pass through. A last line without '\n' is a message too. An invalid message taken
// by onInvalidMessage loses its line, unless part of it was already written: that part is ended
// with '\n' (the pipe made sure it does not parse), so the receiver drops it too.
//
// Between messages, the lines that need no per-message work go through the pipe's fast lane
// (many lines per core call); the first one it refuses, and a line cut by the chunk's end, go
// the per-message way below, which reports errors and runs the callbacks as always.

import { byteFinder } from './find-byte.js';
import type { Framer } from './framer.js';
import type { MessagePipe } from './pipe.js';

const NEWLINE = new Uint8Array([0x0a]); // (copied into the output batch, never handed out)
const CR_BYTE = new Uint8Array([0x0d]);

export function ndjsonFramer(pipe: MessagePipe, emit: (b: Uint8Array) => void): Framer {
  // A CR that ended the last chunk: the line ending's if the next byte is LF.
  let pendingCR = false;

  const endLine = () => {
    const result = pipe.end();
    if (result === 'dropped' || (result === 'invalid' && pipe.written === 0)) return;
    emit(NEWLINE);
  };

  return {
    push(chunk) {
      if (chunk.length === 0) return;
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
    },
    close() {
      if (pendingCR) {
        pendingCR = false;
        pipe.feed(CR_BYTE);
      }
      pipe.end();
    },
    output: emit,
  };
}
