// createFilteringFetch: a fetch for hosts. What the host POSTs is decoded before it leaves;
// what comes back is encoded before the host reads it. Plugs into the SDK's
// StreamableHTTPClientTransport through its `fetch` option.
import type { OnAudit } from '../guard/audit.js';
import { type AuditEntry, inSession } from '../guard/audit.js';
import type { AskUser } from '../guard/confirm.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { decodeBytes, readBounded } from './body.js';
import type { GuardMode } from './call-guard.js';
import type { FetchLike } from './fetch-like.js';
import { type GuardedRequest, withAnswers } from './guarded.js';
import type { BodyOptions } from './json-body.js';
import { askUpstream, guardSession } from './list-tools.js';
import { collisionOutcome, errorAnswer, refusalOutcome, SESSION_NOT_FOUND } from './replies.js';
import { encodeResponse, isJson, mediaType, responseKind } from './response.js';
import { sessionGuards } from './session-guards.js';
import { settle, streamEnding } from './settle.js';
import { type CallTimeoutOptions, sendTimed, timedOutReply, timePost } from './timed.js';

export type { FetchLike } from './fetch-like.js';

export interface FilteringFetchOptions extends BodyOptions, CallTimeoutOptions {
  /** The fetch to wrap; default globalThis.fetch (looked up at each call). */
  fetch?: FetchLike;
  /**
   * Check tool calls before they leave, as `wrap --guard` does: 'all' (unknown tools,
   * arguments that fail the tool's inputSchema, U+FFFD in arguments) or 'tools' (not U+FFFD).
   * A blocked call is answered here with a tool result holding the reason (isError: true).
   */
  guard?: GuardMode | false;
  /** Told why each call was blocked (never argument values). */
  onGuardLog?: (line: string) => void;
  /**
   * With `guard`: the MCP sessions whose tool lists are kept at once (default 4,096; the lists
   * together also within 64 MiB), the least recently used forgotten first. A forgotten list is
   * asked for again when a call needs it.
   */
  guardSessions?: number;
  /**
   * With `guard`: folders the tools may work in (absolute, all POSIX or all Windows). A call
   * whose path argument (README, "What counts as a path") resolves outside every one is
   * blocked; relative paths are taken against the first. Lexical: the server runs elsewhere, so
   * symlinks, mounts and its own mapping of paths are not seen.
   */
  roots?: readonly string[];
  /**
   * With `guard`: told each tools/call judged, allowed or blocked (rule, JSON paths; never an
   * argument's value), before its answer is made or it leaves; `request` is the id as written,
   * `session` the Mcp-Session-Id it was sent with. A throw stops the call (the request fails).
   */
  onAudit?: OnAudit;
  /**
   * With `guard`: calls the user must confirm first (tool names, and 'destructive' for tools
   * annotated `destructiveHint: true` and not `readOnlyHint: true`), asked with `askUser`
   * (`(request: { tool, argumentNames }, signal) => Promise<boolean>`; true lets the call go
   * on). Without `askUser` such a call is blocked: over HTTP the guard cannot ask the client.
   */
  confirm?: readonly string[];
  askUser?: AskUser;
  /**
   * Told when an event stream is cut short because the encoder refused an event (the error
   * names the message and byte, never content); the stream then ends with an error for each
   * request it answers.
   */
  onStreamError?: (error: unknown) => void;
}

/** The parts of a Request that a fetch init carries (so `fetch(url, init)` sends the same). */
function initOf(request: Request): RequestInit {
  return {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    redirect: request.redirect,
    credentials: request.credentials,
    cache: request.cache,
    integrity: request.integrity,
    keepalive: request.keepalive,
    referrer: request.referrer,
    referrerPolicy: request.referrerPolicy,
  };
}

export function createFilteringFetch(options: FilteringFetchOptions = {}): FetchLike {
  const {
    fetch: inner,
    guard: mode,
    onGuardLog,
    onStreamError,
    guardSessions,
    roots,
    onAudit,
    callTimeoutMs,
    callTimeoutMaxMs,
    confirm,
    askUser,
    ...codec
  } = options;
  const max = codec.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const base: FetchLike = inner ?? ((input, init) => globalThis.fetch(input, init));
  // One tool list per MCP session (the wrapper may serve several, one after another when a
  // server restarts); a guard that holds none asks the server as the session.
  const guards = sessionGuards({ guard: mode, guardSessions, roots, onAudit, callTimeoutMs, confirm, askUser }, onGuardLog ?? (() => {}));
  return async (input, init) => {
    // Looked at without building a Request first: that would lock a stream body we pass on.
    const given = input instanceof Request ? input : undefined;
    const method = (init?.method ?? given?.method ?? 'GET').toUpperCase();
    const sent = new Headers(init?.headers ?? given?.headers);
    const response = await pass(input, init, given, method, sent);
    guards?.answered(sent.get('mcp-session-id'), method, response);
    return response;
  };

  async function pass(
    input: string | URL | Request,
    init: RequestInit | undefined,
    given: Request | undefined,
    method: string,
    sent: Headers,
  ): Promise<Response> {
    const type = mediaType(sent.get('content-type'));
    const hasBody = init?.body != null || (init?.body === undefined && given?.body != null);
    const rpc = method === 'POST' && hasBody && isJson(type);
    // The MCP endpoint: what the transport sends there (OAuth requests accept JSON only, and
    // carry no session).
    const endpoint = rpc || (sent.get('accept') ?? '').includes('text/event-stream') || sent.has('mcp-session-id');
    const session = sent.get('mcp-session-id');
    const guard = method === 'DELETE' ? undefined : guards?.get(session);
    const responseOptions = { ...codec, guard, endpoint, method };
    if (!rpc) return encodeResponse(await base(input, init), responseOptions);
    const request = new Request(input, init); // (a normalised view: headers, body)
    const original = await readBounded(request.body, max);
    const decoded = await decodeBytes(original, codec);
    let body = decoded.bytes;
    let answers: GuardedRequest['answers'] = [];
    let reply: Response | undefined;
    // Not sent: answered here, as the server would answer an invalid request (responses in it
    // go to the server as errors: it asked).
    const outcome = decoded.collision
      ? await collisionOutcome(original, decoded.collision, codec)
      : decoded.refused && (await refusalOutcome(original, decoded.refused, codec));
    if (outcome) {
      if (outcome.reply) {
        reply = new Response(outcome.reply.body as Uint8Array<ArrayBuffer>, {
          status: outcome.reply.status,
          headers: { 'content-type': 'application/json' },
        });
        if (!outcome.forward) return reply;
      }
      body = outcome.forward!;
    } else if (guard) {
      const ask = askUpstream(base, request.url, request.headers, max, request.signal);
      const guarded = await guardSession(guards!, session, guard, body, codec, ask);
      // (the server's own answer to the asking is no message: a 404 as the SDK's servers give)
      if (!guarded) return errorAnswer(404, SESSION_NOT_FOUND, 'Session not found', original, codec);
      answers = guarded.answers;
      reply = guarded.reply;
      if (!guarded.forward) return reply!;
      body = guarded.forward;
    }
    const headers = new Headers(request.headers);
    headers.delete('content-length'); // (fetch sets the new one)
    const forward: RequestInit = input instanceof Request ? initOf(request) : { ...init };
    forward.headers = headers;
    // A Blob, not the bytes: fetch can send it again after a 307/308 (Node's fetch detaches the
    // buffer of a typed-array body, and then fails to follow the redirect).
    forward.body = new Blob([body as Uint8Array<ArrayBuffer>]);
    const to = input instanceof Request ? request.url : input;
    const cancel = (text: string) => {
      const h = new Headers(headers);
      h.set('content-type', 'application/json');
      base(to, { method: 'POST', headers: h, body: text }).then(
        (r) => void r.body?.cancel().catch(() => {}),
        () => onGuardLog?.('notifications/cancelled not delivered: the server is unreachable'),
      );
    };
    // (The requests that go, timed with a call time limit: timed.ts.)
    const audit = onAudit && ((e: AuditEntry) => onAudit(inSession(e, session)));
    const timed = reply ? undefined : timePost({ callTimeoutMs, callTimeoutMaxMs, onAudit: audit }, body, cancel, onGuardLog);
    let response: Response;
    if (timed) {
      const sent = await sendTimed(timed, (signal) => base(to, { ...forward, signal }), forward.signal);
      if (sent === 'timed-out') return timedOutReply(timed, answers, codec);
      response = sent;
    } else response = await base(to, forward);
    if (reply) {
      // (what passed needs no answer: notifications, or responses to the server's requests)
      await response.body?.cancel().catch(() => {});
      return reply;
    }
    const filtered = await withAnswers(await encodeResponse(response, { ...responseOptions, timed }), answers, codec, max);
    if (responseKind(response, responseOptions) !== 'sse') return filtered;
    // An event stream the encoder refuses part-way ends with an error for each request (settle.ts).
    const settled = await settle(filtered.body, false, onStreamError ?? (() => {}), (e) => streamEnding(original, e, codec));
    return new Response(settled as ReadableStream<Uint8Array> | null, {
      status: filtered.status,
      statusText: filtered.statusText,
      headers: filtered.headers,
    });
  }
}
