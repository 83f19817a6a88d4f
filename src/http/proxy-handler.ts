// The request handler createFilteringProxy returns, in its three steps: the request's body read,
// decoded and judged (the guard, collisions, refusals); the request sent upstream, timed under a
// call time limit; the response encoded on its way down (a relayed event stream, or Web streams
// with the guard's own answers added). Every refusal answers with a reason and, where the
// request had ids, errors under them as written. It reads and answers transport-neutral
// requests (proxy-request.ts): a relayed event stream, or a head with no body, goes to the
// server as it is (the Node CLI writes it without Web objects); the rest as Web Responses.
import { type Codec, createCodec } from '../codec/codec.js';
import { inSession } from '../guard/audit.js';
import type { Message } from '../jsonrpc/message.js';
import { SERVER_ERROR } from '../jsonrpc/message.js';
import { assertRoom } from '../stream/work-pool.js';
import { bodyFollows } from './access/body-follows.js';
import { BodyTooLargeError, type Decoded, decodeNow, holdsJson } from './body.js';
import type { CallGuard } from './call-guard.js';
import type { FetchLike } from './fetch.js';
import { NameCheck } from './guard.js';
import type { BodyOptions } from './json-body.js';
import { askUpstream, guardSession } from './list-tools.js';
import { isMemoryFull, memoryFullResponse } from './memory-full.js';
import { encodedAnswer } from './proxy-encoded.js';
import { downstream, type Fields, keptFields, type ListedFields, toHeaders, withoutHopByHop } from './proxy-headers.js';
import type { OpenedStream, ProxyOptions } from './proxy-options.js';
import { type RelaySettings, relayedAnswer, StreamNotes } from './proxy-relayed.js';
import { type AbortSignalLike, type Answer, abortSignalOf, type ProxyRequest } from './proxy-request.js';
import { UpstreamTargets } from './proxy-target.js';
import { asResponse, UnwritableHead, type Upstream, writable } from './proxy-upstream.js';
import { answerLimit, collisionOutcome, errorAnswer, refusalOutcome, SESSION_NOT_FOUND } from './replies.js';
import { headKind, isJson, mediaType, NULL_BODY } from './response.js';
import type { SessionGuards } from './session-guards.js';
import { sendTimed, type TimedPost, timedOutReply, timePost } from './timed.js';

/** Sent with an answer given before the body was read: the rest of the body is not read (a 403, a 413). */
const CLOSE = { connection: 'close' };

/** The client's fields that are not sent up: the server frames the length, and names the upstream's host. */
const NOT_UP = ['host', 'content-length'];

/** What goes upstream once the body is read: its bytes, and the answers given here already. */
interface Prepared {
  body: Uint8Array | undefined;
  /** The body as the client sent it (a request's ids as written, for errors in its name). */
  original: Uint8Array | undefined;
  /** The guard's own answers, added to the upstream's. */
  answers: Message[];
  /** The answer given here when nothing that goes upstream needs one. */
  reply: Response | undefined;
}

/** One request's place: its URL, its MCP session and that session's guard. */
interface At {
  request: ProxyRequest;
  url: URL;
  session: string | null;
  guard: CallGuard | undefined;
  /** The body as the client sent it, once read. */
  original?: Uint8Array;
}

/** The options the handler reads (createFilteringProxy has checked them). */
export interface ProxySettings {
  upstream: URL;
  options: ProxyOptions;
  base: FetchLike;
  bodyOptions: BodyOptions;
  max: number;
  guards: SessionGuards | undefined;
  log: (line: string) => void;
}

/** An opened stream as the handler takes it: a status that has no body lets its source go. */
function bodiless(up: OpenedStream): Upstream {
  if (!NULL_BODY.has(up.status)) return up;
  up.source.cancel();
  return { status: up.status, statusText: up.statusText, headers: up.headers, source: undefined };
}

export class ProxyHandler {
  private readonly upstream: URL;
  private readonly targets: UpstreamTargets;
  private readonly o: ProxyOptions;
  private readonly base: FetchLike;
  private readonly bodyOptions: BodyOptions;
  private readonly max: number;
  private readonly guards: SessionGuards | undefined;
  private readonly log: (line: string) => void;
  /** The codec of bodyOptions, made once (status texts). */
  private readonly codec: Codec;
  private readonly relay: RelaySettings;
  /** upstreamHeaders as pairs, listed once (createFilteringProxy checked them when made). */
  private readonly ours: [string, string][];
  private readonly names: NameCheck;

  constructor(s: ProxySettings) {
    this.codec = createCodec(s.bodyOptions);
    this.upstream = s.upstream;
    this.targets = new UpstreamTargets(s.upstream, s.options.path ?? '/mcp');
    this.o = s.options;
    this.names = new NameCheck(s.options);
    this.ours = Object.entries(s.options.upstreamHeaders ?? {});
    this.base = s.base;
    this.bodyOptions = s.bodyOptions;
    this.max = s.max;
    this.guards = s.guards;
    this.log = s.log;
    this.relay = { bodyOptions: s.bodyOptions, max: s.max, codec: this.codec, notes: new StreamNotes(s.log, s.options.onStreamError) };
  }

  /** The client's headers as they go upstream (its session, protocol version, auth), and ours. */
  private sentUpstream(request: ProxyRequest): Fields {
    const headers = withoutHopByHop(request.headers, NOT_UP);
    for (const [name, value] of this.ours) headers.set(name, value);
    return headers;
  }

  /**
   * sentUpstream for a request forwarded at once: with no fields of ours to add (the usual
   * case), the client's read through a view rather than copied (the request is not changed).
   */
  private forwardedHead(request: ProxyRequest): ListedFields {
    return this.ours.length ? this.sentUpstream(request) : keptFields(request.headers, NOT_UP);
  }

  /** notifications/cancelled for a request that timed out, POSTed upstream in the client's session. */
  private cancelUpstream(request: ProxyRequest, url: URL, text: string): void {
    const headers = this.sentUpstream(request);
    headers.set('content-type', 'application/json');
    this.base(this.targets.target(url), { method: 'POST', headers: toHeaders(headers), body: text, redirect: 'manual' }).then(
      (r) => void r.body?.cancel().catch(() => {}),
      () => this.log('notifications/cancelled not delivered: upstream unreachable'),
    );
  }

  /** An error answer, encoded (replies.ts errorAnswer). */
  private jsonError(
    status: number,
    code: number,
    message: string,
    original?: Uint8Array,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return errorAnswer(status, code, message, original, this.bodyOptions, headers);
  }

  // WASM memory full: 503 for the request that meets it (checked once its body is read, before
  // anything is forwarded, so that nothing reaches the upstream whose answer could not be passed
  // on), never a 500; under its requests' ids when its body was read (`original`).
  private memoryFull(request: { method: string }, original?: Uint8Array): Response {
    this.log(`${request.method} refused: WASM memory is full (503)`);
    return memoryFullResponse(original, answerLimit(this.bodyOptions));
  }

  // Host and Origin first, before the access layer too: a name this proxy does not answer to
  // gets no protected resource metadata naming it, and no challenge pointing there. A body is
  // dropped unread and, when one follows the head, the connection closed with it, as for a 413
  // (and as the access layer refuses): kept open, the server would read whatever a client went on
  // sending, until its request time limit.
  hostOrOriginRefused(request: ProxyRequest): Promise<Response> | undefined {
    // The Host header when the server passes it, else the host the URL was built from.
    const what = this.names.refused(request.headers.get('host') ?? request.url.host, request.headers.get('origin'));
    if (!what) return undefined;
    this.log(`${request.method} refused: ${what === 'Origin' ? 'Origin' : 'Host'} not allowed (403)`);
    request.body?.drop();
    return this.jsonError(403, SERVER_ERROR, `Forbidden: ${what} not allowed`, undefined, bodyFollows(request.headers) ? CLOSE : {});
  }

  /**
   * The request's answer; WASM memory full anywhere in it, a 503 (under its requests' ids once its
   * body was read). A small call awaits only its body and its upstream's head: the steps between
   * run at once (an async step each cost a frame and a turn per call).
   */
  async handle(request: ProxyRequest): Promise<Answer> {
    let at: At | undefined;
    try {
      const notHere = this.hostOrOriginRefused(request);
      if (notHere) return await notHere;
      // (after the Host and Origin checks: a refused request makes no guard)
      const session = request.headers.get('mcp-session-id');
      at = { request, url: request.url, session, guard: request.method === 'DELETE' ? undefined : this.guards?.get(session) };
      const declared = Number(request.headers.get('content-length'));
      if (declared > this.max) {
        request.body?.drop();
        return await this.tooLarge(request);
      }
      if (request.body) {
        try {
          at.original = await request.body.read(this.max);
        } catch (e) {
          if (e instanceof BodyTooLargeError) return await this.tooLarge(request);
          throw e;
        }
      }
      assertRoom(); // (after the body, read in JS: a 503 answers under its requests' ids)
      const ready = at.original ? this.prepare(at, at.original) : { body: undefined, original: undefined, answers: [], reply: undefined };
      const prepared = ready instanceof Promise ? await ready : ready;
      return prepared instanceof Response ? prepared : await this.forward(at, prepared);
    } catch (e) {
      if (isMemoryFull(e)) return this.memoryFull(request, at?.original);
      throw e;
    }
  }

  private tooLarge(request: ProxyRequest): Promise<Response> {
    this.log(`${request.method} refused: body over ${this.max} bytes (413)`);
    return this.jsonError(413, -32600, `Request body larger than ${this.max} bytes`, undefined, CLOSE);
  }

  /** Decodes a JSON POST's body, answering here what must not go upstream; at once unless a collision, refusal or guard has more to ask. */
  private prepare(at: At, original: Uint8Array): Prepared | Response | Promise<Prepared | Response> {
    const { request, guard } = at;
    const p: Prepared = { body: original, original, answers: [], reply: undefined };
    if (request.method === 'POST' && isJson(mediaType(request.headers.get('content-type')))) {
      let decoded: Decoded;
      try {
        decoded = decodeNow(original, this.bodyOptions);
      } catch (e) {
        if (isMemoryFull(e)) throw e;
        this.log(`${request.method} refused: ${(e as Error).message} (400)`); // (names the place, never the content)
        return this.jsonError(400, -32700, `Parse error: ${(e as Error).message}`);
      }
      p.body = decoded.bytes;
      if (decoded.refused) this.log(`${request.method} refused: ${decoded.refused.message}; not forwarded`); // (the place, never the content)
      if (decoded.collision || decoded.refused || guard) return this.judged(at, p, decoded);
    } else if (guard && request.method === 'POST' && holdsJson(original)) {
      this.log(`${request.method} refused: a JSON body not sent as application/json, which the guard would not read (415)`);
      // (under its requests' ids as written, as a 502: the body is JSON, its ids readable)
      return this.jsonError(415, SERVER_ERROR, 'Unsupported Media Type: a JSON body must be sent as application/json', original);
    }
    return p;
  }

  /** What prepare answers for a decoded body that collides or was refused, or that the guard reads. */
  private async judged(at: At, p: Prepared, decoded: Decoded): Promise<Prepared | Response> {
    const { request, url, session, guard } = at;
    const original = p.original!;
    const outcome = decoded.collision
      ? await collisionOutcome(original, decoded.collision, this.bodyOptions)
      : decoded.refused && (await refusalOutcome(original, decoded.refused, this.bodyOptions));
    if (outcome) {
      if (outcome.reply) {
        if (decoded.collision) this.log(`${request.method} answered here: keys collide after decoding (-32602)`);
        p.reply = new Response(outcome.reply.body as Uint8Array<ArrayBuffer>, {
          status: outcome.reply.status,
          headers: { 'content-type': 'application/json' },
        });
        if (!outcome.forward) return p.reply;
      }
      p.body = outcome.forward!;
    } else if (guard) {
      const ask = askUpstream(this.base, this.targets.target(url), () => toHeaders(this.sentUpstream(request)), this.max, request.signal);
      const guarded = await guardSession(this.guards!, session, guard, p.body!, this.bodyOptions, ask);
      if (!guarded) {
        // (the upstream restarted, or the id is made up)
        this.log(`${request.method} answered 404: the upstream does not know the session (asked for its tool list)`);
        return this.jsonError(404, SESSION_NOT_FOUND, 'Session not found', original);
      }
      p.answers = guarded.answers;
      p.reply = guarded.reply;
      if (!guarded.forward) return p.reply!;
      p.body = guarded.forward;
    }
    return p;
  }

  /**
   * Sends the request upstream (timed under a call time limit) and answers with what comes back:
   * the answer made as the upstream's head comes, in the same turn (`received`, `unsent`).
   */
  private forward(at: At, p: Prepared): Promise<Answer> {
    const { request, url } = at;
    const { callTimeoutMs, callTimeoutMaxMs, onAudit, openStream } = this.o;
    const headers = this.forwardedHead(request);
    // (The requests that go up, timed with a call time limit: timed.ts.)
    const timed =
      request.method === 'POST' && !p.reply && this.targets.isEndpoint(url)
        ? timePost(
            { callTimeoutMs, callTimeoutMaxMs, onAudit: onAudit && ((e) => onAudit(inSession(e, at.session))) },
            p.body,
            (text) => this.cancelUpstream(request, url, text),
            this.log,
          )
        : undefined;
    const opens = openStream !== undefined && this.targets.isEndpoint(url);
    let sent: Promise<Upstream | 'timed-out'>;
    try {
      if (timed) {
        const send = async (signal: AbortSignal) => asResponse(await this.ask(request, url, headers, p.body, opens, signal));
        sent = sendTimed(timed, send, request.signal);
      } else if (opens) {
        // (a small call's path: its head checked in the same step as the answer is made)
        const up = openStream(this.targets.target(url), headers, request.signal, request.method, p.body);
        return up.then(
          (opened) => this.received(at, p, writable(bodiless(opened)), undefined),
          (e: unknown) => this.unsent(at, p, e, undefined),
        );
      } else sent = this.ask(request, url, headers, p.body, opens, request.signal);
    } catch (e) {
      sent = Promise.reject(e);
    }
    return sent.then(
      (up) => {
        if (up !== 'timed-out') return this.received(at, p, up, timed);
        this.log(`${request.method} answered here: no response from the upstream within the call time limit`);
        return timedOutReply(timed!, p.answers, this.bodyOptions);
      },
      (e: unknown) => this.unsent(at, p, e, timed),
    );
  }

  /** The answer when the request did not get through: the client left (499), or the upstream is unreachable (502). */
  private unsent(at: At, p: Prepared, e: unknown, timed: TimedPost | undefined): Promise<Answer> | Answer {
    const { request } = at;
    timed?.stop();
    if (e instanceof UnwritableHead) throw e; // (the upstream answered: not unreachable)
    if (request.signal.aborted) return new Response(null, { status: 499 }); // the client left
    const code = (e as { cause?: { code?: unknown } }).cause?.code;
    const reason = typeof code === 'string' ? ` (${code})` : '';
    this.log(`${request.method} failed: upstream unreachable${reason} (502)`);
    return this.jsonError(502, SERVER_ERROR, `Cannot reach the upstream MCP server at ${this.upstream.host}${reason}`, p.original);
  }

  /** The answer once the upstream's head came: its reply when the request needed none, else the upstream's, encoded. */
  private received(at: At, p: Prepared, upstream: Upstream, timed: TimedPost | undefined): Answer | Promise<Answer> {
    this.guards?.answered(at.session, at.request.method, upstream);
    if (p.reply) {
      // (what passed needs no answer: notifications, or responses to the server's requests)
      const reply = p.reply;
      if (!(upstream instanceof Response)) upstream.source?.cancel();
      else if (upstream.body)
        return upstream.body.cancel().then(
          () => reply,
          () => reply,
        );
      return reply;
    }
    return this.answer(at, p, upstream, timed);
  }

  /**
   * The request sent upstream: by openStream to the endpoint (its body read from the source,
   * relayed when an event stream), else by fetch: the bytes themselves (redirects are not
   * followed here, so nothing needs to resend them; Node's fetch writes them with the headers at
   * once, where a Blob costs a write per part). Its head checked as it comes, before any
   * Response is made of it: one place for both paths.
   */
  private async ask(
    request: ProxyRequest,
    url: URL,
    headers: ListedFields,
    body: Uint8Array | undefined,
    opens: boolean,
    signal: AbortSignalLike,
  ): Promise<Upstream> {
    const target = this.targets.target(url);
    if (opens) return writable(bodiless(await this.o.openStream!(target, headers, signal, request.method, body)));
    return writable(
      await this.base(target, {
        method: request.method,
        headers: toHeaders(headers),
        body: body as Uint8Array<ArrayBuffer> | undefined,
        signal: abortSignalOf(signal),
        redirect: 'manual',
      }),
    );
  }

  /** The upstream's response as it goes to the client: encoded, with the guard's answers added. */
  private answer(at: At, p: Prepared, upstream: Upstream, timed: TimedPost | undefined): Answer | Promise<Answer> {
    const { request, url, guard } = at;
    const framing = { endpoint: this.targets.isEndpoint(url), method: request.method };
    const kind = headKind(upstream, upstream instanceof Response ? upstream.body !== null : upstream.source !== undefined, framing);
    if (!(upstream instanceof Response)) {
      // (under a call time limit, or with the guard's own answers to add, through Web streams: timed.ts, guarded.ts)
      if (kind === 'sse' && !timed && !p.answers.length)
        return relayedAnswer(this.relay, request.method, upstream.source!, guard, upstream, p.original);
      // (no body: nothing to encode, no answers to add; the head as it came, less the connection's fields)
      if (kind === 'none')
        return { status: upstream.status, statusText: upstream.statusText, headers: downstream(upstream.headers), body: null };
    }
    const failed = (e: unknown) =>
      isMemoryFull(e)
        ? this.memoryFull(request, p.original)
        : this.jsonError(502, SERVER_ERROR, 'The upstream MCP server sent a response that cannot be passed on', p.original);
    return encodedAnswer(this.relay, { method: request.method, guard, original: p.original, answers: p.answers }, upstream, {
      timed,
      framing,
      kind,
      failed,
    });
  }
}
