// Whole SSE events through the core's batch entry: at an event's start with nothing held, the
// events whole in the chunk whose data is one `data:` line of a message event (the common case)
// are transformed many per core call and written as the per-line way (sse-event.ts) writes them;
// the first event it cannot take goes the per-line way, which reports and checks it as always.
// And an event cut by the chunk's end is held until its blank line arrives (HeldEvent).
import { Carry } from './carry.js';
import { byteFinder } from './find-byte.js';
import { FramedWriter } from './framed-writer.js';
import type { MessagePipe } from './pipe.js';
import { BatchEventReader } from './sse-batch-event.js';
import { CR, endingLength, isDataLine, isEventLine, LF, type LineEnds } from './sse-lines.js';

const NO_BYTES = new Uint8Array(0);
const NO_ENDS: readonly number[] = [];

/** Whether line [p, p + n) of b is neither a data nor an `event:` line (a comment, `id:`, `retry:`). */
const plain = (b: Uint8Array, p: number, n: number): boolean => !isDataLine(b, p, n) && !isEventLine(b, p, n);

export class EventBatch {
  // Events gathered for the core's batch entry (chunk offsets): per event, its start, its data
  // value's span (-1: no data line) and its end (past its blank line); per body, start and length.
  // (Plain arrays: a typed array costs microseconds to make, once per HTTP response's stream.)
  private readonly events: number[] = [];
  private readonly bodies: number[] = [];
  private readonly out = new FramedWriter();
  private readonly reader: BatchEventReader;
  private readonly max: number;

  constructor(
    private readonly pipe: MessagePipe,
    private readonly ends: LineEnds,
    private readonly emit: (b: Uint8Array) => void,
  ) {
    this.reader = new BatchEventReader(ends);
    this.max = pipe.maxMessageBytes;
  }

  /**
   * At an event's start, nothing held: the events from `at` whole in `chunk` whose data is one
   * `data:` line of a message event, within the limits, have their data transformed in the core,
   * up to `framedBytes` of it per call (longer data, shorter than `largeMessage`, in a call of
   * its own); events without data pass. Returns where it stopped, at an event start: that event
   * (refused by the core, cut by the chunk's end, of another type, with several data lines or
   * many lines) goes the per-line way. `crEnds`: a CR last in the chunk is no CRLF's.
   */
  take(chunk: Uint8Array, at: number, crEnds: boolean): number {
    const { pipe, events, bodies, reader, max } = this;
    const { framedBodies, framedBytes } = pipe;
    reader.cut.start = -1;
    batches: for (;;) {
      let n = 0; // events
      let m = 0; // bodies
      let from = -1;
      let p = at;
      let full = false;
      while (n < framedBodies) {
        const start = p;
        p = reader.read(chunk, p, crEnds, max);
        if (p < 0) break;
        const { valueStart, valueEnd } = reader;
        if (valueStart >= 0) {
          if (from < 0) from = valueStart;
          if (valueEnd - from > framedBytes) {
            const large = pipe.takesLarge(valueEnd - valueStart);
            if (n === 0 && large) {
              // Too long for a batch: on its own, then the events after it batched again.
              if (!this.large(chunk, start, p, valueStart, valueEnd)) return at;
              at = p;
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
      const stop = this.write(chunk, at, from, n, m);
      if (stop >= 0) return stop;
      at = events[4 * n - 1]!;
      if (!full && n < framedBodies) return at;
    }
  }

  /** The event chunk[start, end) with data [valueStart, valueEnd), on its own: false if `large` refused it. */
  private large(chunk: Uint8Array, start: number, end: number, valueStart: number, valueEnd: number): boolean {
    const { emit } = this;
    return this.pipe.large(chunk, valueStart, valueEnd - valueStart, (output) => {
      emit(chunk.subarray(start, valueStart));
      emit(output);
      emit(chunk.subarray(valueEnd, end));
    });
  }

  /** The n events gathered (m with data) through the core and written: -1, or the start of the first the core refused. */
  private write(chunk: Uint8Array, at: number, from: number, n: number, m: number): number {
    const { bodies } = this;
    if (m === 0) return this.writeTaken(chunk, at, n, NO_BYTES, NO_ENDS, 0);
    let stop = -1;
    this.pipe.framed(chunk, from, bodies[2 * m - 2]! + bodies[2 * m - 1]!, bodies, m, (output, ends, taken) => {
      stop = this.writeTaken(chunk, at, n, output, ends, taken);
    });
    return stop;
  }

  /** Writes the n events gathered from `at`, the first `taken` data values as the core's `output` (`ends`: FramedSink): as `write`. */
  private writeTaken(chunk: Uint8Array, at: number, n: number, output: Uint8Array, ends: readonly number[], taken: number): number {
    const { events, out } = this;
    // (The outputs are copied before anything is written.)
    out.load(output, events[4 * n - 1]! - at);
    let written = at; // (what is before it is out: events follow each other)
    let made = 0;
    let k = 0;
    let e = 0;
    for (; e < n; e++) {
      const valueStart = events[4 * e + 1]!;
      if (valueStart < 0) continue;
      if (k === taken) break;
      const end = ends[k++]!;
      out.bytes(chunk, written, valueStart);
      out.output(made, end);
      made = end;
      written = events[4 * e + 2]!;
    }
    const end = e === n ? events[4 * n - 1]! : events[4 * e]!;
    out.bytes(chunk, written, end);
    out.flush(this.emit);
    return e < n ? end : -1;
  }

  /** Holds what `take` left of the chunk from `at` in `held` if the event there was cut by its end: whether it did. */
  hold(chunk: Uint8Array, at: number, held: HeldEvent): boolean {
    const { cut } = this.reader;
    if (at !== cut.start || chunk.length - at > held.capacity) return false;
    // (The lines before the cut one are whole and not blank: their plain ones are written now.)
    const { line, searched } = cut;
    let p = at;
    while (p < line) {
      const e = this.ends.next(p); // (the chunk's search, as `take` left it)
      if (!plain(chunk, p, e - p)) break;
      p = e + endingLength(chunk, e);
    }
    if (p > at) this.emit(chunk.subarray(at, p));
    held.hold(chunk, p, line, searched);
    return true;
  }
}

/**
 * An event cut by the chunk's end where the batch stopped (an event start, nothing held), held
 * (copied: the chunk's owner may reuse it) until its blank line arrives, then read as a chunk of
 * its own, so how a stream is cut does not decide which path a message takes. One that outgrows
 * the carry is read as it came, the per-line way. Within maxMessageBytes and 1 KiB of other
 * lines (as a Content-Length frame is held), and shorter than `largeMessage` and 1 KiB.
 */
export class HeldEvent {
  private readonly carry: Carry;
  private line = 0; // where the held event's unfinished line starts
  private searched = 0; // no line ending in [line, searched)
  // Its first lines that are neither data nor `event:` lines (comments, `id:`, `retry:`: a
  // keep-alive) change nothing the batch decides, and the per-line way writes them as they
  // arrive: they are written as they end, not held (`front`: where those lines end; -1: a
  // data or event line came).
  private front = 0;
  /** What `add` gave back ended the event (a CR last is its blank line's): else it will not be taken. */
  ended = false;

  constructor(
    private readonly emit: (b: Uint8Array) => void,
    maxMessageBytes: number,
    largeMessage: number,
  ) {
    this.carry = new Carry(Math.min(largeMessage + 1024, maxMessageBytes + 1024));
  }

  get length(): number {
    return this.carry.length;
  }

  get capacity(): number {
    return this.carry.capacity;
  }

  /** Holds chunk[p, end): its unfinished line starts at `line`, searched up to `searched`. */
  hold(chunk: Uint8Array, p: number, line: number, searched: number): void {
    this.front = p === line ? 0 : -1;
    if (p === chunk.length) return; // (nothing of the event yet: the next chunk starts it)
    this.carry.add(chunk.subarray(p));
    this.line = line - p;
    this.searched = searched - p;
  }

  /**
   * Adds the chunk's start to the held event: the rest of the chunk once it ends or outgrows the
   * carry (`take` gives the event, `ended` says which), or null while it is still open.
   */
  add(chunk: Uint8Array): Uint8Array | null {
    const { carry } = this;
    const take = Math.min(chunk.length, carry.capacity - carry.length);
    carry.add(chunk.subarray(0, take));
    const end = this.end();
    if (end < 0 && carry.length < carry.capacity) {
      this.writeFront();
      return null; // (all of the chunk taken, the event still open)
    }
    const back = end < 0 ? 0 : carry.length - end; // (the next event's start goes back)
    carry.giveBack(back);
    this.ended = end >= 0;
    return chunk.subarray(take - back);
  }

  /** The bytes held, let go of (a view, valid while nothing is held again). */
  take(): Uint8Array {
    return this.carry.take();
  }

  /** Writes the held event's plain first lines, and moves the rest to the carry's start. */
  private writeFront(): void {
    const { front } = this;
    if (front <= 0) return;
    this.emit(this.carry.bytes.subarray(0, front)); // (copied)
    this.carry.shift(front);
    this.line -= front;
    this.searched -= front;
    this.front = 0;
  }

  /** Where the held event ends (past its blank line), or -1: not yet. Searches each byte once. */
  private end(): number {
    const b = this.carry.bytes;
    const find = byteFinder(b);
    let lf = -2; // the next LF and CR at or after the search's start (-1: none)
    let cr = -2;
    for (;;) {
      const from = this.searched;
      if (lf !== -1 && lf < from) lf = find(LF, from);
      if (cr !== -1 && cr < from) cr = find(CR, from);
      const e = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (e < 0) {
        this.searched = b.length;
        return -1;
      }
      this.searched = e;
      let next = e + 1;
      if (b[e] === CR) {
        if (next === b.length) return -1; // (CR or CRLF: the next byte tells)
        if (b[next] === LF) next++;
      }
      const { line } = this;
      const blank = e === line;
      if (!blank && this.front === line) this.front = plain(b, line, e - line) ? next : -1;
      this.line = this.searched = next;
      if (blank) return next;
    }
  }
}
