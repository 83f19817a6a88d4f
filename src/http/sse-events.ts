// Passes an event stream on in whole events only. When the upstream ends or fails in the
// middle of an event, the stream ends cleanly after the last whole event, as an SSE reader
// would have seen it (a reader drops an event without its blank line). An event longer than
// `streamPast` goes on as it comes, unless an observer must see it whole first: holding a large
// event cost a proxy its size (a 40 MB result grew it by 174 MiB); cut inside such an event, the
// stream ends there (the encoder behind checks its message, a reader drops it: no blank line).
// Pull-based: nothing is read before the consumer asks, so a slow reader slows the upstream
// instead of filling memory.
import { concat } from '../concat.js';
import { byteFinder } from '../stream/find-byte.js';

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

  /** Index just past the last event end in `chunk`, or -1. */
  scan(chunk: Uint8Array): number {
    let last = -1;
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
          if (this.eventCR) last = i + 1;
          this.pendingCR = this.eventCR = false;
          continue;
        }
        if (this.atLineStart) last = i + 1;
        this.atLineStart = true;
      } else if (b === CR) {
        this.eventCR = this.atLineStart;
        if (this.atLineStart) last = i + 1;
        this.atLineStart = true;
        this.pendingCR = true;
      }
    }
    return last;
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
  const boundaries = new EventBoundaries();
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let streaming = false; // the event being read has gone on in part (held is empty)
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>, failed: boolean, error: unknown) => {
    // Line ends alone (the LF of a final CRLF, say) are whole; anything else is a cut event.
    const whole = held.every((h) => h.every((b) => b === LF || b === CR));
    if (whole && heldBytes > 0) controller.enqueue(concat(held));
    if (failed || !whole || streaming) onTruncated?.(error);
    held = [];
    controller.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await reader.read();
          } catch (e) {
            // The upstream failed: what was whole has gone out; a partial event is dropped.
            return finish(controller, true, e);
          }
          if (next.done) return finish(controller, false, undefined);
          const chunk = next.value;
          const end = boundaries.scan(chunk);
          if (end < 0) {
            if (streaming) return controller.enqueue(chunk);
            held.push(chunk);
            heldBytes += chunk.length;
            if (!observe && heldBytes > streamPast) {
              onStreamPast?.();
              for (const h of held) controller.enqueue(h);
              held = [];
              heldBytes = 0;
              streaming = true;
              return;
            }
            if (heldBytes > maxEventBytes) {
              void reader.cancel().catch(() => {});
              throw new EventTooLargeError(`an event larger than maxMessageBytes (${maxEventBytes})`);
            }
            continue;
          }
          // The held pieces go on as they are, not joined: a large event is not copied again.
          held.push(chunk.subarray(0, end));
          observe?.(held);
          for (const h of held) if (h.length) controller.enqueue(h);
          held = end < chunk.length ? [chunk.slice(end)] : [];
          heldBytes = end < chunk.length ? chunk.length - end : 0;
          streaming = false;
          return;
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
