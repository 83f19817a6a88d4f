// A push that is one whole SSE event, the common case of an HTTP answer (one push, one event:
// `event: message`, maybe `id:`, and one `data:` line of one message, as the MCP SDK writes them),
// read without the line reader and its event state, and its data transformed in one call of the
// core's batch entry, as the batch (sse-batch.ts) would. Only an event the batch would take
// whole is read here, so the output, the messages' numbers and the batch's stepping aside are
// the batch's; any other push, and the event if the core refuses it, go the general way (sse.ts).
import type { MessagePipe } from './pipe.js';
import { BatchEventReader } from './sse-batch-event.js';
import { LF, LineEnds } from './sse-lines.js';

const BOM_FIRST = 0xef; // (a BOM's first byte: sse.ts reads a BOM)

/** What `takeWhole` did with a push: took it; must have it read the general way; or (`lines`) read it per line, its batch try spent. */
export type WholeResult = 'taken' | 'general' | 'lines';

// The one body's start and length for the core, and the push's line ends (a push is synchronous,
// and both are done with before the core call: streams share them).
const body = [0, 0];
const lineEnds = new LineEnds();
const reader = new BatchEventReader(lineEnds);

/**
 * Reads `chunk` as one whole event that the batch would take (read as the batch reads it:
 * sse-batch-event.ts), its blank line ending in LF at the chunk's end (a CR last could be the
 * first half of a CRLF). `first`: the stream's first bytes (a BOM there is not read here).
 * Transforms its data in the core and writes the event; says what it did.
 */
export function takeWhole(pipe: MessagePipe, chunk: Uint8Array, first: boolean, write: (b: Uint8Array) => void): WholeResult {
  const n = chunk.length;
  if (n < 3 || chunk[n - 1] !== LF || (first && chunk[0] === BOM_FIRST)) return 'general';
  lineEnds.reset(chunk);
  const found = findData(pipe, chunk);
  lineEnds.reset(null); // (the chunk is its owner's again)
  return found ? transform(pipe, chunk, write) : 'general';
}

/** Whether `chunk` is one event the batch would take whole, as takeWhole says: its data value's start and length go to `body`. */
function findData(pipe: MessagePipe, chunk: Uint8Array): boolean {
  // (No CR is last in the chunk, which ends in LF: `crEnds` says nothing.)
  if (reader.read(chunk, 0, false, pipe.maxMessageBytes) !== chunk.length) return false;
  const { valueStart, valueEnd } = reader;
  if (valueStart < 0 || valueEnd - valueStart > pipe.framedBytes) return false;
  body[0] = valueStart;
  body[1] = valueEnd - valueStart;
  return true;
}

/** The event that is `chunk`, its data value in `body`, through the batch entry. */
function transform(pipe: MessagePipe, chunk: Uint8Array, write: (b: Uint8Array) => void): WholeResult {
  if (!pipe.framedReady()) return 'lines';
  const valueStart = body[0]!;
  const valueEnd = valueStart + body[1]!;
  const taken = pipe.framed(chunk, valueStart, valueEnd, body, 1, (output, ends, taken) => {
    if (taken === 0) return;
    // (Each write copies: the output is a view into WASM memory, valid for the call.)
    write(chunk.subarray(0, valueStart));
    write(ends[0] === output.length ? output : output.subarray(0, ends[0]));
    write(chunk.subarray(valueEnd));
  });
  return taken === 1 ? 'taken' : 'lines';
}
