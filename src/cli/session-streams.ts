// The event streams one `serve` session's host reads: a stream per POST with requests (until
// its last answer), the GET stream, and streams resumed with Last-Event-ID. Every event is
// stored (BoundedEventStore) before it is written to the host's connection, if it has one; a
// stream the host left keeps its events for resumption. What no stream can take waits here,
// bounded (PENDING_MESSAGES, PENDING_BYTES), for the next stream the host opens.
import { Waiters } from '../util/waiters.js';
import { BoundedEventStore } from './event-store.js';
import { SseConnection } from './sse-connection.js';

/**
 * Bytes a session may hold that its host has not read yet (plus the message being sent): beyond
 * them serve stops reading the server's stdout until the host catches up.
 */
export const SERVE_HOLD_BYTES = 8 * 1024 * 1024;
/**
 * What the child sends while the host has no stream open and no request in flight waits for the
 * next stream the host opens, up to this many messages and PENDING_BYTES (its JSON text); past
 * that a message is dropped with a line on stderr, and a request is answered with an error.
 */
export const PENDING_MESSAGES = 1000;
export const PENDING_BYTES = SERVE_HOLD_BYTES;
/** The stream id of the GET stream (the SDK's, so event ids look the same). */
export const GET_STREAM = '_GET_stream';

/** A stream id's requests not answered yet, and the host's connection to it while it has one. */
interface Channel {
  open: number;
  live?: SseConnection;
}

/** Why a stream cannot be opened: an HTTP status and its message. */
export interface Refusal {
  status: number;
  message: string;
}

export class SessionStreams {
  private readonly store = new BoundedEventStore();
  private readonly channels = new Map<string, Channel>();
  /** Every connection handed out, until it has ended and the host has read it all. */
  private readonly connections = new Set<SseConnection>();
  private readonly pending: string[] = [];
  private pendingBytes = 0;
  /** The host was told (once) that messages wait for its GET stream. */
  private toldNoStream = false;
  /** Woken when the host reads a stream, leaves one, or they all close: what waits may be less. */
  private readonly reads = new Waiters();

  constructor(private readonly log: (line: string) => void) {}

  /**
   * A POST's stream, for its `requests` (it ends with their last answer); `prime`: an event id
   * before anything else (2025-11-25), so the host can resume from the start. What waits goes out on it.
   */
  open(stream: string, requests: number, prime: boolean): SseConnection {
    const live = this.connect(stream, requests);
    if (prime) live.prime(this.store.storeEvent(stream, ''));
    this.flushPending(stream);
    return live;
  }

  /** The GET stream (one at a time); what waits goes out on it. */
  openGet(): SseConnection | Refusal {
    const open = this.channels.get(GET_STREAM)?.live;
    if (open && !open.ended) return { status: 409, message: 'Conflict: Only one SSE stream is allowed per session' };
    const live = this.connect(GET_STREAM, 0);
    this.flushPending(GET_STREAM);
    return live;
  }

  /** A stream resumed after event `lastEventId`: its events since, then (while it is open) what comes. */
  resume(lastEventId: string): SseConnection | Refusal {
    const after = this.store.eventsAfter(lastEventId);
    if (!after) return { status: 400, message: 'Invalid event ID format' };
    const channel = this.channels.get(after.streamId);
    if (channel?.live && !channel.live.ended) return { status: 409, message: 'Conflict: Stream already has an active connection' };
    const live = new SseConnection(() => this.left(after.streamId, live), this.reads.wake);
    this.connections.add(live);
    for (const [eventId, data] of after.events) live.event(data, eventId);
    // A stream still waiting for answers (or the GET stream) goes on here; one all answered ends.
    if (channel || after.streamId === GET_STREAM) {
      this.channels.set(after.streamId, { open: channel?.open ?? 0, live });
      this.flushPending(after.streamId);
    } else live.close();
    return live;
  }

  /** Whether the host reads `stream` now. */
  reachable(stream: string): boolean {
    const live = this.channels.get(stream)?.live;
    return live !== undefined && !live.ended;
  }

  /** Stores `data` as the next event of `stream` and writes it to the host's connection to it, if any. */
  send(stream: string, data: string): void {
    const eventId = this.store.storeEvent(stream, data);
    const live = this.channels.get(stream)?.live;
    if (live && !live.ended) live.event(data, eventId);
  }

  /** A message that answers nothing, sent on `stream`: the host has a stream again. */
  deliver(stream: string, data: string): void {
    this.toldNoStream = false;
    this.send(stream, data);
  }

  /** One request of `stream` is answered or cancelled: the stream ends with its last. */
  settled(stream: string): void {
    const channel = this.channels.get(stream);
    if (channel && --channel.open <= 0) {
      channel.live?.close();
      this.channels.delete(stream);
    }
  }

  /** No stream open and no request in flight: `text` waits for the next stream the host opens, bounded (false: no room). */
  hold(text: string): boolean {
    if (this.pending.length >= PENDING_MESSAGES || this.pendingBytes + text.length > PENDING_BYTES) return false;
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (!this.toldNoStream) {
      this.toldNoStream = true; // (once until the host opens one: a chatty server does not flood the log)
      this.log('messages from the server outside any request wait for the host to open its GET stream (or a request)');
    }
    return true;
  }

  /** What waits for a stream, for log lines: `3 messages (120 characters)`. */
  get held(): string {
    return `${this.pending.length} messages (${this.pendingBytes} characters)`;
  }

  /** Bytes waiting for the host across the session's streams (forgets the connections done with). */
  waiting(): number {
    let total = 0;
    for (const c of this.connections) {
      const n = c.waiting;
      if (c.ended && n === 0) this.connections.delete(c);
      total += n;
    }
    return total;
  }

  /** Resolves when the host next reads or leaves a stream, or they all close (then check `waiting` again). */
  read(): Promise<void> {
    return this.reads.next();
  }

  /** Every stream ends (what they hold still reaches the host). */
  close(): void {
    for (const c of this.connections) c.close();
    this.channels.clear();
    this.reads.wake();
  }

  private connect(stream: string, open: number): SseConnection {
    const live = new SseConnection(() => this.left(stream, live), this.reads.wake);
    this.connections.add(live);
    this.channels.set(stream, { open, live });
    return live;
  }

  /** The host stopped reading a connection: what comes for its stream is kept for Last-Event-ID. */
  private left(stream: string, live: SseConnection): void {
    this.reads.wake();
    const channel = this.channels.get(stream);
    if (channel?.live !== live) return;
    channel.live = undefined;
    if (stream === GET_STREAM) this.channels.delete(stream);
  }

  /** What waits for a stream goes out on `stream`, just opened. */
  private flushPending(stream: string): void {
    for (const text of this.pending.splice(0)) this.send(stream, text);
    this.pendingBytes = 0;
    this.toldNoStream = false;
  }
}
