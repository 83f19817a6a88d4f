// createFilteringFetch: a fetch for hosts. What the host POSTs is decoded before it leaves;
// what comes back is encoded before the host reads it. Plugs into the SDK's
// StreamableHTTPClientTransport through its `fetch` option.
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { decodeBytes, readBounded } from './body.js';
import { CallGuard, type GuardMode } from './call-guard.js';
import { guardRequest, withAnswers } from './guarded.js';
import type { BodyOptions } from './json-body.js';
import { collisionOutcome, refusalOutcome } from './replies.js';
import { encodeResponse, isJson, mediaType } from './response.js';
import { settle, streamEnding } from './settle.js';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface FilteringFetchOptions extends BodyOptions {
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
  const { fetch: inner, guard: mode, onGuardLog, onStreamError, ...codec } = options;
  const max = codec.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const base: FetchLike = inner ?? ((input, init) => globalThis.fetch(input, init));
  const guard = mode ? new CallGuard(mode, onGuardLog) : undefined;
  return async (input, init) => {
    // Looked at without building a Request first: that would lock a stream body we pass on.
    const given = input instanceof Request ? input : undefined;
    const method = (init?.method ?? given?.method ?? 'GET').toUpperCase();
    const sent = new Headers(init?.headers ?? given?.headers);
    const type = mediaType(sent.get('content-type'));
    const hasBody = init?.body != null || (init?.body === undefined && given?.body != null);
    const rpc = method === 'POST' && hasBody && isJson(type);
    // The MCP endpoint: what the transport sends there (OAuth requests accept JSON only, and
    // carry no session).
    const endpoint = rpc || (sent.get('accept') ?? '').includes('text/event-stream') || sent.has('mcp-session-id');
    const responseOptions = { ...codec, guard, endpoint };
    if (!rpc) return encodeResponse(await base(input, init), responseOptions);
    const request = new Request(input, init); // (a normalised view: headers, body)
    const original = await readBounded(request.body, max);
    const decoded = await decodeBytes(original, codec);
    let body = decoded.bytes;
    let answers: Awaited<ReturnType<typeof guardRequest>>['answers'] = [];
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
      const guarded = await guardRequest(guard, body, codec);
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
    const response = await base(input instanceof Request ? request.url : input, forward);
    if (reply) {
      // (what passed needs no answer: notifications, or responses to the server's requests)
      await response.body?.cancel().catch(() => {});
      return reply;
    }
    const filtered = await withAnswers(await encodeResponse(response, responseOptions), answers, codec, max);
    if (mediaType(filtered.headers.get('content-type')) !== 'text/event-stream') return filtered;
    // An event stream the encoder refuses part-way ends with an error for each request (settle.ts).
    const settled = await settle(filtered.body, false, onStreamError ?? (() => {}), (e) => streamEnding(original, e, codec));
    return new Response(settled as ReadableStream<Uint8Array> | null, {
      status: filtered.status,
      statusText: filtered.statusText,
      headers: filtered.headers,
    });
  };
}
