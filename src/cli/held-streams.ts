// The response streams serve hands a client, watched: which are still open (a message for a
// stream the client left goes elsewhere) and how many bytes wait in them for the client (the
// SDK transport enqueues without limit, so serve stops reading its server beyond a bound).
import type { Id } from '../jsonrpc.js';

/** One response body: the requests it answers ('GET': the stream for messages outside any request). */
export class HeldStream {
  /** The SDK ended it, or the client left: no new message reaches the client this way. */
  ended = false;
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;

  constructor(
    source: ReadableStream<Uint8Array>,
    readonly carries: readonly Id[] | 'GET',
  ) {
    const reader = source.getReader();
    // (Pulled from the SDK's stream at once, so that what waits for the client waits here, counted.)
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.controller = c;
        },
        cancel: (reason) => {
          this.ended = true;
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          this.controller.enqueue(value);
        }
        this.controller.close();
      } catch (e) {
        try {
          this.controller.error(e);
        } catch {
          // (already cancelled by the client)
        }
      }
      this.ended = true;
    })();
  }

  /** Bytes enqueued and not yet read by the client (0 once it left). */
  get waiting(): number {
    return Math.max(0, -(this.controller.desiredSize ?? 0));
  }
}

/** A session's streams. */
export class HeldStreams {
  private streams = new Set<HeldStream>();

  /** Watches `response`'s body if it is an event stream; returns the response to hand out. */
  watch(response: Response, carries: readonly Id[] | 'GET', inFlight: readonly Id[]): Response {
    this.waiting(inFlight); // (forgets the streams done with: the set stays as small as what is open)
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
    const held = new HeldStream(response.body, carries);
    this.streams.add(held);
    return new Response(held.body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /**
   * Whether a message related to request `id` (or 'GET': outside any request) can still reach
   * the host. A request whose stream is not watched (not handed out yet) counts as reachable.
   */
  reachable(id: Id | 'GET'): boolean {
    let watched = false;
    for (const s of this.streams) {
      if (id === 'GET' ? s.carries !== 'GET' : s.carries === 'GET' || !s.carries.includes(id)) continue;
      if (!s.ended) return true;
      watched = true;
    }
    return id !== 'GET' && !watched;
  }

  /** Bytes waiting for the host across the session's streams (forgets streams done with). */
  waiting(inFlight: readonly Id[]): number {
    let total = 0;
    for (const s of this.streams) {
      const n = s.waiting;
      // (An ended stream is kept while it says that a request in flight cannot be reached.)
      if (s.ended && n === 0 && (s.carries === 'GET' || !s.carries.some((id) => inFlight.includes(id)))) this.streams.delete(s);
      total += n;
    }
    return total;
  }
}
