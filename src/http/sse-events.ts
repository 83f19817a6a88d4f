// Passes an event stream on in whole events only. When the upstream ends or fails in the
// middle of an event, the stream ends cleanly after the last whole event, as an SSE reader
// would have seen it (a reader drops an event without its blank line). An event longer than
// `streamPast` goes on as it comes, unless an observer must see it whole first: holding a large
// event cost a proxy its size (a 40 MB result grew it by 174 MiB); cut inside such an event, the
// stream ends there (the encoder behind checks its message, a reader drops it: no blank line).
// Held or streamed, an event that passes `maxEventBytes` before its end is refused: a body that
// is no event stream (a GET answered with JSON, read as events) would otherwise pass unbounded.
// Pull-based: nothing is read before the consumer asks, so a slow reader slows the upstream
// instead of filling memory.

import { byteFinder } from '../stream/find-byte.js';
import { concat } from '../util/concat.js';

const LF = 0x0a;
const CR = 0x0d;

/** The longest event held whole when nothing observes it (past it, it streams). */
export const STREAM_PAST = 1024 * 1024;

export class EventTooLargeError extends Error {
  override readonly name = 'EventTooLargeError';
}

/** Finds event ends (blank lines; LF, CRLF or CR line ends) across chunks. */
class EventBoundaries {
  private atLineStart = true;
  private pendingCR = false;
  /** The pending CR ended an event: an LF after it belongs to that event. */
  private eventCR = false;
  /** Index just past the first event end in the chunk last scanned (its blank lines after it too), or -1. */
  first = -1;

  /** Index just past the last event end in `chunk`, or -1. */
  scan(chunk: Uint8Array): number {
    let last = -1;
    this.first = -1;
    // Only line ends matter: jump from one to the next natively (data lines run to megabytes).
    const find = byteFinder(chunk);
    let nextLF = -2;
    let nextCR = -2;
    for (let i = 0; i < chunk.length; i++) {
      if (nextLF !== -1 && nextLF < i) nextLF = find(LF, i);
      if (nextCR !== -1 && nextCR < i) nextCR = find(CR, i);
      const end = nextLF < 0 ? nextCR : nextCR < 0 ? nextLF : Math.min(nextLF, nextCR);
      if (end !== i) {
        // Line content up to the next line end (or the chunk's end).
        this.atLineStart = false;
        this.pendingCR = this.eventCR = false;
        if (end < 0) break;
        i = end;
      }
      const b = chunk[i]!;
      if (b === LF) {
        if (this.pendingCR) {
          // The LF of a CRLF.
          if (this.eventCR) last = this.endAt(i);
          this.pendingCR = this.eventCR = false;
          continue;
        }
        if (this.atLineStart) last = this.endAt(i);
        this.atLineStart = true;
      } else if (b === CR) {
        this.eventCR = this.atLineStart;
        if (this.atLineStart) last = this.endAt(i);
        this.atLineStart = true;
        this.pendingCR = true;
      }
    }
    return last;
  }

  /** An event ends with the byte at `i`: the index past it (the LF of a CRLF, a blank line after: the same end). */
  private endAt(i: number): number {
    if (this.first < 0 || this.first === i) this.first = i + 1;
    return i + 1;
  }
}

/**
 * The rule of `wholeEvents`, pushed: each chunk goes to `out` in whole events (or as it comes,
 * inside an event longer than `streamPast`), the rest held. The Web stream below and the Node
 * CLI's held GET streams (event-relay.ts) both read events with it.
 */
export class WholeEvents {
  private readonly boundaries = new EventBoundaries();
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private streaming = false; // the event being read has gone on in part (held is empty)
  private streamed = 0; // bytes of it gone on

  constructor(
    private readonly maxEventBytes: number,
    private readonly onTruncated?: (error: unknown) => void,
    private readonly observe?: (pieces: readonly Uint8Array[]) => void,
    private readonly streamPast = STREAM_PAST,
    private readonly onStreamPast?: () => void,
  ) {}

  /** Passes on what `chunk` completes; returns whether anything went to `out`. Throws EventTooLargeError. */
  push(chunk: Uint8Array, out: (piece: Uint8Array) => void): boolean {
    const end = this.boundaries.scan(chunk);
    // (An event streamed on ends at the chunk's first event end: the events after it are not its.)
    if (this.streaming) this.streamed += end < 0 ? chunk.length : this.boundaries.first;
    if (end < 0) {
      if (this.streaming) {
        this.bound(this.streamed);
        out(chunk);
        return true;
      }
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      this.bound(this.heldBytes);
      if (!this.observe && this.heldBytes > this.streamPast) {
        this.onStreamPast?.();
        for (const h of this.held) out(h);
        this.held = [];
        this.streamed = this.heldBytes;
        this.heldBytes = 0;
        this.streaming = true;
        return true;
      }
      return false;
    }
    if (this.streaming) this.bound(this.streamed);
    // The held pieces go on as they are, not joined: a large event is not copied again.
    this.held.push(chunk.subarray(0, end));
    this.observe?.(this.held);
    for (const h of this.held) if (h.length) out(h);
    this.held = end < chunk.length ? [chunk.slice(end)] : [];
    this.heldBytes = end < chunk.length ? chunk.length - end : 0;
    this.streaming = false;
    return true;
  }

  /** Refuses an event of `bytes` so far past maxEventBytes. */
  private bound(bytes: number): void {
    if (bytes > this.maxEventBytes) throw new EventTooLargeError(`an event larger than maxMessageBytes (${this.maxEventBytes})`);
  }

  /** The end of the body (`failed`: it failed with `error`): what is whole goes to `out`. */
  end(failed: boolean, error: unknown, out: (piece: Uint8Array) => void): void {
    // Line ends alone (the LF of a final CRLF, say) are whole; anything else is a cut event.
    const whole = this.held.every((h) => h.every((b) => b === LF || b === CR));
    if (whole && this.heldBytes > 0) out(concat(this.held));
    if (failed || !whole || this.streaming) this.onTruncated?.(error);
    this.held = [];
  }
}

/**
 * `observe`, when given, sees each run of whole events (in pieces, from an event's start to an
 * event's end) before any of it goes on: a reader of the stream never gets an event before it.
 */
export function wholeEvents(
  body: ReadableStream<Uint8Array>,
  maxEventBytes: number,
  onTruncated?: (error: unknown) => void,
  observe?: (pieces: readonly Uint8Array[]) => void,
  streamPast = STREAM_PAST,
  /** Told when an event starts to go on unread (longer than `streamPast`), before any of it goes. */
  onStreamPast?: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const events = new WholeEvents(maxEventBytes, onTruncated, observe, streamPast, onStreamPast);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const out = (piece: Uint8Array) => controller.enqueue(piece);
        for (;;) {
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await reader.read();
          } catch (e) {
            // The upstream failed: what was whole has gone out; a partial event is dropped.
            events.end(true, e, out);
            return controller.close();
          }
          if (next.done) {
            events.end(false, undefined, out);
            return controller.close();
          }
          try {
            if (events.push(next.value, out)) return;
          } catch (e) {
            void reader.cancel().catch(() => {});
            throw e;
          }
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
