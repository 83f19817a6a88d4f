// One event stream serve hands a host (a POST's answer, the GET stream, a resumed stream):
// events go in as text, out as bytes as the host reads them; what the host has not read yet is
// counted (serve stops reading its child beyond a bound, and is told each read to check again);
// a comment every 15 s keeps idle connections open through proxies, as the SDK's transport does.

/** The SDK's interval between keep-alive comments. */
export const KEEP_ALIVE_MS = 15_000;

const utf8 = new TextEncoder();

/**
 * The queue's high-water mark, which nothing reaches: the stream then calls `pull` (which adds
 * nothing) after each read, so serve learns when the host reads; what waits is this less desiredSize.
 */
const NEVER_FULL = Number.MAX_SAFE_INTEGER;

export class SseConnection {
  /** Closed by serve, or left by the host: nothing more reaches the host this way. */
  ended = false;
  /** Closed by serve while the host had not read all: the stream ends once it has (see close). */
  private draining = false;
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly keepAlive: ReturnType<typeof setInterval>;

  /** `onLeft`: the host stopped reading (cancelled the body); `onRead`: it read (or may have: told at times when it did not too). */
  constructor(onLeft: () => void, onRead: () => void) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.controller = c;
        },
        pull: () => {
          if (this.draining && this.waiting === 0) this.end();
          onRead();
        },
        cancel: () => {
          this.stop();
          onLeft();
        },
      },
      // (Nothing is pulled ahead: what waits for the host waits in the queue, counted in bytes.)
      { highWaterMark: NEVER_FULL, size: (chunk) => chunk.byteLength },
    );
    this.keepAlive = setInterval(() => this.write(': keepalive\n\n'), KEEP_ALIVE_MS);
    this.keepAlive.unref?.();
  }

  /** A message event (`data`: one line of JSON), with its event id for Last-Event-ID. */
  event(data: string, eventId: string): void {
    this.write(`event: message\nid: ${eventId}\ndata: ${data}\n\n`);
  }

  /** An event with an id and no message (2025-11-25): the host can resume from the start. */
  prime(eventId: string): void {
    this.write(`id: ${eventId}\ndata: \n\n`);
  }

  /**
   * Ends the stream once the host has read what it holds. Not closed before: a stream asked to
   * close calls `pull` no more, and each read must still tell serve (onRead) that less waits.
   */
  close(): void {
    if (this.ended) return;
    this.stop();
    if (this.waiting === 0) this.end();
    else this.draining = true;
  }

  /** Bytes written and not yet read by the host (0 once it left). */
  get waiting(): number {
    try {
      const room = this.controller.desiredSize;
      return room ? NEVER_FULL - room : 0; // (0 or null: closed or errored, nothing waits)
    } catch {
      return 0;
    }
  }

  private write(text: string): void {
    if (this.ended) return;
    try {
      this.controller.enqueue(utf8.encode(text));
    } catch {
      this.stop(); // (the host left between two events)
    }
  }

  private end(): void {
    this.draining = false;
    try {
      this.controller.close();
    } catch {
      // (already cancelled by the host)
    }
  }

  private stop(): void {
    this.ended = true;
    clearInterval(this.keepAlive);
  }
}
