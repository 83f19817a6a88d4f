// Server-sent events (MCP over SSE and Streamable HTTP), read as the WHATWG EventSource
// algorithm (and eventsource-parser, which the MCP SDK uses) reads them. The JSON in an event's
// `data:` lines is transformed (joined by '\n', as the spec joins it); every other byte is
// kept, line endings included. The pieces:
// - sse-lines.ts: the wire format, line by line (fields, line endings): a pure reader;
// - sse-event.ts: the event being read the per-line way: held (sse-held-lines.ts) while its type
//   is not known, or streamed when an `event: message` line came before its data;
// - sse-batch.ts: whole events through the core's batch, and an event cut by a chunk's end held
//   until it ends;
// - sse-output.ts: what is written, with the CR a dropped data line must not leave to a CRLF.
// This reads chunks into them: a BOM at the start is skipped, and at each event's start the
// batch may take the events ahead.
import type { Framer } from './framer.js';
import type { MessagePipe } from './pipe.js';
import { EventBatch, HeldEvent } from './sse-batch.js';
import { SseEvent } from './sse-event.js';
import { LineReader } from './sse-lines.js';
import { SseOutput } from './sse-output.js';

const BOM = [0xef, 0xbb, 0xbf];

export function sseFramer(pipe: MessagePipe, write: (b: Uint8Array) => void): Framer {
  const out = new SseOutput(write);
  const { emit } = out;
  const reader = new LineReader();
  const event = new SseEvent(pipe, out);
  const batch = new EventBatch(pipe, reader.ends, emit);
  const held = new HeldEvent(emit, pipe.maxMessageBytes, pipe.largeMessage);
  let bom: number[] | null = []; // the stream's first bytes, until a BOM is ruled in or out

  /**
   * Reads the lines of a chunk. `mayHold`: an event it ends inside may be held; `crEnds`: a CR
   * last in it is known to be no CRLF's (a held event that ended there).
   */
  const read = (chunk: Uint8Array, mayHold: boolean, crEnds = false) => {
    if (chunk.length === 0) return; // (a CR at the end of the last chunk is still pending)
    let at = reader.begin(chunk, event);
    while (at < chunk.length) {
      if (reader.fresh && pipe.framedReady()) {
        at = batch.take(chunk, at, crEnds);
        if (at === chunk.length) return;
        if (mayHold && batch.hold(chunk, at, held)) return;
      }
      at = reader.line(chunk, at, event);
    }
  };

  return {
    push(chunk) {
      if (bom) {
        // A BOM at the very start is written out and not parsed.
        let i = 0;
        while (i < chunk.length && bom.length < 3 && chunk[i] === BOM[bom.length]) bom.push(chunk[i++]!);
        if (bom.length === 3) {
          emit(Uint8Array.from(bom));
          bom = null;
        } else if (i === chunk.length)
          return; // (all of it may still be a BOM)
        else {
          // (Usually no byte of one: nothing to read, and no array made per stream.)
          const before = bom.length > 0 ? Uint8Array.from(bom) : null;
          bom = null;
          if (before) read(before, false);
        }
        if (i > 0) chunk = chunk.subarray(i);
      }
      if (held.length > 0) {
        const rest = held.add(chunk);
        if (rest) {
          read(held.take(), false, held.ended); // (whole, or not to be taken)
          read(rest, true);
        }
      } else read(chunk, true);
      reader.ends.reset(null); // (the chunk is its owner's again)
    },
    close() {
      if (bom?.length) read(Uint8Array.from(bom), false);
      bom = null;
      // (Cut by the stream's end: read as it came; a CR last is no CRLF's, so an event its blank
      // line ends is whole and may still be taken.)
      if (held.length > 0) read(held.take(), false, true);
      reader.finish(event);
      // An event the stream ends inside is never dispatched by a receiver; it still comes out
      // as a complete one would (and its data is checked).
      event.close();
    },
    output: (bytes) => event.route(bytes),
  };
}
