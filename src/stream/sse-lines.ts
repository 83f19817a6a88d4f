// The SSE wire format, line by line, as the WHATWG EventSource algorithm (and eventsource-parser,
// which the MCP SDK uses) reads it: lines end at LF, CR or CRLF; a field name runs to the first
// ':' (or is the whole line), case-sensitive, and one space after the colon is not part of the
// value; a blank line ends the event. Only two fields matter here: `data` (the message) and
// `event` (its type: a message when its value is "" or "message"). Pure: bytes in, what they
// are out; the framer (sse.ts) decides what to do with them.
import { indexOfByte } from './find-byte.js';

export const LF = 0x0a;
export const CR = 0x0d;
const MESSAGE = [0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65]; // 'message'
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a]; // 'data:'
const EVENT = [0x65, 0x76, 0x65, 0x6e, 0x74, 0x3a]; // 'event:'
/** The line endings, as written back. */
export const ENDINGS = { lf: new Uint8Array([LF]), cr: new Uint8Array([CR]), crlf: new Uint8Array([CR, LF]), none: new Uint8Array(0) };

export type Field = 'data' | 'event' | 'other';

/** Whether the line of n bytes at b[p] is a `data` line (`data`, or `data:` and a value). */
export const isDataLine = (b: Uint8Array, p: number, n: number) =>
  b[p] === 0x64 && b[p + 1] === 0x61 && b[p + 2] === 0x74 && b[p + 3] === 0x61 && (n === 4 || b[p + 4] === 0x3a);
/** Whether it is an `event` line. */
export const isEventLine = (b: Uint8Array, p: number, n: number) =>
  b[p] === 0x65 && b[p + 1] === 0x76 && b[p + 2] === 0x65 && b[p + 3] === 0x6e && b[p + 4] === 0x74 && (n === 5 || b[p + 5] === 0x3a);
/** Where a data line's value starts in it (past `data:` and one space; 4 for a bare `data`). */
export const dataValueAt = (b: Uint8Array, p: number, n: number) => (n > 5 && b[p + 5] === 0x20 ? 6 : Math.min(5, n));
/** Where an event line's value starts in it. */
export const eventValueAt = (b: Uint8Array, p: number, n: number) => Math.min(n > 6 && b[p + 6] === 0x20 ? 7 : 6, n);
/** Whether an event line's value, b[at, at + n), names a message event ("" or "message"). */
export function namesMessage(b: ArrayLike<number>, at: number, n: number): boolean {
  if (n === 0) return true;
  if (n !== MESSAGE.length) return false;
  for (let k = 0; k < n; k++) if (b[at + k] !== MESSAGE[k]) return false;
  return true;
}
/** The length of the line ending at b[e] (an LF or a CR): 2 for CRLF. */
export const endingLength = (b: Uint8Array, e: number) => (b[e] === CR && b[e + 1] === LF ? 2 : 1);

const NO_CHUNK = new Uint8Array(0);

/**
 * Where lines end in one chunk: the next LF and the next CR at or after a position, each found
 * natively and kept while it answers (a search from p answers for any position from p to what
 * it found: the batch reads its last event again from its start).
 */
export class LineEnds {
  // The chunk searched (indexOfByte), held as a field, not a search closure made per chunk (a
  // stream per HTTP response pushes once).
  private chunk: Uint8Array = NO_CHUNK;
  private lfFrom = 0;
  private lfAt = -2;
  private crFrom = 0;
  private crAt = -2;

  /** Searches `chunk` from now on (null: none, the chunk is its owner's again). */
  reset(chunk: Uint8Array | null): void {
    this.chunk = chunk ?? NO_CHUNK;
    this.lfAt = -2;
    this.crAt = -2;
  }

  private find(byte: number, from: number): number {
    return indexOfByte(this.chunk, byte, from);
  }

  /** Where the line from p ends (its LF or CR), or -1: none in the chunk. */
  next(p: number): number {
    let { lfAt, crAt } = this;
    if (lfAt === -2 || p < this.lfFrom || (lfAt >= 0 && lfAt < p)) {
      this.lfAt = lfAt = this.find(LF, p);
      this.lfFrom = p;
    }
    if (crAt === -2 || p < this.crFrom || (crAt >= 0 && crAt < p)) {
      this.crAt = crAt = this.find(CR, p);
      this.crFrom = p;
    }
    return lfAt < 0 ? crAt : crAt < 0 ? lfAt : Math.min(lfAt, crAt);
  }
}

/** What a LineReader tells, line by line. */
export interface LineSink {
  /**
   * A line's field is known (its value starts `valueAt` bytes in, for data lines), with its
   * first bytes (views, valid only for the call; at least one byte).
   */
  field(field: Field, valueAt: number, first: Uint8Array): void;
  /** More bytes of the line, in order. */
  bytes(b: Uint8Array): void;
  /** An `event` line ended: whether its value names a message. Before its `end`. */
  type(isMessage: boolean): void;
  /** The line ended with `ending` (none: the stream ended inside it). */
  end(ending: Uint8Array): void;
  /** A blank line ended (`ending`): the event ends. */
  blank(ending: Uint8Array): void;
}

/**
 * Reads SSE lines as they come, however chunks cut them: each line's field is told as soon as
 * its first bytes decide it, then its bytes, then its ending. One per stream.
 */
export class LineReader {
  /** No line of the event has begun (a blank line ended the last one): the batch may take it from here. */
  fresh = true;
  /** A CR ended the last chunk: CR or CRLF, the next byte tells. */
  private pendingCR = false;
  readonly ends = new LineEnds();
  // The line being read.
  private known = false; // its field is known
  private empty = true;
  private head: number[] = []; // its first bytes, until the field is known
  private isEvent = false;
  private length = 0; // its bytes once the field is known
  private eventHead: Uint8Array | null = null; // an event line's first bytes (enough to tell "message"; made at the first)
  private eventHeadLength = 0;

  /** Starts reading `chunk` (its lines are searched from now on): where its lines begin. */
  begin(chunk: Uint8Array, sink: LineSink): number {
    this.ends.reset(chunk);
    if (!this.pendingCR) return 0;
    this.pendingCR = false;
    if (chunk[0] === LF) {
      this.endLine(ENDINGS.crlf, sink);
      return 1;
    }
    this.endLine(ENDINGS.cr, sink);
    return 0;
  }

  /** Reads the line from chunk[at] to its end or the chunk's: where reading goes on. */
  line(chunk: Uint8Array, at: number, sink: LineSink): number {
    let i = this.ends.next(at);
    if (i < 0) i = chunk.length;
    if (i > at) this.content(chunk.subarray(at, i), sink);
    if (i === chunk.length) return i;
    if (chunk[i] === LF) this.endLine(ENDINGS.lf, sink);
    else if (i + 1 === chunk.length) {
      this.pendingCR = true; // CR or CRLF: the next chunk tells
      return chunk.length;
    } else if (chunk[i + 1] === LF) {
      this.endLine(ENDINGS.crlf, sink);
      i++;
    } else this.endLine(ENDINGS.cr, sink);
    return i + 1;
  }

  /** The stream ended: a CR last ended its line, and a line without an ending ends. */
  finish(sink: LineSink): void {
    if (this.pendingCR) {
      this.pendingCR = false;
      this.endLine(ENDINGS.cr, sink);
    }
    if (!this.empty) this.endLine(ENDINGS.none, sink);
    this.fresh = true;
  }

  private content(b: Uint8Array, sink: LineSink): void {
    this.empty = false;
    this.fresh = false;
    if (!this.known && this.head.length === 0) {
      // (The usual case: the field name is all in this chunk, or its first byte tells.)
      if (b[0] !== 0x64 && b[0] !== 0x65) {
        this.begin_('other', 0, b, sink);
        return;
      }
      if (b.length > 6) {
        if (isDataLine(b, 0, 6)) {
          this.begin_('data', dataValueAt(b, 0, b.length), b, sink);
          return;
        }
        this.begin_(isEventLine(b, 0, 6) ? 'event' : 'other', 0, b, sink);
        return;
      }
    }
    let i = 0;
    while (!this.known && i < b.length) {
      this.head.push(b[i++]!);
      this.classify(false, sink);
    }
    this.more(i === 0 ? b : b.subarray(i), sink);
  }

  /** Decides the field once enough of the line (or its end) is seen. */
  private classify(ended: boolean, sink: LineSink): void {
    const { head } = this;
    const data = startsWith(head, DATA);
    if (!ended && (isPrefixOf(head, DATA) || isPrefixOf(head, EVENT) || (data && head.length === DATA.length))) return; // (a space next?)
    let field: Field = 'other';
    let valueAt = 0;
    if (data || (ended && head.length === 4 && isPrefixOf(head, DATA))) {
      field = 'data';
      valueAt = head[5] === 0x20 ? 6 : Math.min(5, head.length);
    } else if (startsWith(head, EVENT) || (ended && head.length === 5 && isPrefixOf(head, EVENT))) field = 'event';
    const bytes = Uint8Array.from(head);
    this.head = [];
    this.begin_(field, valueAt, bytes, sink);
  }

  private begin_(field: Field, valueAt: number, first: Uint8Array, sink: LineSink): void {
    this.known = true;
    this.isEvent = field === 'event';
    this.length = 0;
    this.count(first);
    sink.field(field, valueAt, first);
  }

  private more(b: Uint8Array, sink: LineSink): void {
    if (b.length === 0) return;
    this.count(b);
    sink.bytes(b);
  }

  /** Counts the line's bytes (an event line's first ones are kept: its type is read from them). */
  private count(b: Uint8Array): void {
    if (this.isEvent) {
      this.eventHead ??= new Uint8Array(16);
      for (let i = 0; i < b.length && this.eventHeadLength < 16; i++) this.eventHead[this.eventHeadLength++] = b[i]!;
    }
    this.length += b.length;
  }

  private endLine(ending: Uint8Array, sink: LineSink): void {
    if (this.empty) {
      this.fresh = true;
      sink.blank(ending);
      return;
    }
    if (!this.known) this.classify(true, sink);
    if (this.isEvent) {
      this.eventHead ??= new Uint8Array(16);
      const { eventHead, length } = this;
      const v = eventValueAt(eventHead, 0, length);
      sink.type(namesMessage(eventHead, v, length - v));
    }
    sink.end(ending);
    if (this.head.length) this.head = [];
    this.known = false;
    this.isEvent = false;
    this.empty = true;
    this.length = 0;
    this.eventHeadLength = 0;
  }
}

const startsWith = (head: number[], prefix: number[]) => prefix.every((b, i) => head[i] === b);
const isPrefixOf = (head: number[], word: number[]) => head.length < word.length && head.every((b, i) => word[i] === b);
