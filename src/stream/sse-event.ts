// The SSE event being read, the per-line way (sse.ts has the whole story). An event is a
// `message` unless its LAST `event` field names something else, and that field may come after
// the data. So from an event's first data line to its end its lines are held (HeldLines: data
// within maxMessageBytes, the rest too), then either its data is transformed or the event passes
// as it came. An event whose `event:` line said "message" (or "") before its first data line (as
// the MCP SDK writes them) is not held: its data streams through the pipe as it comes (in
// DATA_BLOCK blocks), each other line waiting only until the output has passed it, and only its
// final type is checked at its end (one that is no longer a message is refused: its data went
// out encoded). Lines outside that span stream out as they arrive.

import { lendBuffer, returnBuffer } from './buffer-pool.js';
import type { EndResult, MessagePipe } from './pipe.js';
import { HeldLines, LINE_COST } from './sse-held-lines.js';
import type { Field, LineSink } from './sse-lines.js';
import type { SseOutput } from './sse-output.js';

const NO_BYTES = new Uint8Array(0);
const NEWLINE = new Uint8Array([0x0a]);
const TYPE_CHANGED = 'an SSE event whose data streamed as a message event ends as another type (an `event:` line after its data)';
/**
 * A streamed event's data goes to the pipe in blocks of this many bytes (and the rest at its
 * end), not as pushes bring it: where the pipe is fed decides how much of an invalid message is
 * written before its error (a payload string's output so far goes out at each feed's end), so
 * feeding it as it came made that depend on how the stream was cut, and a held event read whole
 * (the batch's carry) wrote other bytes than the same event streamed. A held event's data is fed
 * in the same blocks (HeldBytes' chunks).
 */
const DATA_BLOCK = 64 * 1024;

/** A streamed event's data not yet fed: up to DATA_BLOCK bytes (lent by the pool while it holds any, grown by doubling). */
class DataBlock {
  private block: Uint8Array = NO_BYTES;
  private length = 0;

  /** `feed` feeds the pipe: false once the event is abandoned (its data stops there). */
  constructor(private readonly feed: (b: Uint8Array) => boolean) {}

  /** A streamed event's data bytes, fed in blocks of DATA_BLOCK bytes of its data, wherever the pushes cut it. */
  add(b: Uint8Array): void {
    let at = 0;
    while (at < b.length) {
      if (this.length === 0 && b.length - at >= DATA_BLOCK) {
        at += DATA_BLOCK;
        if (!this.feed(b.subarray(at - DATA_BLOCK, at))) return; // (a whole block: not copied)
        continue;
      }
      const n = Math.min(DATA_BLOCK - this.length, b.length - at);
      if (this.length + n > this.block.length) {
        let size = Math.max(1024, this.block.length);
        while (size < this.length + n) size *= 2;
        const grown = lendBuffer(Math.min(size, DATA_BLOCK));
        grown.set(this.block.subarray(0, this.length));
        this.give();
        this.block = grown;
      }
      this.block.set(n === b.length ? b : b.subarray(at, at + n), this.length);
      this.length += n;
      at += n;
      if (this.length === DATA_BLOCK && !this.flush()) return;
    }
  }

  /** Feeds what waits (a block, or less at the event's end): false if the event was abandoned. */
  flush(): boolean {
    if (this.length === 0) return true;
    const b = this.block.subarray(0, this.length);
    this.length = 0;
    try {
      return this.feed(b);
    } finally {
      this.give(); // (fed: copied into the core)
    }
  }

  clear(): void {
    this.length = 0;
    this.give();
  }

  private give(): void {
    if (this.block !== NO_BYTES) returnBuffer(this.block);
    this.block = NO_BYTES;
  }
}

export class SseEvent implements LineSink {
  private readonly max: number;
  private readonly lines: HeldLines;
  private readonly block: DataBlock;
  private isMessage = true;
  private typed = false; // an `event:` line was seen (before the first data line, it decides `streaming`)
  private holding = false; // a data line was seen: the rest of the event is held
  // Its type was a message at its first data line: its data goes to the pipe as it comes (in
  // blocks), and its other lines are held only until the output passes them.
  private streaming = false;
  private skipping = false; // the event was refused (too large, or its streamed message): its data lines are dropped
  private endBegun = false; // the data line being read was begun in the output before it was refused: its ending goes out
  // The line being read.
  private kind: Field = 'other';
  private valueAt = 0;
  private held = false; // its bytes are held (else they are written as they come)
  private length = 0;

  constructor(
    private readonly pipe: MessagePipe,
    private readonly out: SseOutput,
  ) {
    this.max = pipe.maxMessageBytes;
    this.lines = new HeldLines(out);
    this.block = new DataBlock((b) => {
      pipe.feed(b);
      if (pipe.invalid && !this.skipping) this.abandon(); // (onInvalidMessage took it: its data stops here)
      return !this.skipping;
    });
  }

  // (Made when refused, not per stream.)
  private get tooManyOther(): string {
    return `SSE lines held within an event larger than maxMessageBytes (${this.max})`;
  }

  private get tooLarge(): string {
    return `message larger than maxMessageBytes (${this.max})`;
  }

  field(kind: Field, valueAt: number, first: Uint8Array): void {
    const { lines } = this;
    this.kind = kind;
    this.valueAt = valueAt;
    if (kind === 'data' && !this.holding) {
      this.holding = true;
      if (this.typed && this.isMessage) this.startStreaming();
    }
    this.held = this.holding && !this.skipping;
    if (this.held && lines.pastFree) {
      lines.other += LINE_COST;
      if (lines.other > this.max) this.refuse(this.tooManyOther, 0); // (ends `held`)
    }
    if (this.held) {
      const join = kind === 'data' && lines.hasData;
      if (join && !this.streaming) {
        if (lines.joined.length + 1 > this.max) {
          // (Refused before its first bytes, which are not read; the line is dropped all the
          // same, so a CR ending the line written before gets its own: sse-output.ts.)
          this.refuse(this.tooLarge, this.max);
          this.out.dropped = true;
          return;
        }
        lines.join();
      }
      if (kind === 'data') lines.hasData = true;
      lines.add(kind === 'data' ? valueAt : -1);
      if (join && this.streaming) this.block.add(NEWLINE); // (after its line is known: the output's '\n' moves to it)
    }
    this.length = 0;
    this.bytes(first);
  }

  bytes(b: Uint8Array): void {
    const { lines, kind } = this;
    const before = this.length;
    this.length += b.length;
    if (this.skipping && kind === 'data') {
      this.out.dropped = true;
      return;
    }
    if (!this.held) {
      this.out.emit(b);
      return;
    }
    // A data line's value is the message's; its field name and everything else held have a
    // bound of their own.
    const name = kind === 'data' ? Math.max(0, Math.min(b.length, this.valueAt - before)) : b.length;
    if (name > 0) {
      lines.other += name;
      const over = lines.other > this.max;
      // A data line's name (6 bytes at most) is held even past the bound: a streamed event's
      // output goes after it, the byte that spoils it when refused here included.
      if (!over || kind === 'data') lines.bytes(name === b.length ? b : b.subarray(0, name));
      if (over) {
        this.refuse(this.tooManyOther, 0);
        if (kind !== 'data') this.out.emit(b);
        return;
      }
    }
    if (name < b.length) {
      if (this.streaming) {
        this.block.add(name === 0 ? b : b.subarray(name));
        return;
      }
      if (lines.joined.length + b.length - name > this.max) {
        this.refuse(this.tooLarge, this.max);
        return;
      }
      lines.value(b.subarray(name));
    }
  }

  type(isMessage: boolean): void {
    this.isMessage = isMessage;
    this.typed = true;
  }

  end(ending: Uint8Array): void {
    const { lines } = this;
    if (this.held) {
      lines.other += ending.length;
      lines.ending(ending); // (past the bound too: a refused event's lines go out whole)
      if (lines.other > this.max) this.refuse(this.tooManyOther, 0); // (else the last line's ending went unchecked)
    } else if (!(this.skipping && this.kind === 'data') || this.endBegun) this.out.emit(ending);
    this.endBegun = false;
    this.held = false;
    this.length = 0;
  }

  blank(ending: Uint8Array): void {
    this.flush();
    this.out.emit(ending);
    this.reset();
  }

  /** The stream ended (after its last line): an event it ends inside comes out as a complete one would. */
  close(): void {
    this.flush();
    this.reset();
  }

  /** The pipe's output, routed into the event's lines. */
  route(bytes: Uint8Array): void {
    this.lines.route(bytes, this.streaming);
  }

  /** Refuses the event's message (each throws unless onInvalidMessage takes it). */
  private refuse(reason: string, offset: number): void {
    if (this.streaming) {
      this.block.flush(); // (an error in the data before comes first, as when it was fed as it came)
      if (this.skipping) return; // (it had one: the event is abandoned)
      this.pipe.fail('too-large', reason);
    } else this.pipe.reject('too-large', reason, offset);
    this.abandon();
  }

  /** The message was refused: what is held goes (HeldLines.abandon), and the rest of the event streams, its data lines dropped. */
  private abandon(): void {
    this.skipping = true;
    this.block.clear(); // (a streamed event's data not fed goes with it)
    if (this.lines.abandon(this.streaming)) this.endBegun = true;
    this.held = false;
  }

  /** The event is complete: transform its data, or let it pass. */
  private flush(): void {
    if (this.streaming) {
      this.endStreamed();
      return;
    }
    if (!this.holding || this.skipping || this.lines.empty) return;
    if (!this.isMessage) {
      this.lines.writeAsCame();
      return;
    }
    const { lines, pipe } = this;
    lines.startRouting();
    let result: EndResult;
    try {
      if (lines.joined.length === 0) pipe.feed(NO_BYTES);
      lines.joined.drain((b) => pipe.feed(b)); // (each chunk let go of once fed)
      result = pipe.end();
    } finally {
      lines.routing = false;
    }
    lines.endRouting(result, false);
  }

  /** The event's first data line, its type a message: its message starts, and its output is routed from here. */
  private startStreaming(): void {
    this.streaming = true;
    this.lines.startRouting();
    this.pipe.feed(NO_BYTES);
  }

  /**
   * A streamed event ends: its message ends, unless it was refused; refused if its type is no
   * longer a message (its data went out encoded, and spoiled now: a receiver must not take it as
   * this other type's data unreported).
   */
  private endStreamed(): void {
    let result: EndResult;
    try {
      this.block.flush();
      if (!this.skipping && !this.isMessage) this.pipe.fail('framing', TYPE_CHANGED);
      result = this.pipe.end();
    } finally {
      this.lines.routing = false;
    }
    if (!this.skipping) this.lines.endRouting(result, true);
  }

  private reset(): void {
    this.holding = false;
    this.streaming = false;
    this.typed = false;
    this.skipping = false;
    this.endBegun = false;
    this.block.clear();
    this.isMessage = true;
    this.lines.clear();
    this.lines.other = 0;
  }
}
