// NDJSON (MCP stdio): one message or batch per line. '\n' ends a line; a '\r' before it is JSON
// whitespace and is kept. Blank lines pass through. A last line without '\n' is a message too.
import type { Framer } from './framer.js';
import type { MessagePipe } from './pipe.js';
import { byteFinder } from './find-byte.js';

const NEWLINE = new Uint8Array([0x0a]); // (copied into the output batch, never handed out)

export function ndjsonFramer(pipe: MessagePipe, emit: (b: Uint8Array) => void): Framer {
  return {
    push(chunk) {
      const find = byteFinder(chunk);
      let start = 0;
      for (;;) {
        const nl = find(0x0a, start);
        if (nl < 0) {
          if (start < chunk.length) pipe.feed(chunk.subarray(start));
          return;
        }
        if (nl > start) pipe.feed(chunk.subarray(start, nl));
        if (pipe.end() !== 'dropped') emit(NEWLINE);
        start = nl + 1;
      }
    },
    close() {
      pipe.end();
    },
    output: emit,
  };
}
