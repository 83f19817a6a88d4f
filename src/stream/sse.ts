// Server-sent events (MCP over SSE and Streamable HTTP), read as the WHATWG EventSource
// algorithm (and eventsource-parser, which the MCP SDK uses) reads them: lines end at LF, CR or
// CRLF; a BOM at the start is skipped; a field name runs to the first ':' (or is the whole line),
// case-sensitive, and one space after the colon is not part of the value; a blank line ends the
// event. An event is a `message` unless its LAST `event` field names something else ("" counts
// as message), and that field may come after the data. So from an event's first data line to its
// end, its lines are held (data within maxMessageBytes, the rest too), then either its data is
// transformed (joined by '\n', as the spec joins it: each data line's output is what the pipe
// writes up to the matching '\n') or the event passes as it came. An event whose `event:` line
// said "message" (or "") before its first data line (as the MCP SDK writes them) is not held:
// its data streams through the pipe as it comes (in blocks of DATA_BLOCK bytes of it, wherever
// pushes cut it), each other line waiting only until the output has passed it, and only its
// final type is checked at its end (one that is no longer a message is refused: its data went
// out encoded). Lines outside that span (comments, `id:`, `event:`, unknown fields before any
// data) stream out as they arrive. Every byte is kept, line endings included, except the
// transformed JSON.
import { Carry } from './carry.js';
import { byteFinder } from './find-byte.js';
import { FramedWriter } from './framed-writer.js';
import type { Framer } from './framer.js';
import { HeldBytes } from './held-bytes.js';
import type { EndResult, MessagePipe } from './pipe.js';
import { FRAMED, FRAMES, LARGE_LINE } from './transducer.js';

const LF = 0x0a;
const CR = 0x0d;
const NEWLINE = new Uint8Array([LF]);
const COLON = new Uint8Array([0x3a]);
const ENDINGS = { lf: new Uint8Array([LF]), cr: new Uint8Array([CR]), crlf: new Uint8Array([CR, LF]) };
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a]; // 'data:'
const EVENT = [0x65, 0x76, 0x65, 0x6e, 0x74, 0x3a]; // 'event:'
const STRIDE = 6;
/**
 * A held line's entry in the line index costs 48 bytes: past the first FREE_LINES of an event
 * (48 KiB, so that a small limit still lets a message of that size through in many lines) it
 * is charged to the event's other lines, so that lines of one byte cannot hold 48 times what
 * they count.
 */
const LINE_COST = STRIDE * Float64Array.BYTES_PER_ELEMENT;
const FREE_LINES = 1024;
/** Lines of a streamed event written out before their index entries and bytes are let go of. */
const COMPACT_LINES = 1024;
const TYPE_CHANGED = 'an SSE event whose data streamed as a message event ends as another type (an `event:` line after its data)';
const MESSAGE = [0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65]; // 'message'
const NO_BYTES = new Uint8Array(0);
/** Most lines of an event the core's batch takes (the rest go the per-line way). */
const BATCH_LINES = 64;
const BOM = [0xef, 0xbb, 0xbf];
/** The longest start of an event held until it ends: data the core takes whole (shorter than LARGE_LINE), and other lines. */
const CARRY = LARGE_LINE + 1024;
/**
 * A streamed event's data goes to the pipe in blocks of this many bytes (and the rest at its
 * end), not as pushes bring it: where the pipe is fed decides how much of an invalid message is
 * written before its error (a payload string's output so far goes out at each feed's end), so
 * feeding it as it came made that depend on how the stream was cut, and a held event read whole
 * (the batch's carry) wrote other bytes than the same event streamed. A held event's data is fed
 * in the same blocks (HeldBytes' chunks).
 */
const DATA_BLOCK = 64 * 1024;

type Kind = 'head' | 'data' | 'event' | 'other';

/** Whether b holds `word` at `at`. */
function spells(b: Uint8Array, at: number, word: number[]): boolean {
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word[k]) return false;
  return true;
}
/** Whether the line of n bytes at b[p] is a `data` line (`data`, or `data:` and a value), as the spec splits fields. */
const isDataLine = (b: Uint8Array, p: number, n: number) =>
  b[p] === 0x64 && b[p + 1] === 0x61 && b[p + 2] === 0x74 && b[p + 3] === 0x61 && (n === 4 || b[p + 4] === 0x3a);
/** Whether it is an `event` line. */
const isEventLine = (b: Uint8Array, p: number, n: number) =>
  b[p] === 0x65 && b[p + 1] === 0x76 && b[p + 2] === 0x65 && b[p + 3] === 0x6e && b[p + 4] === 0x74 && (n === 5 || b[p + 5] === 0x3a);
const startsWith = (head: number[], prefix: number[]) => prefix.every((b, i) => head[i] === b);
const isPrefixOf = (head: number[], word: number[]) => head.length < word.length && head.every((b, i) => word[i] === b);

export function sseFramer(pipe: MessagePipe, write: (b: Uint8Array) => void): Framer {
  const max = pipe.maxMessageBytes;
  // Dropping the data lines of a refused event must not join a CR that ended the line before
  // them with the LF of the blank line after them (one CRLF: the event would not end there).
  let lastCR = false;
  let dropped = false;
  const emit = (b: Uint8Array) => {
    if (b.length === 0) return;
    if (dropped && lastCR && b[0] === LF) write(ENDINGS.cr);
    dropped = false;
    lastCR = b[b.length - 1] === CR;
    write(b);
  };

  let bom: number[] | null = []; // the stream's first bytes, until a BOM is ruled in or out
  let pendingCR = false;

  // The line being read.
  let head: number[] = []; // its first bytes, until the field is known
  let kind: Kind = 'head';
  let lineEmpty = true;
  let lineHeld = false; // its bytes go to `held` (else they are written as they come)
  let lineLength = 0;
  let valueStart = 0; // data lines: where the value begins
  const eventHead = new Uint8Array(16); // event lines: their first bytes (enough to tell "message")
  let eventHeadLength = 0;

  // The event being read.
  let fresh = true; // no line of it seen yet (the batch may take it from here)
  let eventIsMessage = true;
  let typed = false; // an `event:` line was seen (before the first data line, it decides `streaming`)
  let holding = false; // a data line was seen: the rest of the event is held
  // Its type was a message at its first data line: its data goes to the pipe as it comes (in
  // blocks), and its other lines are held only until the output passes them.
  let streaming = false;
  let skipping = false; // the event was refused (too large, or its streamed message): its data lines are dropped
  let endBegun = false; // the data line being read was begun in the output before it was refused: its ending goes out
  // (256 KiB of each kept for the next event.)
  const held = new HeldBytes(4); // its lines but for data values
  const joined = new HeldBytes(4); // its data values joined by '\n': the message, as the spec builds it
  // Per held line (STRIDE numbers): start, end of the field name and ':' (-1: not a data line),
  // start and end of its line ending in `held`; the span of its value in `joined`.
  let lines: number[] = []; // (written in order: it grows as a plain array does)
  let linesLength = 0;
  const addLine = (start: number, nameEnd: number, value: number) => {
    const at = linesLength;
    lines[at] = start;
    lines[at + 1] = nameEnd;
    lines[at + 2] = -1;
    lines[at + 3] = -1;
    lines[at + 4] = value;
    lines[at + 5] = value;
    linesLength += STRIDE;
  };
  const clearLines = () => {
    linesLength = 0;
    if (lines.length > STRIDE * 65536) lines = []; // (a huge event's go)
  };
  let otherBytes = 0; // what `held` and the line index hold
  const tooManyOther = `SSE lines held within an event larger than maxMessageBytes (${max})`;
  let hasData = false; // a data line is held (the next one is joined with '\n')

  const refuse = (reason: string, offset: number) => {
    // (Each throws unless onInvalidMessage takes it.)
    if (streaming) {
      flushData(); // (an error in the data before comes first, as when it was fed as it came)
      if (skipping) return; // (it had one: the event is abandoned)
      pipe.fail('too-large', reason);
    } else pipe.reject('too-large', reason, offset);
    abandon();
  };

  /**
   * The event's message was refused: its held data lines go (a streamed one begun in the
   * output is ended), the other lines held go out (the one being read up to here), and the rest
   * of the event streams, its data lines dropped.
   */
  const abandon = () => {
    skipping = true;
    blockLength = 0; // (a streamed event's data not fed goes with it)
    let i = 0;
    if (streaming) {
      i = cur; // (the lines before it are out)
      if (prefixOut) {
        if (lines[cur + 3]! >= 0) emitPart(cur, 2, 3);
        else endBegun = true; // (the line being read)
        prefixOut = false;
        i += STRIDE;
      }
    }
    for (; i < linesLength; i += STRIDE) {
      if (lines[i + 1]! < 0) held.forEach(lines[i]!, lines[i + 3]! >= 0 ? lines[i + 3]! : held.length, emit);
      else dropped = true; // (after what it wrote: its data lines are gone from between those and what follows)
    }
    held.reset();
    joined.reset();
    clearLines();
    hasData = false;
    lineHeld = false;
  };

  // A streamed event's data not yet fed: up to DATA_BLOCK bytes (made at the first, grown by doubling).
  let block: Uint8Array = NO_BYTES;
  let blockLength = 0;

  /** Feeds the pipe a streamed event's data. */
  const feedPipe = (b: Uint8Array) => {
    pipe.feed(b);
    if (pipe.invalid && !skipping) abandon(); // (onInvalidMessage took it: its data stops here)
  };

  /** Feeds what waits of a streamed event's data (a block, or less at the event's end). */
  const flushData = () => {
    if (blockLength === 0) return;
    const b = block.subarray(0, blockLength);
    blockLength = 0;
    feedPipe(b);
  };

  /**
   * A streamed event's data bytes (a joining '\n' counts against maxMessageBytes, as when held),
   * fed in blocks of DATA_BLOCK bytes of its data, wherever the pushes cut it.
   */
  const feedData = (b: Uint8Array) => {
    let at = 0;
    while (at < b.length && !skipping) {
      if (blockLength === 0 && b.length - at >= DATA_BLOCK) {
        feedPipe(b.subarray(at, at + DATA_BLOCK)); // (a whole block: not copied)
        at += DATA_BLOCK;
        continue;
      }
      const n = Math.min(DATA_BLOCK - blockLength, b.length - at);
      if (blockLength + n > block.length) {
        let size = Math.max(1024, block.length);
        while (size < blockLength + n) size *= 2;
        const grown = new Uint8Array(Math.min(size, DATA_BLOCK));
        grown.set(block.subarray(0, blockLength));
        block = grown;
      }
      block.set(n === b.length ? b : b.subarray(at, at + n), blockLength);
      blockLength += n;
      at += n;
      if (blockLength === DATA_BLOCK) flushData();
    }
  };

  /** Bytes of the current line, after its field is known. */
  const lineBytes = (b: Uint8Array) => {
    if (b.length === 0) return;
    if (kind === 'event') for (let i = 0; i < b.length && eventHeadLength < 16; i++) eventHead[eventHeadLength++] = b[i]!;
    const before = lineLength;
    lineLength += b.length;
    if (skipping && kind === 'data') {
      dropped = true;
      return;
    }
    if (!lineHeld) return void emit(b);
    // A data line's value is the message's; its field name and everything else held have a
    // bound of their own.
    const name = kind === 'data' ? Math.max(0, Math.min(b.length, valueStart - before)) : b.length;
    if (name > 0) {
      otherBytes += name;
      const over = otherBytes > max;
      // A data line's name (6 bytes at most) is held even past the bound: a streamed event's
      // output goes after it, the byte that spoils it when refused here included.
      if (!over || kind === 'data') held.push(name === b.length ? b : b.subarray(0, name));
      if (over) {
        refuse(tooManyOther, 0);
        if (kind !== 'data') emit(b);
        return;
      }
    }
    if (name < b.length) {
      if (streaming) return feedData(name === 0 ? b : b.subarray(name));
      if (joined.length + b.length - name > max) return refuse(`message larger than maxMessageBytes (${max})`, max);
      joined.push(b.subarray(name));
      lines[linesLength - 1] = joined.length;
    }
  };

  /** The field is known: where the line's bytes go. */
  const begin = (k: Kind, first: Uint8Array) => {
    kind = k;
    if (k === 'data' && !holding) {
      holding = true;
      if (typed && eventIsMessage) startStreaming();
    }
    lineHeld = holding && !skipping;
    if (lineHeld && linesLength >= FREE_LINES * STRIDE) {
      otherBytes += LINE_COST;
      if (otherBytes > max) refuse(tooManyOther, 0); // (ends lineHeld)
    }
    if (lineHeld) {
      const join = k === 'data' && hasData;
      if (join && !streaming) {
        if (joined.length + 1 > max) return refuse(`message larger than maxMessageBytes (${max})`, max);
        joined.push(NEWLINE); // the join
      }
      if (k === 'data') hasData = true;
      addLine(held.length, k === 'data' ? held.length + valueStart : -1, joined.length);
      if (join && streaming) feedData(NEWLINE); // (after its line is known: the output's '\n' moves to it)
    }
    lineLength = 0;
    lineBytes(first);
  };

  /** Decides the field once enough of the line (or its end) is seen. */
  const classify = (ended: boolean) => {
    if (!ended && (isPrefixOf(head, DATA) || isPrefixOf(head, EVENT))) return;
    if (startsWith(head, DATA) && head.length === DATA.length && !ended) return; // is a space next?
    let k: Kind;
    if (startsWith(head, DATA) || (ended && head.length === 4 && isPrefixOf(head, DATA))) {
      k = 'data';
      valueStart = head[5] === 0x20 ? 6 : Math.min(5, head.length);
    } else if (startsWith(head, EVENT) || (ended && head.length === 5 && isPrefixOf(head, EVENT))) k = 'event';
    else k = 'other';
    const bytes = Uint8Array.from(head);
    head = [];
    begin(k, bytes);
  };

  const content = (chunk: Uint8Array) => {
    if (chunk.length === 0) return;
    lineEmpty = false;
    fresh = false;
    if (kind === 'head' && head.length === 0) {
      // (The usual case: the field name is all in this chunk, or its first byte tells.)
      const c = chunk;
      if (c[0] !== 0x64 && c[0] !== 0x65) return begin('other', chunk);
      if (c.length > 6) {
        if (c[0] === 0x64 && c[1] === 0x61 && c[2] === 0x74 && c[3] === 0x61 && c[4] === 0x3a) {
          valueStart = c[5] === 0x20 ? 6 : 5;
          return begin('data', chunk);
        }
        return begin(
          c[0] === 0x65 && c[1] === 0x76 && c[2] === 0x65 && c[3] === 0x6e && c[4] === 0x74 && c[5] === 0x3a ? 'event' : 'other',
          chunk,
        );
      }
    }
    let i = 0;
    while (kind === 'head' && i < chunk.length) {
      head.push(chunk[i++]!);
      classify(false);
    }
    lineBytes(i === 0 ? chunk : chunk.subarray(i));
  };

  const endLine = (ending: Uint8Array) => {
    if (lineEmpty) return endEvent(ending);
    if (kind === 'head') classify(true);
    if (kind === 'event') {
      // The value: after 'event:' and one space; only "" and "message" are message events.
      let v = eventHeadLength > 6 && eventHead[6] === 0x20 ? 7 : 6;
      v = Math.min(v, lineLength);
      eventIsMessage = lineLength - v === 0 || (lineLength - v === MESSAGE.length && MESSAGE.every((b, k) => eventHead[v + k] === b));
      typed = true;
    }
    if (lineHeld) {
      lines[linesLength - 4] = held.length;
      otherBytes += ending.length;
      held.push(ending); // (past the bound too: a refused event's lines go out whole)
      lines[linesLength - 3] = held.length;
      if (otherBytes > max) refuse(tooManyOther, 0); // (else the last line's ending went unchecked)
    } else if (!(skipping && kind === 'data') || endBegun) emit(ending);
    endBegun = false;
    if (head.length) head = [];
    kind = 'head';
    lineEmpty = true;
    lineHeld = false;
    lineLength = 0;
    eventHeadLength = 0;
  };

  /** The held event is complete: transform its data, or let it pass. */
  const flushEvent = () => {
    if (streaming) return endStreamed();
    if (!holding || skipping || linesLength === 0) return;
    if (eventIsMessage) return transformEvent();
    for (let i = 0; i < linesLength; i += STRIDE) {
      if (lines[i + 1]! < 0) emitPart(i, 0, 3);
      else {
        emitPart(i, 0, 1);
        joined.forEach(lines[i + 4]!, lines[i + 5]!, emit);
        emitPart(i, 2, 3);
      }
    }
  };

  // Routing the pipe's output into the held lines: `cur` is the data line being written.
  let routing = false;
  let cur = 0;
  let prefixOut = false;
  /** Writes the held bytes of line `i` between two of its offsets (0 start, 2 and 3 its line ending). */
  const emitPart = (i: number, from: number, to: number) => held.forEach(lines[i + from]!, lines[i + to]!, emit);
  /**
   * Writes data line `cur`'s field name (and `:`, a space) before its output. `value`: bytes of
   * it follow, which a bare `data` line (no colon: an empty value) can only hold with a colon
   * added, or they would join its field name (`data,` is no data line: the spoiled data of a
   * refused event would parse).
   */
  const ensurePrefix = (value = false) => {
    if (prefixOut) return;
    emitPart(cur, 0, 1);
    if (value && lines[cur + 1]! - lines[cur]! === 4) emit(COLON);
    prefixOut = true;
  };
  /** Ends data line `cur` and writes the non-data lines after it, up to the next data line. */
  const nextLine = (writeData: boolean) => {
    if (prefixOut) emitPart(cur, 2, 3);
    prefixOut = false;
    for (cur += STRIDE; cur < linesLength && (lines[cur + 1]! < 0 || !writeData); cur += STRIDE) {
      if (lines[cur + 1]! < 0) emitPart(cur, 0, 3);
    }
    if (streaming && cur >= COMPACT_LINES * STRIDE && 2 * cur >= linesLength && cur < linesLength) compact();
  };

  /**
   * A streamed event: the lines before `cur` are written; their index entries and bytes go,
   * and what the event holds is counted again (only what waits counts against the bound).
   */
  const compact = () => {
    const heldFrom = lines[cur]!; // (where in `held` the lines not yet written begin)
    held.dropBefore(heldFrom);
    lines.copyWithin(0, cur, linesLength);
    linesLength -= cur;
    cur = 0;
    otherBytes = held.length - heldFrom + Math.max(0, linesLength / STRIDE - FREE_LINES) * LINE_COST;
  };

  const route = (bytes: Uint8Array) => {
    if (!routing) throw new Error('SSE: pipe output outside an event'); // (cannot happen)
    const find = byteFinder(bytes);
    let start = 0;
    for (;;) {
      const nl = find(LF, start);
      const end = nl < 0 ? bytes.length : nl;
      if (end > start) {
        ensurePrefix(true);
        emit(bytes.subarray(start, end));
      }
      if (nl < 0) return;
      ensurePrefix();
      nextLine(true);
      start = nl + 1;
    }
  };

  const transformEvent = () => {
    routing = true;
    cur = 0;
    prefixOut = false;
    let result: EndResult;
    try {
      if (joined.length === 0) pipe.feed(NO_BYTES);
      joined.drain((b) => pipe.feed(b)); // (each chunk let go of once fed)
      result = pipe.end();
    } finally {
      routing = false;
    }
    endRouting(result);
  };

  /** The event's first data line, its type a message: its message starts, and its output is routed from here. */
  const startStreaming = () => {
    streaming = true;
    routing = true;
    cur = 0;
    prefixOut = false;
    pipe.feed(NO_BYTES);
  };

  /**
   * A streamed event ends: its message ends, unless it was refused; refused if its type is no
   * longer a message (its data went out encoded, and spoiled now: a receiver must not take it as
   * this other type's data unreported).
   */
  const endStreamed = () => {
    let result: EndResult;
    try {
      flushData();
      if (!skipping && !eventIsMessage) pipe.fail('framing', TYPE_CHANGED);
      result = pipe.end();
    } finally {
      routing = false;
    }
    if (!skipping) endRouting(result);
  };

  /** The message of a held or streamed event ended with `result`: what waits goes out. */
  const endRouting = (result: EndResult) => {
    // 'message' or 'blank': the last data line ends, then what follows it. Otherwise (dropped
    // or invalid) the data lines not written go, and a data line already begun is ended, so the
    // event's partial data (which the pipe made sure does not parse) makes an invalid event.
    if (result === 'message' || result === 'blank') {
      ensurePrefix();
      nextLine(true);
    } else {
      if (prefixOut) emitPart(cur, 2, 3);
      else dropped = true;
      prefixOut = false;
      for (let i = cur + STRIDE; i < linesLength; i += STRIDE) {
        if (lines[i + 1]! < 0) emitPart(i, 0, 3);
        else dropped = true;
      }
    }
  };

  const resetEvent = () => {
    fresh = true;
    holding = false;
    streaming = false;
    typed = false;
    skipping = false;
    endBegun = false;
    blockLength = 0;
    eventIsMessage = true;
    held.reset();
    joined.reset();
    clearLines();
    hasData = false;
    otherBytes = 0;
  };

  const endEvent = (ending: Uint8Array) => {
    flushEvent();
    emit(ending);
    resetEvent();
  };

  // Line ends in the chunk being read: the next LF and the next CR at or after a position, each
  // found natively and kept while it answers (a search from p answers for any position from p to
  // what it found: the batch reads its last event again from its start).
  const noSearch = () => -1;
  let search: (byte: number, from: number) => number = noSearch;
  let lfFrom = 0;
  let lfAt = -2;
  let crFrom = 0;
  let crAt = -2;
  /** Where the line from p ends (its LF or CR), or -1: none in the chunk. */
  const lineEnd = (p: number): number => {
    if (lfAt === -2 || p < lfFrom || (lfAt >= 0 && lfAt < p)) {
      lfAt = search(LF, p);
      lfFrom = p;
    }
    if (crAt === -2 || p < crFrom || (crAt >= 0 && crAt < p)) {
      crAt = search(CR, p);
      crFrom = p;
    }
    return lfAt < 0 ? crAt : crAt < 0 ? lfAt : Math.min(lfAt, crAt);
  };

  // Events gathered for the core's batch entry (chunk offsets): per event, its start, its data
  // value's span (-1: no data line) and its end (past its blank line); per body, start and length.
  // (Plain arrays: a typed array costs microseconds to make, once per HTTP response's stream.)
  const events: number[] = [];
  const bodies: number[] = [];
  const out = new FramedWriter();

  /**
   * At an event's start, nothing held: the events from `at` whole in `chunk` whose data is one
   * `data:` line of a message event (the common case), within the limits, have their data
   * transformed in the core, up to FRAMED bytes of it per call (longer data, shorter than
   * LARGE_LINE, in a call of its own), and are written as the per-line
   * way writes them (the data value replaced, every other byte kept); events without data
   * pass. Returns where it stopped, at an event start: that event (refused by the core, cut by
   * the chunk's end, of another type, with several data lines or many lines) goes the per-line
   * way, which reports and checks it as always.
   */
  const takeEvents = (chunk: Uint8Array, at: number, crEnds: boolean): number => {
    const length = chunk.length;
    cut.start = -1;
    batches: for (;;) {
      let n = 0; // events
      let m = 0; // bodies
      let from = -1;
      let p = at;
      let full = false;
      gather: while (n < FRAMES) {
        const start = p;
        let valueStart = -1;
        let valueEnd = -1;
        let isMessage = true;
        let other = 0; // what the per-line way counts against the limit besides the data
        let lines = 0;
        for (;;) {
          const e = lineEnd(p);
          if (e < 0 || (chunk[e] === CR && e + 1 === length && !crEnds)) {
            // Cut by the chunk's end (a CR last: CR or CRLF, the next chunk tells, unless known).
            cut.start = start;
            cut.line = p;
            cut.searched = e < 0 ? length : e;
            break gather;
          }
          if (++lines > BATCH_LINES) break gather;
          let ending = 1;
          if (chunk[e] === CR && chunk[e + 1] === LF) ending = 2;
          const n0 = e - p;
          const next = e + ending;
          if (n0 === 0) {
            p = next;
            break; // the blank line: the event ends
          }
          if (isDataLine(chunk, p, n0)) {
            if (valueStart >= 0) break gather; // several data lines
            const v = n0 > 5 && chunk[p + 5] === 0x20 ? 6 : Math.min(5, n0);
            valueStart = p + v;
            valueEnd = e;
            other += v + ending;
          } else {
            if (isEventLine(chunk, p, n0)) {
              const v = Math.min(n0 > 6 && chunk[p + 6] === 0x20 ? 7 : 6, n0);
              isMessage = n0 - v === 0 || (n0 - v === MESSAGE.length && spells(chunk, p + v, MESSAGE));
            }
            if (valueStart >= 0) other += n0 + ending; // (held after the data line)
          }
          p = next;
        }
        if (valueStart >= 0) {
          if (!isMessage || valueEnd - valueStart > max || other > max) break;
          if (from < 0) from = valueStart;
          if (valueEnd - from > FRAMED) {
            const large = pipe.takesLarge(valueEnd - valueStart);
            if (n === 0 && large) {
              // Too long for a batch: on its own, then the events after it batched again.
              const end = p;
              const took = pipe.large(chunk, valueStart, valueEnd - valueStart, (output) => {
                emit(chunk.subarray(start, valueStart));
                emit(output);
                emit(chunk.subarray(valueEnd, end));
              });
              if (!took) return at;
              at = end;
              continue batches;
            }
            full = m > 0 || large; // (the events before it first: then it comes first)
            break;
          }
          bodies[2 * m] = valueStart;
          bodies[2 * m + 1] = valueEnd - valueStart;
          m++;
        }
        events[4 * n] = start;
        events[4 * n + 1] = valueStart;
        events[4 * n + 2] = valueEnd;
        events[4 * n + 3] = p;
        n++;
      }
      if (n === 0) return at;
      const taken = m === 0 ? 0 : pipe.framed(chunk, from, bodies[2 * m - 2]! + bodies[2 * m - 1]!, bodies, m);
      // (The outputs are copied before anything is written; none when no event had data.)
      out.load(m === 0 ? NO_BYTES : pipe.framedOutput(), events[4 * n - 1]! - at);
      let written = at; // (what is before it is out: events follow each other)
      let made = 0;
      let k = 0;
      let e = 0;
      for (; e < n; e++) {
        const valueStart = events[4 * e + 1]!;
        if (valueStart < 0) continue;
        if (k === taken) break;
        const end = pipe.framedEnd(k++);
        out.bytes(chunk, written, valueStart);
        out.output(made, end);
        made = end;
        written = events[4 * e + 2]!;
      }
      const end = e === n ? events[4 * n - 1]! : events[4 * e]!;
      out.bytes(chunk, written, end);
      out.flush(emit);
      if (e < n) return end;
      at = end;
      if (!full && n < FRAMES) return at;
    }
  };

  // An event cut by the chunk's end where the batch stopped (an event start, nothing held) is held
  // (copied: the chunk's owner may reuse it) until its blank line arrives, then read as a chunk
  // of its own, so how a stream is cut does not decide which path a message takes. One that
  // outgrows the carry is read as it came, the per-line way. `takeEvents` notes where it was cut.
  const cut = { start: -1, line: 0, searched: 0 };
  // (Within maxMessageBytes and 1 KiB of other lines, as a Content-Length frame is held.)
  const carry = new Carry(Math.min(CARRY, max + 1024));
  let carryLine = 0; // where the held event's unfinished line starts
  let carrySearched = 0; // no line ending in [carryLine, carrySearched)

  // Its first lines that are neither data nor `event:` lines (comments, `id:`, `retry:`: a
  // keep-alive) change nothing the batch decides, and the per-line way writes them as they
  // arrive: they are written as they end, not held (carryFront: where those lines end; -1: a
  // data or event line came).
  let carryFront = 0;

  /** Whether line [p, p + n) of b (its ending after it) is neither a data nor an `event:` line, as takeEvents reads them. */
  const plain = (b: Uint8Array, p: number, n: number): boolean => !isDataLine(b, p, n) && !isEventLine(b, p, n);

  /** Writes the held event's plain first lines, and moves the rest to the carry's start. */
  const writeFront = () => {
    if (carryFront <= 0) return;
    emit(carry.bytes.subarray(0, carryFront)); // (copied)
    carry.shift(carryFront);
    carryLine -= carryFront;
    carrySearched -= carryFront;
    carryFront = 0;
  };

  const hold = (chunk: Uint8Array, at: number) => {
    // (The lines before the cut one are whole and not blank: their plain ones are written now.)
    let p = at;
    while (p < cut.line) {
      const e = lineEnd(p); // (the chunk's search, as takeEvents left it)
      if (!plain(chunk, p, e - p)) break;
      p = chunk[e] === CR && chunk[e + 1] === LF ? e + 2 : e + 1;
    }
    if (p > at) emit(chunk.subarray(at, p));
    carryFront = p === cut.line ? 0 : -1;
    if (p === chunk.length) return; // (nothing of the event yet: the next chunk starts it)
    carry.add(chunk.subarray(p));
    carryLine = cut.line - p;
    carrySearched = cut.searched - p;
  };

  /** Where the held event ends (past its blank line), or -1: not yet. Searches each byte once. */
  const heldEnd = (): number => {
    const b = carry.bytes;
    const find = byteFinder(b);
    let lf = -2; // the next LF and CR at or after the search's start (-1: none)
    let cr = -2;
    for (;;) {
      const from = carrySearched;
      if (lf !== -1 && lf < from) lf = find(LF, from);
      if (cr !== -1 && cr < from) cr = find(CR, from);
      const e = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (e < 0) {
        carrySearched = b.length;
        return -1;
      }
      carrySearched = e;
      let next = e + 1;
      if (b[e] === CR) {
        if (next === b.length) return -1; // (CR or CRLF: the next byte tells)
        if (b[next] === LF) next++;
      }
      const blank = e === carryLine;
      if (!blank && carryFront === carryLine) carryFront = plain(b, carryLine, e - carryLine) ? next : -1;
      carryLine = carrySearched = next;
      if (blank) return next;
    }
  };

  /**
   * The held bytes, read as a chunk of their own: the event is whole (`ended`: a CR last is its
   * blank line's, no LF after it), or will not be taken.
   */
  const release = (ended: boolean) => feedLines(carry.take(), false, ended);

  /** Adds the chunk's start to the held event: what is left of the chunk once it ends, or null. */
  const addToHeld = (chunk: Uint8Array): Uint8Array | null => {
    const take = Math.min(chunk.length, carry.capacity - carry.length);
    carry.add(chunk.subarray(0, take));
    const end = heldEnd();
    if (end < 0 && carry.length < carry.capacity) {
      writeFront();
      return null; // (all of the chunk taken, the event still open)
    }
    const back = end < 0 ? 0 : carry.length - end; // (the next event's start goes back)
    carry.giveBack(back);
    release(end >= 0);
    return chunk.subarray(take - back);
  };

  /**
   * Reads the lines of a chunk. `mayHold`: an event it ends inside may be held; `crEnds`: a CR
   * last in it is known to be no CRLF's (a held event that ended there).
   */
  const feedLines = (chunk: Uint8Array, mayHold: boolean, crEnds = false) => {
    if (chunk.length === 0) return; // (a CR at the end of the last chunk is still pending)
    let at = 0;
    if (pendingCR) {
      pendingCR = false;
      if (chunk[0] === LF) {
        endLine(ENDINGS.crlf);
        at = 1;
      } else endLine(ENDINGS.cr);
    }
    search = byteFinder(chunk);
    lfAt = -2;
    crAt = -2;
    while (at < chunk.length) {
      if (fresh && pipe.framedReady()) {
        at = takeEvents(chunk, at, crEnds);
        if (at === chunk.length) return;
        if (mayHold && at === cut.start && chunk.length - at <= carry.capacity) return hold(chunk, at);
      }
      let i = lineEnd(at);
      if (i < 0) i = chunk.length;
      content(chunk.subarray(at, i));
      if (i === chunk.length) return;
      if (chunk[i] === LF) endLine(ENDINGS.lf);
      else if (i + 1 === chunk.length) {
        pendingCR = true; // CR or CRLF: the next chunk tells
        return;
      } else if (chunk[i + 1] === LF) {
        endLine(ENDINGS.crlf);
        i++;
      } else endLine(ENDINGS.cr);
      at = i + 1;
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
          const before = Uint8Array.from(bom);
          bom = null;
          feedLines(before, false);
        }
        chunk = chunk.subarray(i);
      }
      if (carry.length > 0) {
        const rest = addToHeld(chunk);
        if (rest) feedLines(rest, true);
      } else feedLines(chunk, true);
      search = noSearch; // (the chunk is its owner's again)
    },
    close() {
      if (bom?.length) feedLines(Uint8Array.from(bom), false);
      bom = null;
      // (Cut by the stream's end: read as it came; a CR last is no CRLF's, so an event its blank
      // line ends is whole and may still be taken.)
      if (carry.length > 0) release(true);
      if (pendingCR) {
        pendingCR = false;
        endLine(ENDINGS.cr);
      }
      if (!lineEmpty) {
        if (kind === 'head') classify(true);
        endLine(new Uint8Array(0));
      }
      // An event the stream ends inside is never dispatched by a receiver; it still comes out
      // as a complete one would (and its data is checked).
      flushEvent();
      resetEvent();
    },
    output: route,
  };
}
