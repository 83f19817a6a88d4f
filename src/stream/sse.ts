// Server-sent events (MCP over SSE and Streamable HTTP), read as the WHATWG EventSource
// algorithm (and eventsource-parser, which the MCP SDK uses) reads them. The JSON in an event's
// `data:` lines is transformed (joined by '\n', as the spec joins it); every other byte is
// kept, line endings included. The pieces:
// - sse-lines.ts: the wire format, line by line (fields, line endings): a pure reader;
// - sse-event.ts: the event being read the per-line way: held (sse-held-lines.ts) while its type
//   is not known, or streamed when an `event: message` line came before its data;
// - sse-batch.ts: whole events through the core's batch (each read by sse-batch-event.ts), and an
//   event cut by a chunk's end held until it ends;
// - sse-output.ts: what is written, with the CR a dropped data line must not leave to a CRLF;
// - sse-whole.ts: a push that is one whole event, read without the others.
// This reads chunks into them: a BOM at the start is skipped, and at each event's start the
// batch may take the events ahead. Until a push is not one whole event, none of them is made (a
// stream per HTTP answer makes none).
import type { Framer } from './framer.js';
import type { MessagePipe } from './pipe.js';
import { EventBatch, HeldEvent } from './sse-batch.js';
import { SseEvent } from './sse-event.js';
import { LineReader } from './sse-lines.js';
import { SseOutput } from './sse-output.js';
import { takeWhole } from './sse-whole.js';

const BOM = [0xef, 0xbb, 0xbf];

/** The general framer, and what it takes besides a Framer's work: a chunk read with no batch at its start (the whole event's try spent). */
interface General extends Framer {
  push(chunk: Uint8Array, batchFirst?: boolean): void;
}

export function sseFramer(pipe: MessagePipe, write: (b: Uint8Array) => void): Framer {
  let general: General | null = null;
  let first = true; // no byte came yet
  return {
    push(chunk) {
      if (general === null) {
        if (chunk.length === 0) return;
        const did = takeWhole(pipe, chunk, first, write);
        if (did === 'taken') {
          first = false;
          return;
        }
        general = generalFramer(pipe, write, first);
        general.push(chunk, did === 'general');
      } else general.push(chunk);
    },
    close() {
      general?.close(); // (none made: every push was a whole event, nothing is left)
    },
    output(bytes) {
      // The pipe writes here only what the per-line way fed it, and only the general framer
      // feeds it: none made, none fed (takeWhole's output goes by its own sink).
      if (general === null) throw new Error('sse framer: the pipe wrote a message before any was fed (none is read the per-line way yet)');
      general.output(bytes);
    },
  };
}

/** Every chunk, every event, the per-line way or the batch's; `first`: no byte came yet (a BOM may start it). */
function generalFramer(pipe: MessagePipe, write: (b: Uint8Array) => void, first: boolean): General {
  const out = new SseOutput(write);
  const { emit } = out;
  const reader = new LineReader();
  const event = new SseEvent(pipe, out);
  const batch = new EventBatch(pipe, reader.ends, emit);
  const held = new HeldEvent(emit, pipe.maxMessageBytes, pipe.largeMessage);
  let bom: number[] | null = first ? [] : null; // the stream's first bytes, until a BOM is ruled in or out

  /**
   * Reads the lines of a chunk. `mayHold`: an event it ends inside may be held; `crEnds`: a CR
   * last in it is known to be no CRLF's (a held event that ended there); `batchFirst` false: the
   * event at its start goes the per-line way.
   */
  const read = (chunk: Uint8Array, mayHold: boolean, crEnds = false, batchFirst = true) => {
    if (chunk.length === 0) return; // (a CR at the end of the last chunk is still pending)
    let at = reader.begin(chunk, event);
    let ask = batchFirst;
    while (at < chunk.length) {
      if (reader.fresh && ask && pipe.framedReady()) {
        at = batch.take(chunk, at, crEnds);
        if (at === chunk.length) return;
        if (mayHold && batch.hold(chunk, at, held)) return;
      }
      ask = true;
      at = reader.line(chunk, at, event);
    }
  };

  return {
    push(chunk, batchFirst = true) {
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
      } else read(chunk, true, false, batchFirst);
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
