// createFilteringProxy: a reverse proxy in front of an upstream Streamable HTTP server, as a
// Web-standard fetch handler. Requests are decoded on their way up, responses encoded on their
// way down, as they stream (pipeThrough: a slow reader slows the upstream).
import { createCodec } from '../codec/codec.js';
import { inSession } from '../guard/audit.js';
import type { Message } from '../jsonrpc/message.js';
import { SERVER_ERROR } from '../jsonrpc/message.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { assertRoom } from '../stream/work-pool.js';
import { type AccessOptions, withAccess } from './access/index.js';
import { BodyTooLargeError, type Decoded, decodeBytes, readBounded } from './body.js';
import type { CallGuard } from './call-guard.js';
import { type ByteSource, relayedBody, sourceStream } from './event-relay.js';
import type { FetchLike, FilteringFetchOptions } from './fetch.js';
import { hostAllowed, type OriginPolicy, originAllowed } from './guard.js';
import { eventObserver, withAnswers } from './guarded.js';
import type { BodyOptions } from './json-body.js';
import { askUpstream, guardSession } from './list-tools.js';
import { isMemoryFull, memoryFullResponse } from './memory-full.js';
import { collisionOutcome, errorReplies, parseShape, refusalOutcome } from './replies.js';
import { encodedHead, encodeResponse, isJson, mediaType, NULL_BODY, responseKind } from './response.js';
import { sessionGuards } from './session-guards.js';
import { settle, streamEnding } from './settle.js';
import { sendTimed, timedOutReply, timePost } from './timed.js';

export interface FilteringProxyOptions extends FilteringFetchOptions, OriginPolicy, Partial<AccessOptions> {
  /** The upstream MCP endpoint, e.g. https://example.com/mcp. */
  upstream: string | URL;
  /**
   * The path that maps to the upstream endpoint; default '/mcp'. The upstream endpoint's own
   * path maps to it too; any other path goes to the same path at the upstream's origin (OAuth
   * metadata lives there).
   */
  path?: string;
  /** One line per event worth knowing (never payload text); default: none. */
  onLog?: (line: string) => void;
  /**
   * Headers set on every request sent upstream (what the upstream itself needs, such as its own
   * credential). With `authorize`, the client's Authorization header is never forwarded.
   */
  upstreamHeaders?: Readonly<Record<string, string>>;
  /**
   * How the MCP endpoint's requests are sent upstream instead of `fetch` (the Node CLI: node:http
   * over keep-alive connections). Event streams (a GET's, a POST's) are then relayed without Web
   * streams (event-relay.ts), which a server that knows them pipes straight into its response: an
   * idle stream holds a few objects, not fetch's, and a small call makes no stream at all.
   */
  openStream?: OpenStream;
}

/** An upstream response opened by an OpenStream: its head, and its body as a source. */
export interface OpenedStream {
  status: number;
  statusText: string;
  headers: Headers;
  source: ByteSource;
}

/** Sends `method` to `url` with `headers` and `body` (none for a GET); resolves with the response's head. */
export type OpenStream = (url: URL, headers: Headers, signal: AbortSignal, method: string, body?: Uint8Array) => Promise<OpenedStream>;

/** The code the SDK's servers give a request of a session they do not know. */
const SESSION_NOT_FOUND = -32001;

/** Headers that belong to one connection, not to the message (RFC 9110 7.6.1). */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
];

/**
 * Whether a body is a JSON object or array (after a BOM), as a server that does not go by its
 * Content-Type could read it: under a guard, only bodies sent as JSON are read, so one of these
 * sent as another type would pass unread.
 */
function holdsJson(bytes: Uint8Array): boolean {
  // (an ASCII first byte that trim() keeps and no JSON value opens with: the body is not decoded)
  const first = bytes[0];
  if (first === undefined) return false;
  if (first < 0x80 && first !== 0x7b && first !== 0x5b && first !== 0x20 && (first < 0x09 || first > 0x0d)) return false;
  const text = new TextDecoder().decode(bytes).trim();
  if (!/^[{[]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function withoutHopByHop(source: Headers): Headers {
  const headers = new Headers(source);
  for (const name of (source.get('connection') ?? '').split(',')) if (name.trim()) headers.delete(name.trim());
  for (const name of HOP_BY_HOP) headers.delete(name);
  return headers;
}

/** A response's headers as they go to the client: the upstream's body was decompressed, and the server frames the length. */
function downstream(source: Headers): Headers {
  const headers = withoutHopByHop(source);
  headers.delete('content-encoding');
  headers.delete('content-length');
  return headers;
}

export function createFilteringProxy(options: FilteringProxyOptions): (request: Request) => Promise<Response> {
  const {
    upstream: upstreamOption,
    path = '/mcp',
    onLog,
    allowedHosts,
    allowedOrigins,
    fetch: inner,
    guard: mode,
    onGuardLog,
    roots,
    onAudit,
    confirm,
    askUser,
    onStreamError,
    upstreamHeaders = {},
    authorize,
    ratePerSecond,
    maxSessionsPerClient,
    sessionIdleMs,
    sessionSecret,
    guardSessions,
    callTimeoutMs,
    callTimeoutMaxMs,
    openStream,
    ...codec
  } = options;
  const upstream = new URL(upstreamOption);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new TypeError('upstream must be an http: or https: URL');
  createCodec(codec); // (refuses bad codec options now, not at the first request)
  if (!authorize && (ratePerSecond || maxSessionsPerClient || sessionSecret))
    throw new TypeError('ratePerSecond, maxSessionsPerClient and sessionSecret need authorize (they are per credential)');
  const max = codec.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const base: FetchLike = inner ?? ((input, init) => globalThis.fetch(input, init));
  const log = (line: string) => onLog?.(line);
  const bodyOptions: BodyOptions = codec;
  // One guard per MCP session (its own tool list), the sessions without an id sharing one
  // (session-guards.ts: made when the upstream issues the id, kept within bounds, dropped with
  // the session's DELETE). A guard that holds no list asks the upstream as that session.
  const guards = sessionGuards({ guard: mode, guardSessions, roots, onAudit, callTimeoutMs, confirm, askUser }, onGuardLog ?? log);

  /** The client's headers as they go upstream (its session, protocol version, auth), and ours. */
  const sentUpstream = (request: Request): Headers => {
    const headers = withoutHopByHop(request.headers);
    headers.delete('host');
    headers.delete('content-length');
    for (const [name, value] of Object.entries(upstreamHeaders)) headers.set(name, value);
    return headers;
  };

  /** notifications/cancelled for a request that timed out, POSTed upstream in the client's session. */
  const cancelUpstream = (request: Request, url: URL, text: string) => {
    const headers = sentUpstream(request);
    headers.set('content-type', 'application/json');
    base(target(url), { method: 'POST', headers, body: text, redirect: 'manual' }).then(
      (r) => void r.body?.cancel().catch(() => {}),
      () => log('notifications/cancelled not delivered: upstream unreachable'),
    );
  };

  const isEndpoint = (url: URL) => url.pathname === path || url.pathname === upstream.pathname;
  const target = (url: URL): URL => {
    if (isEndpoint(url)) {
      const t = new URL(upstream);
      if (url.search) t.search = url.search;
      return t;
    }
    // The path set on a copy of the origin, never parsed as a reference: `//evil.example/x`
    // (or `/.//evil.example/x`, which a URL parser turns into it) would name another host.
    const t = new URL(upstream.origin);
    t.pathname = url.pathname;
    t.search = url.search;
    return t;
  };

  const jsonError = async (status: number, code: number, message: string, headers: HeadersInit = {}) => {
    const { body } = await errorReplies({ batch: false, items: [] }, code, message, bodyOptions);
    return new Response(body as Uint8Array<ArrayBuffer>, { status, headers: { 'content-type': 'application/json', ...headers } });
  };

  // WASM memory full: 503 for the request that meets it (checked before anything is forwarded,
  // so that nothing reaches the upstream whose answer could not be passed on), never a 500. Its
  // body is left unread (the answer closes the connection).
  const memoryFull = (request: Request) => {
    log(`${request.method} refused: WASM memory is full (503)`);
    return memoryFullResponse();
  };
  // Host and Origin first, before the access layer too: a name this proxy does not answer to
  // gets no protected resource metadata naming it, and no challenge pointing there.
  const hostOrOriginRefused = (request: Request): Promise<Response> | undefined => {
    // The Host header when the server passes it, else the host the URL was built from.
    if (!hostAllowed(request.headers.get('host') ?? new URL(request.url).host, allowedHosts)) {
      log(`${request.method} refused: Host not allowed (403)`);
      return jsonError(403, SERVER_ERROR, 'Forbidden: Host header not allowed');
    }
    if (!originAllowed(request.headers.get('origin'), allowedOrigins)) {
      log(`${request.method} refused: Origin not allowed (403)`);
      return jsonError(403, SERVER_ERROR, 'Forbidden: Origin not allowed');
    }
    return undefined;
  };
  const truncated = (method: string) => () => log(`${method} upstream event stream ended inside an event; ended at the last whole event`);
  const toldRefused = (method: string, e: unknown) => {
    // (encoder errors name the message and byte, never its content)
    log(`${method} upstream response refused: ${(e as Error).name}: ${(e as Error).message}`);
    onStreamError?.(e);
  };
  // A GET event stream opened by openStream, relayed as encodeResponse, wholeEvents and settle
  // read one (event-relay.ts). Made out here: what the relay holds for the stream's life is
  // only what it needs, not the request handler's scope.
  // A POST's stream also ends with an error for each of its requests when an event is refused (settle.ts).
  const relayed = (
    method: string,
    source: ByteSource,
    guard: CallGuard | undefined,
    response: Response,
    original: Uint8Array | undefined,
  ): Response => {
    const body = relayedBody(source, {
      codec: bodyOptions,
      maxEventBytes: max,
      onTruncated: truncated(method),
      observe: guard && eventObserver(guard),
      onRefused: (e) => toldRefused(method, e),
      ending: original && ((e) => streamEnding(original, e, bodyOptions)),
    });
    const head = encodedHead(response, bodyOptions);
    return new Response(body, { ...head, headers: downstream(head.headers) });
  };
  const handler = async (request: Request): Promise<Response> => {
    assertRoom();
    const url = new URL(request.url);
    const notHere = hostOrOriginRefused(request);
    if (notHere) return notHere;
    // (after the Host and Origin checks: a refused request makes no guard)
    const session = request.headers.get('mcp-session-id');
    const guard = request.method === 'DELETE' ? undefined : guards?.get(session);
    const tooLarge = () => {
      log(`${request.method} refused: body over ${max} bytes (413)`);
      return jsonError(413, -32600, `Request body larger than ${max} bytes`, { connection: 'close' });
    };
    const declared = Number(request.headers.get('content-length'));
    if (declared > max) {
      void request.body?.cancel().catch(() => {});
      return tooLarge();
    }
    let body: Uint8Array | undefined;
    let original: Uint8Array | undefined;
    let answers: Message[] = [];
    let reply: Response | undefined;
    if (request.body && request.method !== 'GET' && request.method !== 'HEAD') {
      try {
        original = body = await readBounded(request.body, max);
      } catch (e) {
        if (e instanceof BodyTooLargeError) return tooLarge();
        throw e;
      }
      if (request.method === 'POST' && isJson(mediaType(request.headers.get('content-type')))) {
        let decoded: Decoded;
        try {
          decoded = await decodeBytes(original, bodyOptions);
        } catch (e) {
          if (isMemoryFull(e)) throw e;
          log(`${request.method} refused: ${(e as Error).message} (400)`); // (names the place, never the content)
          return jsonError(400, -32700, `Parse error: ${(e as Error).message}`);
        }
        body = decoded.bytes;
        if (decoded.refused) log(`${request.method} refused: ${decoded.refused.message}; not forwarded`); // (the place, never the content)
        const outcome = decoded.collision
          ? await collisionOutcome(original, decoded.collision, bodyOptions)
          : decoded.refused && (await refusalOutcome(original, decoded.refused, bodyOptions));
        if (outcome) {
          if (outcome.reply) {
            if (decoded.collision) log(`${request.method} answered here: keys collide after decoding (-32602)`);
            reply = new Response(outcome.reply.body as Uint8Array<ArrayBuffer>, {
              status: outcome.reply.status,
              headers: { 'content-type': 'application/json' },
            });
            if (!outcome.forward) return reply;
          }
          body = outcome.forward!;
        } else if (guard) {
          const ask = askUpstream(base, target(url), sentUpstream(request), max, request.signal);
          const guarded = await guardSession(guards!, session, guard, body, bodyOptions, ask);
          if (!guarded) {
            // (the upstream restarted, or the id is made up)
            log(`${request.method} answered 404: the upstream does not know the session (asked for its tool list)`);
            return jsonError(404, SESSION_NOT_FOUND, 'Session not found');
          }
          answers = guarded.answers;
          reply = guarded.reply;
          if (!guarded.forward) return reply!;
          body = guarded.forward;
        }
      } else if (guard && request.method === 'POST' && holdsJson(original)) {
        log(`${request.method} refused: a JSON body not sent as application/json, which the guard would not read (415)`);
        return jsonError(415, -32000, 'Unsupported Media Type: a JSON body must be sent as application/json');
      }
    }
    const headers = sentUpstream(request);
    // (The requests that go up, timed with a call time limit: timed.ts.)
    const timed =
      request.method === 'POST' && !reply && isEndpoint(url)
        ? timePost(
            { callTimeoutMs, callTimeoutMaxMs, onAudit: onAudit && ((e) => onAudit(inSession(e, session))) },
            body,
            (text) => cancelUpstream(request, url, text),
            log,
          )
        : undefined;
    // The bytes themselves (redirects are not followed here, so nothing needs to resend them):
    // Node's fetch writes them with the headers at once, where a Blob costs a write per part.
    // A request to the endpoint sent by openStream: its body read from `source`, relayed when an event stream.
    let source: ByteSource | undefined;
    const send = async (signal: AbortSignal) => {
      if (!openStream || !isEndpoint(url))
        return base(target(url), {
          method: request.method,
          headers,
          body: body as Uint8Array<ArrayBuffer> | undefined,
          signal,
          redirect: 'manual',
        });
      const opened = await openStream(target(url), headers, signal, request.method, body);
      if (NULL_BODY.has(opened.status)) opened.source.cancel();
      else source = opened.source;
      return new Response(source && sourceStream(source), {
        status: opened.status,
        statusText: opened.statusText,
        headers: opened.headers,
      });
    };
    let response: Response;
    try {
      if (timed) {
        const sent = await sendTimed(timed, send, request.signal);
        if (sent === 'timed-out') {
          log(`${request.method} answered here: no response from the upstream within the call time limit`);
          return timedOutReply(timed, answers, bodyOptions);
        }
        response = sent;
      } else response = await send(request.signal);
    } catch (e) {
      timed?.stop();
      if (request.signal.aborted) return new Response(null, { status: 499 }); // the client left
      const code = (e as { cause?: { code?: unknown } }).cause?.code;
      const reason = typeof code === 'string' ? ` (${code})` : '';
      log(`${request.method} failed: upstream unreachable${reason} (502)`);
      const { body: replies } = await errorReplies(
        original ? parseShape(original) : { batch: false, items: [] },
        SERVER_ERROR,
        `Cannot reach the upstream MCP server at ${upstream.host}${reason}`,
        bodyOptions,
      );
      return new Response(replies as Uint8Array<ArrayBuffer>, { status: 502, headers: { 'content-type': 'application/json' } });
    }
    guards?.answered(session, request.method, response);
    if (reply) {
      // (what passed needs no answer: notifications, or responses to the server's requests)
      await response.body?.cancel().catch(() => {});
      return reply;
    }
    const framing = { endpoint: isEndpoint(url), method: request.method };
    const kind = responseKind(response, framing);
    // (under a call time limit, or with the guard's own answers to add, through Web streams: timed.ts, guarded.ts)
    if (source && kind === 'sse' && !timed && !answers.length) return relayed(request.method, source, guard, response, original);
    const onTruncated = truncated(request.method);
    let failure: unknown;
    const refused = (e: unknown) => {
      failure = e;
      toldRefused(request.method, e);
    };
    const encoded = await encodeResponse(response, { ...bodyOptions, ...framing, guard, timed, onTruncated });
    const filtered = await withAnswers(encoded, answers, bodyOptions, max);
    const down = downstream(filtered.headers);
    const sse = kind === 'sse';
    // An event stream cut short by a refused event ends with an error for each request of the
    // POST: its answer was the refused event or would have come after it, and the host must not
    // wait for its timeout (a request answered before gets a second answer, which clients drop).
    const ending = sse && original ? (e: unknown) => streamEnding(original!, e, bodyOptions) : undefined;
    // A JSON answer's first chunk is read before the headers go (it fails: 502 instead); a body
    // encoded whole (text, errors) or an event stream goes at once, however long it stays open.
    const settled = await settle(filtered.body, (kind === 'json' && response.ok) || kind === 'binary', refused, ending);
    if (settled === 'failed') {
      if (isMemoryFull(failure)) return memoryFull(request);
      const { body: replies } = await errorReplies(
        original ? parseShape(original) : { batch: false, items: [] },
        SERVER_ERROR,
        'The upstream MCP server sent a response that cannot be passed on',
        bodyOptions,
      );
      return new Response(replies as Uint8Array<ArrayBuffer>, { status: 502, headers: { 'content-type': 'application/json' } });
    }
    return new Response(settled, { status: filtered.status, statusText: filtered.statusText, headers: down });
  };
  const served = async (request: Request): Promise<Response> => {
    try {
      return await handler(request);
    } catch (e) {
      if (isMemoryFull(e)) return memoryFull(request);
      throw e;
    }
  };
  // Who may come in, how often, and whose sessions are whose: before anything reads the request.
  if (!authorize) return served;
  const access = withAccess(served, { authorize, ratePerSecond, maxSessionsPerClient, sessionIdleMs, sessionSecret, onLog });
  return async (request) => {
    const notHere = hostOrOriginRefused(request);
    if (notHere) {
      void request.body?.cancel().catch(() => {});
      return notHere;
    }
    return access(request);
  };
}
