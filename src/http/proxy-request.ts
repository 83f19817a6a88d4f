// The proxy's request and answer as its handler (proxy-handler.ts) reads and gives them, apart
// from any transport: createFilteringProxy adapts a Web Request to one and its answer to a
// Response; the Node CLI adapts an IncomingMessage and writes the answer into its
// ServerResponse (cli/node-http.ts), so that a small call through it makes no Request, Response
// or Web stream. One handler, so one judgement, for both.
import { readBounded } from './body.js';
import { type RelayedBody, relayedBody } from './event-relay.js';
import { type HeadFields, toHeaders } from './proxy-headers.js';

/**
 * What the handler and an OpenStream read of a signal that the client left: an AbortSignal is
 * one. The Node CLI gives a lighter one per request (cli/node-request.ts): an AbortController and
 * the listeners added to it through Node's EventTarget were the largest item a small call
 * triggered in Node's code beyond what the bare pass-through pays.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** `like` as an AbortSignal (itself when it is one), for what takes only those: fetch, a Web Request. */
export function abortSignalOf(like: AbortSignalLike): AbortSignal {
  if (like instanceof AbortSignal) return like;
  const controller = new AbortController();
  if (like.aborted) controller.abort(like.reason);
  else like.addEventListener('abort', () => controller.abort(like.reason), { once: true });
  return controller.signal;
}

/** A request's body, read at most once. */
export interface RequestBody {
  /** The body whole; past `limit` bytes it rejects with BodyTooLargeError (the rest is dropped unread). */
  read(limit: number): Promise<Uint8Array>;
  /** Drops the body unread (a request refused from its head). */
  drop(): void;
}

export interface ProxyRequest {
  readonly method: string;
  /** The request's URL; its host is the server's placeholder (the Host header is checked). */
  readonly url: URL;
  readonly headers: HeadFields;
  /** Aborted when the client leaves. */
  readonly signal: AbortSignalLike;
  /** None for a GET or HEAD. */
  readonly body: RequestBody | null;
}

/** An answer a server writes as it is: its head, and no body or a relayed event stream (event-relay.ts). */
export interface DirectAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeadFields;
  readonly body: RelayedBody | null;
}

/** What the handler answers: a Web Response (bodies made of Web streams), or one written directly. */
export type Answer = Response | DirectAnswer;

/** A Web Request as the handler reads it. */
export function fromRequest(request: Request): ProxyRequest {
  const { body } = request;
  return {
    method: request.method,
    url: new URL(request.url),
    headers: request.headers,
    signal: request.signal,
    body:
      body && request.method !== 'GET' && request.method !== 'HEAD'
        ? { read: (limit) => readBounded(body, limit), drop: () => void body.cancel().catch(() => {}) }
        : null,
  };
}

/** An answer as a Web Response (a relayed event stream as a body a Node server can still take whole: takeRelay). */
export function toResponse(answer: Answer): Response {
  if (answer instanceof Response) return answer;
  const { status, statusText, headers, body } = answer;
  try {
    return new Response(body && relayedBody(body), { status, statusText, headers: toHeaders(headers) });
  } catch (e) {
    body?.cancel(); // (a head a Response will not take: the upstream let go, not held unread)
    throw e;
  }
}
