// The lines of an SSE event from its first data line to its end, held while its type or its
// message's output is not known: every byte of them but the data values (`held`), the data
// values joined by '\n' as the spec builds the message (`joined`), and an index of the lines.
// Once the pipe transforms the message, its output is routed back into the lines: the output's
// n-th '\n' is the n-th join, so each data line gets its part of the output between its field
// name and its line ending, and the other lines go out between them as they were.

import { byteFinder } from './find-byte.js';
import { HeldBytes } from './held-bytes.js';
import type { EndResult } from './pipe.js';
import { LF } from './sse-lines.js';
import type { SseOutput } from './sse-output.js';

const STRIDE = 6;
/**
 * A held line's entry in the line index costs 48 bytes: past the first FREE_LINES of an event
 * (48 KiB, so that a small limit still lets a message of that size through in many lines) it
 * is charged to the event's other lines, so that lines of one byte cannot hold 48 times what
 * they count.
 */
export const LINE_COST = STRIDE * Float64Array.BYTES_PER_ELEMENT;
const FREE_LINES = 1024;
/** Lines of a streamed event written out before their index entries and bytes are let go of. */
const COMPACT_LINES = 1024;
const NEWLINE = new Uint8Array([LF]);
const COLON = new Uint8Array([0x3a]);

export class HeldLines {
  readonly held = new HeldBytes(4, true); // the lines but for data values (first chunk lent: buffer-pool.ts)
  readonly joined = new HeldBytes(4, true); // the data values joined by '\n': the message, as the spec builds it
  // Per line (STRIDE numbers): start, end of the field name and ':' (-1: not a data line), start
  // and end of its line ending in `held`; the span of its value in `joined`.
  private lines: number[] = []; // (written in order: it grows as a plain array does)
  private length = 0;
  /** What `held` and the index hold, as counted against the bound. */
  other = 0;
  /** A data line is held (the next one is joined with '\n'). */
  hasData = false;
  // Routing the pipe's output: `cur` is the data line being written, `prefixOut` whether its
  // field name is out.
  routing = false;
  private cur = 0;
  private prefixOut = false;

  constructor(private readonly out: SseOutput) {}

  /** Whether the next line's index entry counts against the bound. */
  get pastFree(): boolean {
    return this.length >= FREE_LINES * STRIDE;
  }

  get empty(): boolean {
    return this.length === 0;
  }

  /** A new line (a data line's value `valueAt` bytes in; -1: another field). */
  add(valueAt: number): void {
    const { lines, held } = this;
    const at = this.length;
    const value = this.joined.length;
    lines[at] = held.length;
    lines[at + 1] = valueAt < 0 ? -1 : held.length + valueAt;
    lines[at + 2] = -1;
    lines[at + 3] = -1;
    lines[at + 4] = value;
    lines[at + 5] = value;
    this.length += STRIDE;
  }

  /** The join before a data line's value, in `joined`. */
  join(): void {
    this.joined.push(NEWLINE);
  }

  /** Bytes of the last line but for its data value. */
  bytes(b: Uint8Array): void {
    this.held.push(b);
  }

  /** Bytes of the last line's data value. */
  value(b: Uint8Array): void {
    this.joined.push(b);
    this.lines[this.length - 1] = this.joined.length;
  }

  /** The last line's ending. */
  ending(ending: Uint8Array): void {
    this.lines[this.length - 4] = this.held.length;
    this.held.push(ending);
    this.lines[this.length - 3] = this.held.length;
  }

  /** Empties it (`other` stays: the event's bound goes on). */
  clear(): void {
    this.held.reset();
    this.joined.reset();
    this.length = 0;
    if (this.lines.length > STRIDE * 65536) this.lines = []; // (a huge event's go)
    this.hasData = false;
  }

  /** The event passes as it came (not a message event). */
  writeAsCame(): void {
    const { lines, length } = this;
    for (let i = 0; i < length; i += STRIDE) {
      if (lines[i + 1]! < 0) this.part(i, 0, 3);
      else {
        this.part(i, 0, 1);
        this.joined.forEach(lines[i + 4]!, lines[i + 5]!, this.out.emit);
        this.part(i, 2, 3);
      }
    }
  }

  /** Routing starts at the first line. */
  startRouting(): void {
    this.routing = true;
    this.cur = 0;
    this.prefixOut = false;
  }

  /** The pipe's output: each '\n' in it ends a data line (`streaming`: the event streams). */
  route(bytes: Uint8Array, streaming: boolean): void {
    if (!this.routing) throw new Error('SSE: pipe output outside an event'); // (cannot happen)
    const find = byteFinder(bytes);
    let start = 0;
    for (;;) {
      const nl = find(LF, start);
      const end = nl < 0 ? bytes.length : nl;
      if (end > start) {
        this.prefix(true);
        this.out.emit(bytes.subarray(start, end));
      }
      if (nl < 0) return;
      this.prefix();
      this.nextLine(streaming);
      start = nl + 1;
    }
  }

  /** The message ended with `result`: what waits goes out. */
  endRouting(result: EndResult, streaming: boolean): void {
    // 'message' or 'blank': the last data line ends, then what follows it. Otherwise (dropped
    // or invalid) the data lines not written go, and a data line already begun is ended, so the
    // event's partial data (which the pipe made sure does not parse) makes an invalid event.
    if (result === 'message' || result === 'blank') {
      this.prefix();
      this.nextLine(streaming);
      return;
    }
    const { lines, length, out } = this;
    if (this.prefixOut) this.part(this.cur, 2, 3);
    else out.dropped = true;
    this.prefixOut = false;
    for (let i = this.cur + STRIDE; i < length; i += STRIDE) {
      if (lines[i + 1]! < 0) this.part(i, 0, 3);
      else out.dropped = true;
    }
  }

  /**
   * The event's message was refused: its data lines go (a streamed one begun in the output is
   * ended), the other lines go out (the one being read up to here), and it empties. Returns
   * whether the line being read was begun in the output (its ending goes out).
   */
  abandon(streaming: boolean): boolean {
    const { lines, held, out } = this;
    let endBegun = false;
    let i = 0;
    if (streaming) {
      i = this.cur; // (the lines before it are out)
      if (this.prefixOut) {
        if (lines[i + 3]! >= 0) this.part(i, 2, 3);
        else endBegun = true; // (the line being read)
        this.prefixOut = false;
        i += STRIDE;
      }
    }
    for (; i < this.length; i += STRIDE) {
      if (lines[i + 1]! < 0) held.forEach(lines[i]!, lines[i + 3]! >= 0 ? lines[i + 3]! : held.length, out.emit);
      else out.dropped = true; // (after what it wrote: its data lines are gone from between those and what follows)
    }
    this.clear();
    return endBegun;
  }

  /** Writes the held bytes of line `i` between two of its offsets (0 start, 2 and 3 its line ending). */
  private part(i: number, from: number, to: number): void {
    this.held.forEach(this.lines[i + from]!, this.lines[i + to]!, this.out.emit);
  }

  /**
   * Writes data line `cur`'s field name (and `:`, a space) before its output. `value`: bytes of
   * it follow, which a bare `data` line (no colon: an empty value) can only hold with a colon
   * added, or they would join its field name (`data,` is no data line: the spoiled data of a
   * refused event would parse).
   */
  private prefix(value = false): void {
    if (this.prefixOut) return;
    const { cur, lines } = this;
    this.part(cur, 0, 1);
    if (value && lines[cur + 1]! - lines[cur]! === 4) this.out.emit(COLON);
    this.prefixOut = true;
  }

  /** Ends data line `cur` and writes the non-data lines after it, up to the next data line. */
  private nextLine(streaming: boolean): void {
    const { lines, length } = this;
    if (this.prefixOut) this.part(this.cur, 2, 3);
    this.prefixOut = false;
    let cur = this.cur + STRIDE;
    for (; cur < length && lines[cur + 1]! < 0; cur += STRIDE) this.part(cur, 0, 3);
    this.cur = cur;
    if (streaming && cur >= COMPACT_LINES * STRIDE && 2 * cur >= length && cur < length) this.compact();
  }

  /**
   * A streamed event: the lines before `cur` are written; their index entries and bytes go,
   * and what the event holds is counted again (only what waits counts against the bound).
   */
  private compact(): void {
    const { lines, cur } = this;
    const heldFrom = lines[cur]!; // (where in `held` the lines not yet written begin)
    this.held.dropBefore(heldFrom);
    lines.copyWithin(0, cur, this.length);
    this.length -= cur;
    this.cur = 0;
    this.other = this.held.length - heldFrom + Math.max(0, this.length / STRIDE - FREE_LINES) * LINE_COST;
  }
}
