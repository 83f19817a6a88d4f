// One `serve` session: a child (a stdio MCP server) and the event streams its host reads. It
// speaks the server side of Streamable HTTP on bytes: what the host sends reaches the child as
// the host wrote it (decoded, each message one line), and what the child writes reaches the host
// as the child wrote it (encoded), so numbers and ids keep their spelling; messages are parsed
// only to be looked at (ids, methods, progress tokens).
//
// Where a message from the child goes: an answer to its request's stream; a progress
// notification to the request that asked for it; anything else to the latest request in flight
// whose stream the host still reads, else the GET stream. With no stream open, it stays on the
// stream of a request still running (kept for Last-Event-ID), or, with none running, waits
// (PENDING_MESSAGES, PENDING_BYTES) for the next stream the host opens (session-streams.ts).
//
// When the child exits (or its output cannot be read), each request in flight is answered at
// once (a tool call as an isError result, anything else -32603) and the session ends.
//
// With a call time limit (--call-timeout; guard/call-timer.ts), a request the child leaves
// unanswered is answered the same way, on its stream, under its id as written (a tool call as an
// isError result, anything else -32001); the child gets notifications/cancelled for it, and its
// late answer, which no request in flight waits for any more, is dropped.
//
// The guard may ask the host itself (session-guard.ts): an `elicitation/create` about a call
// goes on that call's event stream (the Streamable HTTP spec lets a server send requests
// related to a POST on its stream), a `roots/list` where the child's own requests go; the
// host's answer, in a later POST, is taken out of it (202 when nothing else is in it).
import { randomUUID } from 'node:crypto';
import type { Codec } from '../codec/codec.js';
import type { CodecOptions } from '../codec/options.js';
import { inSession, type OnAudit } from '../guard/audit.js';
import { CallTimer, type TimedOut } from '../guard/call-timer.js';
import type { CallGuard } from '../http/call-guard.js';
import { errorResponse, type Id, INTERNAL_ERROR, isId, isResponseShape, type Message, SERVER_ERROR } from '../jsonrpc/message.js';
import { memberText, messageText, RawId, rawIds } from '../jsonrpc/raw-id.js';
import { concat } from '../util/concat.js';
import { Waiters } from '../util/waiters.js';
import { type ChildMessage, childMessages } from './child-output.js';
import { type HostMessage, isRequest } from './host-message.js';
import { type InFlight, InFlightRequests } from './in-flight.js';
import { exitStatus, type SessionChild, startChild, stopChild } from './serve-child.js';
import { SessionGuard } from './session-guard.js';
import { GET_STREAM, type Refusal, SERVE_HOLD_BYTES, SessionStreams } from './session-streams.js';

export type { HostMessage } from './host-message.js';
export { PENDING_BYTES, PENDING_MESSAGES, SERVE_HOLD_BYTES } from './session-streams.js';

/**
 * Requests of one session in flight at once (answered by neither the child nor serve yet); beyond
 * it a request is answered -32000 at once and not forwarded. What a host can make serve hold (each
 * answer, cancellation and progress finds its request by key: in-flight.ts).
 */
export const MAX_IN_FLIGHT = 1000;

const utf8 = new TextDecoder();
const NEWLINE = new Uint8Array([0x0a]);

const tokenKey = (token: unknown) => (isId(token) ? `${typeof token}:${token}` : undefined);

export interface SessionOptions {
  command: string[];
  codec: Codec;
  codecOptions: CodecOptions;
  maxMessageBytes: number;
  guard?: CallGuard;
  log: (line: string) => void;
  /** The session is over (the child exited, or its output cannot be read). */
  onEnd: (why: string) => void;
  /** Answer requests the child leaves unanswered this long (progress extends up to maxMs); onAudit told each. */
  callTimeout?: { limitMs: number; maxMs?: number | undefined; onAudit?: OnAudit | undefined };
  /** Starts the child (default: `command` as a process; a fake one in tests). */
  startChild?: (command: string[], log: (line: string) => void) => SessionChild;
}

export class ServeSession {
  readonly id = randomUUID();
  readonly child: SessionChild;
  readonly inFlight = new InFlightRequests();
  /** Since when the child waits for the host to read what it was sent (see SERVE_HOLD_BYTES). */
  heldSince?: number;
  ended = false;
  private readonly streams: SessionStreams;
  private readonly guard: SessionGuard;
  /** Messages read from the child (as the encoder numbers them), for log lines. */
  private received = 0;
  /** The requests sent on to the child, timed (with a call time limit). */
  private readonly timer: CallTimer | undefined;
  /** Woken when the child's stdin takes a write (or fails it), or the session ends. */
  private readonly taken = new Waiters();

  constructor(private readonly o: SessionOptions) {
    const audit = o.callTimeout?.onAudit;
    this.timer =
      o.callTimeout &&
      new CallTimer({
        limitMs: o.callTimeout.limitMs,
        maxMs: o.callTimeout.maxMs,
        log: o.log,
        onAudit: audit && ((e) => audit(inSession(e, this.id))),
        onTimeout: (t) => this.timedOut(t),
      });
    this.streams = new SessionStreams(o.log);
    this.guard = new SessionGuard(o.guard, this.id, o.codec, {
      toChild: (line) => this.toChildLines([line]),
      toHost: (request, stream) => this.toHost(request, stream),
      pass: (m) => this.write(m),
      answer: (m, answer) => this.answerHere(m, answer),
      ended: () => this.ended,
      log: o.log,
    });
    this.child = (o.startChild ?? startChild)(o.command, o.log);
    void this.readChild();
  }

  /** Requests and notifications of one POST (decoded): an event stream for its requests, or 202. */
  post(all: HostMessage[], protocolVersion: string, headers: Record<string, string>): Response {
    // (The host's answers to the guard's own requests: taken here, never sent on.)
    const messages = this.guard.takeAnswers(all);
    const requests = messages.filter((m) => isRequest(m.value));
    if (!requests.length) {
      for (const m of messages) this.guard.check(m);
      return new Response(null, { status: 202 });
    }
    const stream = randomUUID();
    const live = this.streams.open(stream, requests.length, protocolVersion >= '2025-11-25');
    // (Beyond MAX_IN_FLIGHT, a request is answered here, on its stream, and not forwarded.)
    const room = Math.max(0, MAX_IN_FLIGHT - this.inFlight.length);
    const over: InFlight[] = [];
    const refused = new Set<HostMessage>();
    for (const [k, m] of requests.entries()) {
      const meta = m.value.params?._meta as { progressToken?: unknown } | undefined;
      const id = m.value.id as Id;
      const r: InFlight = { rawId: m.rawId!, id, method: m.value.method as string, stream, progressToken: tokenKey(meta?.progressToken) };
      this.inFlight.add(r);
      if (k >= room) {
        over.push(r);
        refused.add(m);
      }
    }
    for (const m of messages) if (!refused.has(m)) this.guard.check(m, stream);
    if (over.length) this.o.log(`${over.length} requests not forwarded: ${MAX_IN_FLIGHT} already in flight in the session (-32000)`);
    const error = errorResponse(null, SERVER_ERROR, `Too many requests in flight (${MAX_IN_FLIGHT}); not forwarded`);
    for (const r of over) this.answer(r, this.written(error, r.rawId));
    return new Response(live.body, { status: 200, headers });
  }

  /** Whether `value` answers a request of the guard's own to the host; then that request fails (its answer could not be read). */
  ownAnswerUnread(value: unknown): boolean {
    return this.guard.ownAnswerUnread(value);
  }

  /** Messages of a POST refused before they reached the guard: the calls among them it would drop are dropped (session-guard.ts). */
  refused(values: readonly unknown[]): void {
    for (const v of values) this.guard.refused(v);
  }

  /** The GET stream, or (Last-Event-ID) a stream resumed after that event; an error response when neither can be. */
  get(lastEventId: string | null, headers: Record<string, string>): Response | Refusal {
    const live = lastEventId ? this.streams.resume(lastEventId) : this.streams.openGet();
    return 'body' in live ? new Response(live.body, { status: 200, headers }) : live;
  }

  /**
   * Resolves once the child has taken what it was sent down to SERVE_HOLD_BYTES (or the session
   * ended, or `signal` aborted): a host's next body waits in its socket, not in serve, while a
   * child reads nothing of its stdin.
   */
  async writable(signal?: AbortSignal): Promise<void> {
    while (!this.ended && !signal?.aborted && (this.child.stdin?.writableLength ?? 0) > SERVE_HOLD_BYTES) {
      signal?.addEventListener('abort', this.taken.wake, { once: true });
      await this.taken.next();
      signal?.removeEventListener('abort', this.taken.wake);
    }
  }

  /** Lines for the child that serve wrote itself (errors answering its requests), one message each. */
  toChildLines(lines: string[]): void {
    for (const line of lines) this.toChild(`${line}\n`);
  }

  /** Writes to the child's stdin; each write taken (or failed: the child is gone) wakes `writable`. */
  private toChild(data: string | Uint8Array): void {
    this.child.stdin!.write(data, this.taken.wake);
  }

  /**
   * Ends the session: each request still in flight is answered (as when the child exits: no call
   * waits for the host's timeout), the child is stopped, every stream ends (what they hold still
   * reaches the host). `why`: for the answers.
   */
  close(why = 'the session has ended'): void {
    if (this.ended) return;
    this.answerInFlight(`Not answered: ${why}`);
    this.ended = true;
    this.guard.failHost(why);
    this.timer?.stop();
    stopChild(this.child);
    this.streams.close();
    this.taken.wake();
  }

  /** Bytes waiting for the host across the session's streams. */
  waiting(): number {
    return this.streams.waiting();
  }

  /**
   * A request of the guard's own to the host, encoded: on `stream` (a confirmation, on its
   * call's), else where the child's own requests go (roots/list).
   */
  private toHost(request: Message, stream = this.streamFor()): void {
    if (this.ended) throw new Error('the session has ended');
    const text = messageText(this.o.codec.encodeMessage(request));
    if (stream !== undefined) this.streams.deliver(stream, text);
    else if (!this.streams.hold(text)) throw new Error('the host has no stream open and too much waits for one');
  }

  /** Answers a host's request here (encoded, under its id as written), as if the child had. */
  private answerHere(m: HostMessage, message: object): void {
    const r = m.rawId === undefined ? undefined : this.inFlight.written(m.rawId, m.value.id as Id);
    if (r) this.answer(r, this.written(message, r.rawId));
  }

  /** An answer serve writes itself for the host: encoded, under the request's id as written. */
  private written(message: object, rawId: string): string {
    return messageText(this.o.codec.encodeMessage({ ...message, id: new RawId(rawId) }));
  }

  /** A message from the host that passed the guard: on to the child. */
  private write(m: HostMessage): void {
    const v = m.value;
    if (v.method === 'notifications/cancelled') {
      // (The server sends no answer to a cancelled request: it is no longer in flight.)
      // (Named as written: two ids past 2^53 that parse the same are two requests.)
      const id = v.params?.requestId;
      const r = isId(id)
        ? this.inFlight.answered(id, memberText(utf8.decode(m.bytes), ['params', 'requestId']) ?? JSON.stringify(id))
        : undefined;
      if (r) this.done(r);
    }
    // Timed from here: what the guard answered never reaches the child.
    if (this.timer && isRequest(v)) {
      const token = tokenKey((v.params?._meta as { progressToken?: unknown } | undefined)?.progressToken);
      this.timer.track(m.rawId!, v.method as string, v.method === 'tools/call' ? String(v.params?.name) : undefined, token);
    }
    this.toChild(concat([m.bytes, NEWLINE]));
  }

  /** The child left a request unanswered too long: the host gets the answer, the child a cancellation. */
  private timedOut(t: TimedOut): void {
    const r = this.inFlight.written(t.raw);
    if (r) this.answer(r, this.written(t.answer, r.rawId));
    if (!this.ended) this.toChildLines([t.cancel]);
  }

  /** The child's output: each message routed; at its end, the session ends. */
  private async readChild(): Promise<void> {
    let why: string;
    try {
      const o = { ...this.o, toChild: (line: string) => this.toChildLines([line]) };
      for await (const messages of childMessages(this.child.stdout! as AsyncIterable<Uint8Array>, o)) {
        for (const m of messages) this.fromChild(m);
        // Backpressure: while the host has not read what it was sent, the child waits.
        while (this.waiting() > SERVE_HOLD_BYTES && !this.ended) {
          this.heldSince ??= Date.now();
          await this.streams.read();
        }
        this.heldSince = undefined;
      }
      why = `the server ${await exitStatus(this.child)}`;
    } catch (e) {
      this.o.log(`from the server: ${(e as Error).message}`);
      why = 'a message from the server could not be read';
    }
    this.guard.failAll(why);
    if (this.ended) return;
    this.answerInFlight(`Not answered: ${why}; the session has ended`);
    this.o.onEnd(why);
  }

  /**
   * Nothing more will answer the requests in flight: each is answered now, as the host reads
   * answers (a tool call as a result the model can read, anything else as an error).
   */
  private answerInFlight(reason: string): void {
    for (const r of [...this.inFlight]) {
      const message =
        r.method === 'tools/call'
          ? { jsonrpc: '2.0', id: null, result: { content: [{ type: 'text', text: reason }], isError: true } }
          : errorResponse(null, INTERNAL_ERROR, reason);
      this.answer(r, this.written(message, r.rawId));
    }
  }

  /** One message from the child (encoded). */
  private fromChild({ bytes, value, text = utf8.decode(bytes) }: ChildMessage): void {
    this.received++;
    const m = (typeof value === 'object' && value !== null ? value : {}) as {
      id?: unknown;
      method?: unknown;
      params?: { progressToken?: unknown };
    };
    if (this.guard.fromChild(m)) return;
    if (isResponseShape(m) && isId(m.id)) {
      const raw = rawIds(text)[0]?.text ?? JSON.stringify(m.id);
      if (this.timer?.answered(raw)) return; // (late: the host was answered)
      const r = this.inFlight.answered(m.id, raw);
      if (r) this.answer(r, text);
      else this.o.log(`from the server: message ${this.received} answers no request in flight (cancelled, or answered before); dropped`);
      return;
    }
    // Progress to the request that asked for it, anything else to the latest request in flight,
    // while the host still reads that request's stream; else the GET stream.
    const token = m.method === 'notifications/progress' ? tokenKey(m.params?.progressToken) : undefined;
    if (token !== undefined) this.timer?.progress(token);
    const asked = token === undefined ? undefined : this.inFlight.withToken(token);
    const stream = this.streamFor(asked);
    if (stream === undefined) this.wait(bytes, text, m);
    else this.streams.deliver(stream, text);
  }

  /**
   * Where a message that answers nothing goes: the stream of `asked` (the request that asked for
   * progress) or else of the latest request in flight, while the host reads it; else the GET
   * stream; undefined when none is open and no request is in flight.
   */
  private streamFor(asked?: InFlight): string | undefined {
    const reachable = (s: string) => this.streams.reachable(s);
    let stream = asked && reachable(asked.stream) ? asked.stream : this.inFlight.latest((r) => reachable(r.stream))?.stream;
    if (stream === undefined && reachable(GET_STREAM)) stream = GET_STREAM;
    // With no stream open, a message stays on a request's stream (the one that asked for progress,
    // else the latest in flight), stored for Last-Event-ID, as the SDK keeps a handler's own
    // messages: a GET stream the host never opened could never be resumed.
    return stream ?? (asked ?? this.inFlight.latest())?.stream;
  }

  /** A message from the child that no stream can take: it waits (hold), or is dropped with a line on stderr. */
  private wait(bytes: Uint8Array, text: string, m: { id?: unknown; method?: unknown }): void {
    if (this.streams.hold(text)) return;
    const request = typeof m.method === 'string' && isId(m.id);
    this.o.log(
      `from the server: message ${this.received} (a ${request ? 'request' : 'notification'}, ${bytes.length} bytes) not delivered: ` +
        `the host has no stream open and ${this.streams.held} already wait for one` +
        (request ? ' (the server answered)' : ''),
    );
    if (request) {
      const error = errorResponse(null, SERVER_ERROR, 'Not delivered: the host has no stream open and too much waits for one');
      this.toChildLines([messageText({ ...error, id: rawIds(text)[0] ?? m.id })]);
    }
  }

  /** Answers request `r` with `data` (the child's answer, or one serve wrote). */
  private answer(r: InFlight, data: string): void {
    this.streams.send(r.stream, data);
    this.done(r);
  }

  /** Request `r` is answered or cancelled: no longer in flight; its stream ends with its last one. */
  private done(r: InFlight): void {
    this.timer?.forget(r.rawId);
    this.inFlight.delete(r);
    this.streams.settled(r.stream);
  }
}
