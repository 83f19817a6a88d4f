// Server-sent events (MCP over SSE and Streamable HTTP). The JSON in an event's `data:` lines
// (joined by '\n', as the spec says) is one message: each data line is fed to the pipe followed
// by '\n', which is JSON whitespace, so the transformed JSON splits back into the same lines.
// Comments, `id:`, `event:`, `retry:` and unknown fields are kept as they are, in order; so is
// every line ending (LF, CRLF, CR). Events named other than "message" (the old transport's
// `endpoint`) pass through untouched.
import { latin1Bytes } from '../text-util.js';
import { byteFinder } from './find-byte.js';
import type { Framer } from './framer.js';
import { concat, type MessagePipe } from './pipe.js';

const LF = 0x0a;
const CR = 0x0d;
const NEWLINE = new Uint8Array([LF]);
const MAX_FIELD = 16;

type Item =
  | { raw: Uint8Array }
  // A data line: its prefix ("data:" or "data: "), its transformed text so far, its line ending.
  | { prefix: Uint8Array | null; parts: Uint8Array[]; ending: Uint8Array | null; done: boolean };

export function sseFramer(pipe: MessagePipe, emit: (b: Uint8Array) => void): Framer {
  const queue: Item[] = [];
  // The line being read.
  let head: number[] = []; // its first bytes, until the field name is known
  let kind: 'unknown' | 'data' | 'raw' = 'unknown';
  let rawLine: Uint8Array[] = [];
  let pendingCR = false;
  let lineEmpty = true;
  // The event being read.
  let passThrough = false; // an event named other than "message"
  let sawData = false;

  const flushQueue = () => {
    while (queue.length) {
      const item = queue[0]!;
      if ('raw' in item) emit(item.raw);
      else {
        // The line at the head streams out as its text arrives; it need not be held whole.
        if (item.parts.length === 0 && !item.done) return; // nothing of it yet (it may be dropped)
        if (item.prefix) emit(item.prefix);
        item.prefix = null;
        for (const p of item.parts) emit(p);
        item.parts.length = 0;
        if (!item.done || item.ending === null) return;
        emit(item.ending);
      }
      queue.shift();
    }
  };

  /** Pipe output: split at '\n', each one closing the oldest open data line. */
  const route = (bytes: Uint8Array) => {
    const find = byteFinder(bytes);
    let start = 0;
    while (start <= bytes.length) {
      const nl = find(LF, start);
      const end = nl < 0 ? bytes.length : nl;
      const open = queue.find((q): q is Extract<Item, { parts: Uint8Array[] }> => 'parts' in q && !q.done);
      if (open && end > start) open.parts.push(bytes.slice(start, end)); // (pipe output is a view, valid only for the call)
      if (nl < 0) break;
      if (open) open.done = true;
      start = nl + 1;
    }
    flushQueue();
  };

  const dropDataLines = () => {
    for (let i = queue.length - 1; i >= 0; i--) if ('parts' in queue[i]!) queue.splice(i, 1);
  };

  const startLine = () => {
    head = [];
    kind = 'unknown';
    rawLine = [];
    lineEmpty = true;
  };

  /** Decides the field once its name (up to ':') or the line end is seen. */
  const classify = (ended: boolean): void => {
    const text = String.fromCharCode(...head);
    const colon = text.indexOf(':');
    if (colon < 0 && !ended && head.length < MAX_FIELD) return;
    const name = colon < 0 ? text : text.slice(0, colon);
    if (name === 'data' && !passThrough) {
      kind = 'data';
      let valueStart = colon < 0 ? text.length : colon + 1;
      if (text[valueStart] === ' ') valueStart++;
      else if (valueStart === text.length && !ended) {
        return void (kind = 'unknown'); // wait: a space may still follow the colon
      }
      sawData = true;
      queue.push({ prefix: latin1Bytes(text.slice(0, valueStart)), parts: [], ending: null, done: false });
      const value = Uint8Array.from(head.slice(valueStart));
      if (value.length) pipe.feed(value);
    } else {
      kind = 'raw';
      rawLine.push(Uint8Array.from(head));
    }
    head = [];
  };

  const endLine = (ending: Uint8Array) => {
    if (lineEmpty) {
      // Blank line: the event is complete. A dropped message (keys collided) takes its data
      // lines with it; the blank line stays, so an event without data ends here.
      if (sawData && pipe.end() === 'dropped') dropDataLines();
      queue.push({ raw: ending });
      flushQueue();
      passThrough = false;
      sawData = false;
      return startLine();
    }
    if (kind === 'unknown') classify(true);
    if (kind === 'data') {
      const item = [...queue].reverse().find((q): q is Extract<Item, { parts: Uint8Array[] }> => 'parts' in q)!;
      item.ending = ending;
      pipe.feed(NEWLINE);
    } else {
      const line = concat(rawLine);
      if (!sawData) {
        // `event: NAME` before the data: anything but "message" passes through untouched.
        const m = /^event:( ?)(.*)$/.exec(String.fromCharCode(...line.subarray(0, 64)));
        if (m) passThrough = m[2] !== 'message';
      }
      queue.push({ raw: concat([line, ending]) });
    }
    flushQueue();
    startLine();
  };

  const content = (chunk: Uint8Array) => {
    if (chunk.length === 0) return;
    lineEmpty = false;
    if (kind === 'unknown') {
      let i = 0;
      while (i < chunk.length && kind === 'unknown') {
        head.push(chunk[i++]!);
        classify(false);
      }
      chunk = chunk.subarray(i);
      if (chunk.length === 0) return;
    }
    if (kind === 'data') pipe.feed(chunk);
    else rawLine.push(chunk.slice());
  };

  startLine();
  return {
    push(chunk) {
      if (chunk.length === 0) return; // (a CR at the end of the last chunk is still pending)
      let at = 0;
      if (pendingCR) {
        pendingCR = false;
        if (chunk[0] === LF) {
          endLine(new Uint8Array([CR, LF]));
          at = 1;
        } else endLine(new Uint8Array([CR]));
      }
      // Next LF and next CR, found natively and remembered until passed.
      const find = byteFinder(chunk);
      let nextLF = -2;
      let nextCR = -2;
      while (at < chunk.length) {
        if (nextLF !== -1 && nextLF < at) nextLF = find(LF, at);
        if (nextCR !== -1 && nextCR < at) nextCR = find(CR, at);
        let i = nextLF < 0 ? nextCR : nextCR < 0 ? nextLF : Math.min(nextLF, nextCR);
        if (i < 0) i = chunk.length;
        content(chunk.subarray(at, i));
        if (i === chunk.length) return;
        if (chunk[i] === LF) endLine(new Uint8Array([LF]));
        else if (i + 1 === chunk.length) {
          pendingCR = true; // CR or CRLF: the next chunk tells
          return;
        } else if (chunk[i + 1] === LF) {
          endLine(new Uint8Array([CR, LF]));
          i++;
        } else endLine(new Uint8Array([CR]));
        at = i + 1;
      }
    },
    close() {
      if (pendingCR) endLine(new Uint8Array([CR]));
      if (!lineEmpty) {
        if (kind === 'unknown') classify(true);
        if (kind === 'raw') queue.push({ raw: concat(rawLine) });
        else if (kind === 'data') {
          const item = [...queue].reverse().find((q): q is Extract<Item, { parts: Uint8Array[] }> => 'parts' in q)!;
          item.ending = new Uint8Array(0);
          pipe.feed(NEWLINE);
        }
      }
      if (sawData && pipe.active && pipe.end() === 'dropped') dropDataLines();
      flushQueue();
    },
    output: route,
  };
}
