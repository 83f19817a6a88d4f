// callTimeoutMs on HTTP (createFilteringProxy, createFilteringFetch): the requests of one POST,
// timed from when it is sent (guard/call-timer.ts). The answer to a request is in that POST's
// response, so that response is where a timeout is answered:
//  - no response yet when every request of the POST has timed out: the POST is answered here, a
//    JSON body with the answers (a batch as a batch, with the guard's own answers to it), and
//    the upstream request is aborted;
//  - an event stream: the events go through `timedEvents` before they are encoded: an answer
//    for a request that timed out is added as an event, a late answer taken out (of a batch,
//    only its element), progress restarts its request's timer; once every request is answered
//    and one of them here, the stream ends (the upstream's is cancelled). An upstream stream that
//    ends before its answers is held open until they time out, unless it gave event ids (the
//    client resumes it with Last-Event-ID; that GET is not timed);
//    An event over 1 MiB goes on unread as it comes (as without a time limit: it is not held
//    whole), and ends the timing of the POST's requests (it may be the answer to any of them);
//  - any other response (JSON, an HTTP error) ends the timing: it is the upstream's answer.
// The upstream gets notifications/cancelled for each request timed out, POSTed with the
// session's headers. Answers are written under each id as the client wrote it, and encoded.

import { keepElements } from '../codec/json-spans.js';
import type { OnAudit } from '../guard/audit.js';
import { CallTimer, type TimedOut } from '../guard/call-timer.js';
import type { Message } from '../jsonrpc/message.js';
import { messageText, readMessage } from '../jsonrpc/raw-id.js';
import { concat } from '../util/concat.js';
import { isObject } from '../util/json.js';
import { encodeBytes } from './body.js';
import { eventData } from './guarded.js';
import type { BodyOptions } from './json-body.js';
import { parseBody } from './parsed-body.js';
import type { AbortSignalLike } from './proxy-request.js';

export interface CallTimeoutOptions {
  /**
   * Answer a request the upstream has not answered this long after it was sent (tools/call: an
   * isError result; others: error -32001), POST it notifications/cancelled, drop its late answer.
   */
  callTimeoutMs?: number;
  /** How long progress notifications may keep a request going in all; default 10 times callTimeoutMs. */
  callTimeoutMaxMs?: number;
}

/** What a TimedPost is made with: the limits, and who is told each timeout (the trail). */
type TimedPostOptions = CallTimeoutOptions & { callTimeoutMs: number; onAudit?: OnAudit };

const utf8 = new TextDecoder();
const toBytes = (text: string) => new TextEncoder().encode(text);

/** A progress token's key: the same for the same token in a request and a notification. */
const tokenKey = (token: unknown) => (typeof token === 'string' || typeof token === 'number' ? JSON.stringify(token) : undefined);

/** One POST's requests under a call time limit. */
export class TimedPost {
  readonly timer: CallTimer;
  private readonly due: Message[] = [];
  /** Who waits for the next timeout (the response race, the event stream). */
  private readonly waiters = new Set<() => void>();
  private timedOut = false;
  /** An event went on unread: its requests are no longer timed (it may hold their answers). */
  private unread = false;
  /** The POST is a batch (a reply made here is one too). */
  batch = false;

  constructor(
    o: TimedPostOptions,
    private readonly cancel: (text: string) => void,
    private readonly log?: (line: string) => void,
  ) {
    this.timer = new CallTimer({
      limitMs: o.callTimeoutMs,
      maxMs: o.callTimeoutMaxMs,
      log,
      onAudit: o.onAudit,
      onTimeout: (t: TimedOut) => {
        this.timedOut = true;
        this.due.push(t.answer);
        this.cancel(t.cancel);
        for (const wake of this.waiters) wake();
        this.waiters.clear();
      },
    });
  }

  /** Whether every request is answered, one of them here (the stream can end). */
  get over(): boolean {
    return !this.unread && this.timedOut && this.timer.size === 0;
  }

  /** Whether the events must be read (a request timed, or a late answer awaited). */
  get watching(): boolean {
    return !this.unread && this.timer.watching;
  }

  /**
   * An event too long to hold goes on unread (its bytes are not held whole, as without a time
   * limit): it may be the answer to any request of the POST, so none is timed any more (a
   * timeout after it could answer a request twice).
   */
  passUnread(): void {
    if (this.unread) return;
    this.unread = true;
    if (this.timer.size) this.log?.('--call-timeout: an event over 1 MiB passes unread; the requests of its POST are no longer timed');
    this.stop();
  }

  /** The answers made since last asked. */
  take(): Message[] {
    return this.due.splice(0);
  }

  /**
   * Resolves at the next timeout, never at once (the answers due already are `take`n first: a
   * wait that resolved while some are due would spin).
   */
  next(): Promise<void> {
    return new Promise((resolve) => void this.waiters.add(resolve));
  }

  /** Resolves when every request has timed out (before any response: they all were sent at once). */
  async all(): Promise<void> {
    while (this.timer.size) await this.next();
  }

  stop(): void {
    this.timer.stop();
    this.waiters.clear();
  }
}

/**
 * Times the requests of a decoded POST body, or undefined when there is no limit or no request.
 * `cancel` POSTs one notifications/cancelled upstream.
 */
export function timePost(
  options: CallTimeoutOptions & { onAudit?: OnAudit },
  body: Uint8Array | undefined,
  cancel: (text: string) => void,
  log?: (line: string) => void,
): TimedPost | undefined {
  const { callTimeoutMs } = options;
  if (callTimeoutMs === undefined || !body) return undefined;
  const parsed = parseBody(body);
  if (!parsed) return undefined;
  const { value, ids } = parsed;
  const messages = Array.isArray(value) ? value : [value];
  let timed: TimedPost | undefined;
  messages.forEach((m, k) => {
    const raw = ids[k]?.text;
    if (!isObject(m) || typeof m.method !== 'string' || raw === undefined) return;
    timed ??= new TimedPost({ ...options, callTimeoutMs }, cancel, log);
    timed.batch = Array.isArray(value);
    const params = isObject(m.params) ? m.params : {};
    const token = tokenKey(isObject(params._meta) ? params._meta.progressToken : undefined);
    timed.timer.track(raw, m.method, m.method === 'tools/call' ? String(params.name) : undefined, token);
  });
  return timed;
}

/**
 * Sends the POST; resolves with its response, or 'timed-out' when every request timed out first
 * (the upstream request is then aborted). `signal`: the client's.
 */
export async function sendTimed(
  timed: TimedPost,
  send: (signal: AbortSignal) => Promise<Response>,
  signal: AbortSignalLike | null | undefined,
): Promise<Response | 'timed-out'> {
  const abort = new AbortController();
  const left = () => {
    timed.stop();
    abort.abort(signal?.reason);
  };
  if (signal?.aborted) left();
  signal?.addEventListener('abort', left, { once: true });
  const sending = send(abort.signal);
  sending.catch(() => timed.stop()); // (no response: nothing to time; the caller answers)
  const first = await Promise.race([sending, timed.all().then(() => 'timed-out' as const)]);
  if (first === 'timed-out') {
    signal?.removeEventListener('abort', left);
    abort.abort();
    void sending.then(
      (r) => r.body?.cancel().catch(() => {}),
      () => {},
    );
  }
  return first;
}

/** The answers to a POST whose requests all timed out (with the guard's own, for a batch), as JSON, encoded. */
export async function timedOutReply(timed: TimedPost, guardAnswers: Message[], options: BodyOptions): Promise<Response> {
  const answers = [...guardAnswers, ...timed.take()];
  const text = messageText(timed.batch ? answers : answers[0]);
  return new Response((await encodeBytes(toBytes(text), options)) as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/** The bytes of an event holding one message (its answers before encoding: the encoder encodes them). */
const messageEvent = (m: Message) => toBytes(`event: message\ndata: ${messageText(m)}\n\n`);

/**
 * An event stream (whole events, not encoded yet) with the timeouts of `timed` answered in it and
 * late answers taken out. See the top of this file.
 */
export function timedEvents(events: ReadableStream<Uint8Array>, timed: TimedPost): ReadableStream<Uint8Array> {
  const reader = events.getReader();
  let reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  let ended = false;
  let resumable = false;
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    timed.stop();
    controller.close();
    if (!ended) void reader.cancel().catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const due = timed.take();
          if (due.length) {
            controller.enqueue(concat(due.map(messageEvent)));
            if (timed.over) finish(controller);
            return;
          }
          if (timed.over || (ended && (!timed.timer.size || resumable))) return finish(controller);
          if (ended) {
            await timed.next();
            continue;
          }
          reading ??= reader.read();
          const next = await Promise.race([reading, timed.next().then(() => undefined)]);
          if (!next) continue; // (a timeout: answered above; the read stays pending)
          reading = undefined;
          if (next.done) {
            ended = true;
            continue;
          }
          const kept = timed.watching ? readEvents(next.value, timed, () => (resumable = true)) : next.value;
          if (kept.length) return controller.enqueue(kept);
        }
      },
      cancel(reason) {
        timed.stop();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

const LF = 0x0a;
const CR = 0x0d;

/** The events of a run of whole events: [start, end) of each, its blank line included. */
function eventSpans(bytes: Uint8Array): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  let lineStart = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b !== LF && b !== CR) continue;
    const blank = i === lineStart;
    if (b === CR && bytes[i + 1] === LF) i++;
    lineStart = i + 1;
    if (blank) {
      spans.push([start, i + 1]);
      start = i + 1;
    }
  }
  if (start < bytes.length) spans.push([start, bytes.length]);
  return spans;
}

/** Whole events, seen by the timer: answers settle their requests, progress restarts them, late answers go. */
function readEvents(bytes: Uint8Array, timed: TimedPost, sawId: () => void): Uint8Array {
  const out: Uint8Array[] = [];
  let changed = false;
  for (const [start, end] of eventSpans(bytes)) {
    const event = bytes.subarray(start, end);
    const text = utf8.decode(event);
    const lines = text.split(/\r\n|\r|\n/).filter((l) => l !== '');
    const data = eventData(text)[0]; // (a message event's data, by the SSE field rules)
    if (lines.some((l) => /^id: ?./.test(l))) sawId();
    const kept = data === undefined ? undefined : keptData(data, timed);
    if (kept === undefined || kept === data) out.push(event);
    else {
      changed = true;
      // (an event whose every message was a late answer goes; one with a batch keeps the rest)
      if (kept !== '') out.push(toBytes(`${[...lines.filter((l) => !/^data(:|$)/.test(l)), `data: ${kept}`].join('\n')}\n\n`));
    }
  }
  return changed ? concat(out.length ? out : [new Uint8Array(0)]) : bytes;
}

/** A message event's data without its late answers ('' for none left); `data` itself when unchanged. */
function keptData(data: string, timed: TimedPost): string {
  const read = readMessage(data);
  if (!read) return data; // (the encoder reports it)
  const { value, ids } = read;
  const messages = Array.isArray(value) ? value : [value];
  const keep: number[] = [];
  messages.forEach((m, k) => {
    const raw = ids[k]?.text;
    if (isObject(m) && m.method === 'notifications/progress') {
      const token = tokenKey(isObject(m.params) ? m.params.progressToken : undefined);
      if (token !== undefined) timed.timer.progress(token);
    } else if (isObject(m) && m.method === undefined && raw !== undefined && timed.timer.answered(raw)) return;
    keep.push(k);
  });
  if (keep.length === messages.length) return data;
  if (!Array.isArray(value) || !keep.length) return '';
  return utf8.decode(keepElements(toBytes(data.trim()), keep));
}
