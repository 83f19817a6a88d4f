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
// (PENDING_MESSAGES, PENDING_BYTES) for the next stream the host opens.
//
// When the child exits (or its output cannot be read), each request in flight is answered at
// once (a tool call as an isError result, anything else -32603) and the session ends.
//
// With a call time limit (--call-timeout; guard/call-timer.ts), a request the child leaves
// unanswered is answered the same way, on its stream, under its id as written (a tool call as an
// isError result, anything else -32001); the child gets notifications/cancelled for it, and its
// late answer, which no request in flight waits for any more, is dropped.
//
// The guard may ask the host itself (--confirm, --root client): an `elicitation/create` about a
// call goes on that call's event stream (the Streamable HTTP spec lets a server send requests
// related to a POST on its stream), a `roots/list` where the child's own requests go. Ids are
// the guard's own (own-requests.ts); the host's answer, in a later POST, is taken out of it
// (202 when nothing else is in it) and never reaches the child. A call waiting for its user is
// held aside: the messages after it pass the guard meanwhile.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Codec } from '../codec.js';
import { concat } from '../concat.js';
import { inSession, type OnAudit } from '../guard/audit.js';
import { CallTimer, type TimedOut } from '../guard/call-timer.js';
import { OwnRequests } from '../guard/own-requests.js';
import type { CallGuard } from '../http/call-guard.js';
import { arrayElementSpans } from '../json-spans.js';
import { errorResponse, type Id, INTERNAL_ERROR, isId, isResponseShape, type Message, SERVER_ERROR } from '../jsonrpc.js';
import type { CodecOptions } from '../options.js';
import { memberText, messageText, RawId, rawIds } from '../raw-id.js';
import { createByteTransformer, type PayloadStreamError } from '../stream/index.js';
import { BoundedEventStore } from './event-store.js';
import { ndjsonLines } from './ndjson-lines.js';
import { oneLine } from './one-line.js';
import { RefusedLines, refusalOfLine } from './refused-lines.js';
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
/**
 * Requests of one session in flight at once (answered by neither the child nor serve yet); beyond
 * it a request is answered -32000 at once and not forwarded. What a host can make serve hold, and
 * how long the scans of them (each answer, each cancellation) take.
 */
export const MAX_IN_FLIGHT = 1000;
/** A refused server line is kept up to this many bytes to read its ids (as wrap keeps one). */
const REFUSED_LINE_BYTES = 1024 * 1024;
/** After a session ends and its child gets SIGTERM, how long it has before SIGKILL (as wrap). */
const KILL_GRACE_MS = 3000;
/** The stream id of the GET stream (the SDK's, so event ids look the same). */
const GET_STREAM = '_GET_stream';

const utf8 = new TextDecoder();
const NEWLINE = new Uint8Array([0x0a]);

/** Where and why, never what: `message 3 (invalid JSON at byte 0; blank lines not counted)`. */
const describeInvalid = (e: PayloadStreamError) =>
  `message ${e.messageNumber} (${e.reason} at byte ${e.byteOffset}; blank lines not counted)`;

/** A message from the host, decoded: its bytes, its value (to look at) and its id as written. */
export interface HostMessage {
  bytes: Uint8Array;
  value: { id?: unknown; method?: unknown; params?: Record<string, unknown> } & Record<string, unknown>;
  /** The raw text of its id, when it has one. */
  rawId?: string;
}

/** A request from the host sent on and not answered yet. */
interface InFlight {
  rawId: string;
  id: Id;
  method: string;
  /** The event stream its answer goes to. */
  stream: string;
  progressToken?: string;
}

/** A stream id's requests not answered yet, and the host's connection to it while it has one. */
interface Channel {
  open: number;
  live?: SseConnection;
}

export const isRequest = (m: HostMessage['value']) => typeof m.method === 'string' && isId(m.id);
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
}

export class ServeSession {
  readonly id = randomUUID();
  readonly child: ChildProcess;
  readonly inFlight: InFlight[] = [];
  /** Since when the child waits for the host to read what it was sent (see SERVE_HOLD_BYTES). */
  heldSince?: number;
  idle?: ReturnType<typeof setTimeout>;
  ended = false;
  private readonly store = new BoundedEventStore();
  private readonly channels = new Map<string, Channel>();
  /** Every connection handed out, until it has ended and the host has read it all. */
  private readonly connections = new Set<SseConnection>();
  private readonly pending: string[] = [];
  private pendingBytes = 0;
  /** The host was told (once) that messages wait for its GET stream. */
  private toldNoStream = false;
  /** Messages from the host pass the guard in order (a check may wait for the schema compiler). */
  private checks: Promise<void> = Promise.resolve();
  /** Messages read from the child (as the encoder numbers them), for log lines. */
  private received = 0;
  /**
   * The guard's own tools/list requests: when it cannot judge a call (no tool list seen yet, or
   * a tool not in the last one after list_changed) it asks the child for a page of its list, as
   * wrap does; the answer is taken from the child's output (it never reaches the host), decoded.
   */
  private readonly own = new OwnRequests((request) => {
    if (this.ended) throw new Error('the session has ended');
    this.toChildLines([JSON.stringify(request)]);
  });

  /** The guard's own requests to the host (confirmations, roots/list): encoded, routed as the child's requests. */
  private readonly host = new OwnRequests((request) => this.toHost(request), 'client');

  /** The requests sent on to the child, timed (with a call time limit). */
  private readonly timer: CallTimer | undefined;

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
    const [file, ...args] = o.command;
    this.child = spawn(file!, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.on('error', (e) => o.log(`cannot start ${file}: ${e.message}`));
    this.child.stdin!.on('error', () => {}); // (it may exit first; the end of its stdout tells)
    void this.readChild();
  }

  /** Requests and notifications of one POST (decoded): an event stream for its requests, or 202. */
  post(all: HostMessage[], protocolVersion: string, headers: Record<string, string>): Response {
    // (The host's answers to the guard's own requests: taken here, never sent on.)
    const messages = all.filter((m) => {
      if (!this.host.isAnswer(m.value)) return true;
      this.host.settle(m.value as unknown as Message);
      return false;
    });
    const requests = messages.filter((m) => isRequest(m.value));
    if (!requests.length) {
      for (const m of messages) this.toChild(m);
      return new Response(null, { status: 202 });
    }
    const stream = randomUUID();
    const live = this.connect(stream, requests.length);
    // (2025-11-25: an event id before anything else, so the host can resume from the start.)
    if (protocolVersion >= '2025-11-25') live.prime(this.store.storeEvent(stream, ''));
    // (Beyond MAX_IN_FLIGHT, a request is answered here, on its stream, and not forwarded.)
    const room = Math.max(0, MAX_IN_FLIGHT - this.inFlight.length);
    const over: InFlight[] = [];
    const refused = new Set<HostMessage>();
    for (const [k, m] of requests.entries()) {
      const meta = m.value.params?._meta as { progressToken?: unknown } | undefined;
      const id = m.value.id as Id;
      const r: InFlight = { rawId: m.rawId!, id, method: m.value.method as string, stream, progressToken: tokenKey(meta?.progressToken) };
      this.inFlight.push(r);
      if (k >= room) {
        over.push(r);
        refused.add(m);
      }
    }
    this.flushPending(stream);
    for (const m of messages) if (!refused.has(m)) this.toChild(m, stream);
    if (over.length) this.o.log(`${over.length} requests not forwarded: ${MAX_IN_FLIGHT} already in flight in the session (-32000)`);
    const error = errorResponse(null, SERVER_ERROR, `Too many requests in flight (${MAX_IN_FLIGHT}); not forwarded`);
    for (const r of over) this.answer(r, this.written(error, r.rawId));
    return new Response(live.body, { status: 200, headers });
  }

  /** Whether `value` answers a request of the guard's own to the host; then that request fails (its answer could not be read). */
  ownAnswerUnread(value: unknown): boolean {
    if (!this.host.isAnswer(value)) return false;
    this.host.settle(value as Message, new Error('its answer could not be decoded'));
    return true;
  }

  /** The GET stream, or (Last-Event-ID) a stream resumed after that event; an error response when neither can be. */
  get(lastEventId: string | null, headers: Record<string, string>): Response | { status: number; message: string } {
    if (lastEventId) {
      const after = this.store.eventsAfter(lastEventId);
      if (!after) return { status: 400, message: 'Invalid event ID format' };
      const channel = this.channels.get(after.streamId);
      if (channel?.live && !channel.live.ended) return { status: 409, message: 'Conflict: Stream already has an active connection' };
      const live = new SseConnection(() => this.left(after.streamId, live));
      this.connections.add(live);
      for (const [eventId, data] of after.events) live.event(data, eventId);
      // A stream still waiting for answers (or the GET stream) goes on here; one all answered ends.
      if (channel || after.streamId === GET_STREAM) {
        this.channels.set(after.streamId, { open: channel?.open ?? 0, live });
        this.flushPending(after.streamId);
      } else live.close();
      return new Response(live.body, { status: 200, headers });
    }
    const open = this.channels.get(GET_STREAM)?.live;
    if (open && !open.ended) return { status: 409, message: 'Conflict: Only one SSE stream is allowed per session' };
    const live = this.connect(GET_STREAM, 0);
    this.flushPending(GET_STREAM);
    return new Response(live.body, { status: 200, headers });
  }

  /**
   * Resolves once the child has taken what it was sent down to SERVE_HOLD_BYTES (or the session
   * ended, or `signal` aborted): a host's next body waits in its socket, not in serve, while a
   * child reads nothing of its stdin.
   */
  async writable(signal?: AbortSignal): Promise<void> {
    while (!this.ended && !signal?.aborted && (this.child.stdin?.writableLength ?? 0) > SERVE_HOLD_BYTES)
      await new Promise((r) => setTimeout(r, 20));
  }

  /** Lines for the child that serve wrote itself (errors answering its requests), one message each. */
  toChildLines(lines: string[]): void {
    for (const line of lines) this.child.stdin!.write(`${line}\n`);
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
    this.host.failAll(why);
    this.timer?.stop();
    clearTimeout(this.idle);
    this.child.stdin?.end();
    const c = this.child;
    if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) {
      c.kill('SIGTERM');
      // (As wrap: a child that ignores SIGTERM gets SIGKILL; it would otherwise outlive its
      // session, uncounted by --max-sessions, its output still read.)
      const timer = setTimeout(() => c.kill('SIGKILL'), KILL_GRACE_MS);
      c.once('exit', () => clearTimeout(timer));
    }
    for (const c of this.connections) c.close();
    this.channels.clear();
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

  private connect(stream: string, open: number): SseConnection {
    const live = new SseConnection(() => this.left(stream, live));
    this.connections.add(live);
    this.channels.set(stream, { open, live });
    return live;
  }

  /** The host stopped reading a connection: what comes for its stream is kept for Last-Event-ID. */
  private left(stream: string, live: SseConnection): void {
    const channel = this.channels.get(stream);
    if (channel?.live !== live) return;
    channel.live = undefined;
    if (stream === GET_STREAM) this.channels.delete(stream);
  }

  private reachable(stream: string): boolean {
    const live = this.channels.get(stream)?.live;
    return live !== undefined && !live.ended;
  }

  /** Stores `data` as the next event of `stream` and writes it to the host's connection to it, if any. */
  private send(stream: string, data: string): void {
    const eventId = this.store.storeEvent(stream, data);
    const live = this.channels.get(stream)?.live;
    if (live && !live.ended) live.event(data, eventId);
  }

  /** Answers request `r` with `data` (the child's answer, or one serve wrote). */
  private answer(r: InFlight, data: string): void {
    this.send(r.stream, data);
    this.done(r);
  }

  /** Request `r` is answered or cancelled: no longer in flight; its stream ends with its last one. */
  private done(r: InFlight): void {
    this.timer?.forget(r.rawId);
    const at = this.inFlight.indexOf(r);
    if (at >= 0) this.inFlight.splice(at, 1);
    const channel = this.channels.get(r.stream);
    if (channel && --channel.open <= 0) {
      channel.live?.close();
      this.channels.delete(r.stream);
    }
  }

  /**
   * The request in flight an answer with this id is for: a string by value, a number by its text
   * (two ids past 2^53 stay two), else (a child that rewrote the number) the same value.
   */
  private find(id: Id, rawId: string): InFlight | undefined {
    const same = typeof id === 'string' ? (r: InFlight) => r.id === id : (r: InFlight) => typeof r.id === 'number' && r.rawId === rawId;
    return this.inFlight.find(same) ?? (typeof id === 'number' ? this.inFlight.find((r) => r.id === id) : undefined);
  }

  /**
   * A message from the host on its way to the child, past the guard when there is one (`stream`:
   * its POST's event stream, where a confirmation about it is asked).
   */
  private toChild(m: HostMessage, stream?: string): void {
    const guard = this.o.guard;
    if (!guard) {
      this.write(m);
      return;
    }
    const client = stream === undefined ? this.host : this.host.via((request) => this.toHost(request, stream));
    // (The next message is checked once this one is through, or once it waits for its user.)
    const checked = (next: () => void) =>
      Promise.resolve()
        .then(() => guard.answer(m.value, this.own.ask, { request: m.rawId, session: this.id, client, aside: next }))
        .then(
          (answer) => (answer ? this.answerHere(m, answer) : this.write(m)),
          (e: unknown) => {
            this.o.log(`the guard failed (${(e as Error).name}): message not delivered`);
            if (isRequest(m.value)) this.answerHere(m, errorResponse(m.value.id as Id, SERVER_ERROR, 'The tool call guard failed'));
          },
        )
        .finally(next);
    this.checks = this.checks.then(() => new Promise<void>((next) => void checked(next)));
  }

  /**
   * A request of the guard's own to the host, encoded: on `stream` (a confirmation, on its
   * call's), else where the child's own requests go (roots/list).
   */
  private toHost(request: Message, stream = this.streamFor()): void {
    if (this.ended) throw new Error('the session has ended');
    const text = messageText(this.o.codec.encodeMessage(request));
    if (stream !== undefined) {
      this.toldNoStream = false;
      this.send(stream, text);
    } else if (!this.hold(text)) throw new Error('the host has no stream open and too much waits for one');
  }

  /** Answers a host's request here (encoded, under its id as written), as if the child had. */
  private answerHere(m: HostMessage, message: object): void {
    const r = m.rawId === undefined ? undefined : this.inFlight.find((x) => x.rawId === m.rawId && x.id === m.value.id);
    if (r) this.answer(r, this.written(message, r.rawId));
  }

  /** An answer serve writes itself for the host: encoded, under the request's id as written. */
  private written(message: object, rawId: string): string {
    return messageText(this.o.codec.encodeMessage({ ...message, id: new RawId(rawId) }));
  }

  private write(m: HostMessage): void {
    const v = m.value;
    if (v.method === 'notifications/cancelled') {
      // (The server sends no answer to a cancelled request: it is no longer in flight.)
      // (Named as written: two ids past 2^53 that parse the same are two requests.)
      const id = v.params?.requestId;
      const r = isId(id) ? this.find(id, memberText(utf8.decode(m.bytes), ['params', 'requestId']) ?? JSON.stringify(id)) : undefined;
      if (r) this.done(r);
    }
    // Timed from here: what the guard answered never reaches the child.
    if (this.timer && isRequest(v)) {
      const token = tokenKey((v.params?._meta as { progressToken?: unknown } | undefined)?.progressToken);
      this.timer.track(m.rawId!, v.method as string, v.method === 'tools/call' ? String(v.params?.name) : undefined, token);
    }
    this.child.stdin!.write(concat([m.bytes, NEWLINE]));
  }

  /** The child left a request unanswered too long: the host gets the answer, the child a cancellation. */
  private timedOut(t: TimedOut): void {
    const r = this.inFlight.find((x) => x.rawId === t.raw);
    if (r) this.answer(r, this.written(t.answer, r.rawId));
    if (!this.ended) this.toChildLines([t.cancel]);
  }

  /** The child's output: encoded on bytes, then each message routed; at its end, the session ends. */
  private async readChild(): Promise<void> {
    let why: string;
    try {
      // (Each line is a message the encoder wrote whole, or the spoiled start of one it refused.)
      for await (const bytes of ndjsonLines(this.encoded())) {
        const line = oneLine(bytes);
        const text = utf8.decode(line);
        if (!text.trim()) continue;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          continue; // (the encoder spoiled it on purpose and has logged why)
        }
        if (Array.isArray(value)) {
          const spans = arrayElementSpans(line);
          for (const [k, v] of value.entries()) this.fromChild(line.subarray(...spans[k]!), v);
        } else this.fromChild(line, value, text);
        // Backpressure: while the host has not read what it was sent, the child waits.
        while (this.waiting() > SERVE_HOLD_BYTES && !this.ended) {
          this.heldSince ??= Date.now();
          await new Promise((r) => setTimeout(r, 20));
        }
        this.heldSince = undefined;
      }
      why = `the server ${await this.exitStatus()}`;
    } catch (e) {
      this.o.log(`from the server: ${(e as Error).message}`);
      why = 'a message from the server could not be read';
    }
    this.own.failAll(why);
    this.host.failAll(why);
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

  /** How the child ended, once its stdout has: `exited with code 3`, `was killed by SIGKILL`. */
  private async exitStatus(): Promise<string> {
    const c = this.child;
    if (c.exitCode === null && c.signalCode === null) {
      // (It closed its stdout: it is ending, or it failed to start. Not waited for long.)
      const timer = new Promise((r) => setTimeout(r, 1000).unref?.());
      await Promise.race([once(c, 'exit').catch(() => {}), once(c, 'error').catch(() => {}), timer]);
    }
    if (c.signalCode) return `was killed by ${c.signalCode}`;
    if (c.exitCode !== null) return `exited with code ${c.exitCode}`;
    return c.pid === undefined ? 'could not be started' : 'closed its output';
  }

  /**
   * Child to host: encoded on bytes. A line that is not a message (a banner, a stray log line) is
   * skipped with a note, as wrap does; one over maxMessageBytes ends the session (its request would
   * wait forever). A refused line whose ids can be read is answered as wrap answers it: the host's
   * request gets the error (routed as the server's answer would have been), the server's its own.
   */
  private async *encoded(): AsyncGenerator<Uint8Array> {
    const { o, child } = this;
    const out: Uint8Array[] = [];
    const refused = new RefusedLines(REFUSED_LINE_BYTES, o.maxMessageBytes, (e, line) => {
      const { replies, toOtherSide } = refusalOfLine('server', e, line);
      if (replies) child.stdin!.write(`${messageText(replies)}\n`);
      // (After a '\n' of its own: the spoiled start of the refused line, if one went out, may not be ended yet.)
      for (const m of toOtherSide) out.push(new TextEncoder().encode(`\n${messageText(o.codec.encodeMessage(m))}\n`));
      const told = [replies && 'the server answered', toOtherSide.length && 'the host told'].filter(Boolean).join(', ');
      o.log(`from the server: skipped ${describeInvalid(e)}: not forwarded${told && ` (${told})`}; the session goes on`);
    });
    const encoder = createByteTransformer(
      'encode',
      {
        ...o.codecOptions,
        framing: 'ndjson',
        onInvalidMessage: (e) => {
          if (e.code === 'too-large') throw e;
          refused.refuse(e);
        },
      },
      (b) => out.push(b),
    );
    try {
      for await (const chunk of child.stdout! as AsyncIterable<Uint8Array>) {
        refused.push(chunk, (b) => encoder.push(b));
        yield* out.splice(0);
      }
      encoder.close();
      refused.end();
      yield* out.splice(0);
    } finally {
      encoder.release(); // (the session ended mid-stream: the WASM memory goes back)
    }
  }

  /** One message from the child (encoded): `text` is `bytes` as text when already made. */
  private fromChild(bytes: Uint8Array, value: unknown, text = utf8.decode(bytes)): void {
    this.received++;
    const m = (typeof value === 'object' && value !== null ? value : {}) as {
      id?: unknown;
      method?: unknown;
      params?: { progressToken?: unknown };
    };
    const guard = this.o.guard;
    if (guard?.wants(m)) {
      try {
        guard.learn(this.o.codec.decodeMessage(m));
      } catch {
        // keys that collide once decoded: encoding made them from distinct keys; cannot happen
      }
    }
    if (this.own.isAnswer(m)) {
      let decoded: Error | Message;
      try {
        decoded = this.o.codec.decodeMessage(m) as Message;
      } catch {
        decoded = new Error('its answer could not be decoded');
      }
      this.own.settle(m as Message, decoded);
      return;
    }
    if (isResponseShape(m) && isId(m.id)) {
      const raw = rawIds(text)[0]?.text ?? JSON.stringify(m.id);
      if (this.timer?.answered(raw)) return; // (late: the host was answered)
      const r = this.find(m.id, raw);
      if (r) this.answer(r, text);
      else this.o.log(`from the server: message ${this.received} answers no request in flight (cancelled, or answered before); dropped`);
      return;
    }
    // Progress to the request that asked for it, anything else to the latest request in flight,
    // while the host still reads that request's stream; else the GET stream.
    const token = m.method === 'notifications/progress' ? tokenKey(m.params?.progressToken) : undefined;
    if (token !== undefined) this.timer?.progress(token);
    const asked = token === undefined ? undefined : this.inFlight.find((r) => r.progressToken === token);
    const stream = this.streamFor(asked);
    if (stream === undefined) this.wait(bytes, text, m);
    else {
      this.toldNoStream = false;
      this.send(stream, text);
    }
  }

  /**
   * Where a message that answers nothing goes: the stream of `asked` (the request that asked for
   * progress) or else of the latest request in flight, while the host reads it; else the GET
   * stream; undefined when none is open and no request is in flight.
   */
  private streamFor(asked?: InFlight): string | undefined {
    let stream = asked && this.reachable(asked.stream) ? asked.stream : this.inFlight.findLast((r) => this.reachable(r.stream))?.stream;
    if (stream === undefined && this.reachable(GET_STREAM)) stream = GET_STREAM;
    // With no stream open, a message stays on a request's stream (the one that asked for progress,
    // else the latest in flight), stored for Last-Event-ID, as the SDK keeps a handler's own
    // messages: a GET stream the host never opened could never be resumed.
    return stream ?? (asked ?? this.inFlight.at(-1))?.stream;
  }

  /** No stream open and no request in flight: `text` waits for the next stream the host opens, bounded (false: no room). */
  private hold(text: string): boolean {
    if (this.pending.length >= PENDING_MESSAGES || this.pendingBytes + text.length > PENDING_BYTES) return false;
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (!this.toldNoStream) {
      this.toldNoStream = true; // (once until the host opens one: a chatty server does not flood the log)
      this.o.log('messages from the server outside any request wait for the host to open its GET stream (or a request)');
    }
    return true;
  }

  /** A message from the child that no stream can take: it waits (hold), or is dropped with a line on stderr. */
  private wait(bytes: Uint8Array, text: string, m: { id?: unknown; method?: unknown }): void {
    if (this.hold(text)) return;
    const request = typeof m.method === 'string' && isId(m.id);
    this.o.log(
      `from the server: message ${this.received} (a ${request ? 'request' : 'notification'}, ${bytes.length} bytes) not delivered: ` +
        `the host has no stream open and ${this.pending.length} messages (${this.pendingBytes} characters) already wait for one` +
        (request ? ' (the server answered)' : ''),
    );
    if (request) {
      const error = errorResponse(null, SERVER_ERROR, 'Not delivered: the host has no stream open and too much waits for one');
      this.toChildLines([messageText({ ...error, id: rawIds(text)[0] ?? m.id })]);
    }
  }

  /** What waits for a stream goes out on `stream`, just opened. */
  private flushPending(stream: string): void {
    for (const text of this.pending.splice(0)) this.send(stream, text);
    this.pendingBytes = 0;
    this.toldNoStream = false;
  }
}
