// createFilteringProxy: a reverse proxy in front of an upstream Streamable HTTP server, as a
// Web-standard fetch handler. Requests are decoded on their way up, responses encoded on their
// way down, as they stream (pipeThrough: a slow reader slows the upstream).
import { createCodec } from '../codec/codec.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { withAccess } from './access/index.js';
import type { BodyOptions } from './json-body.js';
import { ProxyHandler } from './proxy-handler.js';
import { isFieldName, isFieldText, normal } from './proxy-headers.js';
import type { FilteringProxyOptions, ProxyOptions } from './proxy-options.js';
import { type Answer, fromRequest, type ProxyRequest, toResponse } from './proxy-request.js';
import { sessionGuards } from './session-guards.js';

export type { FilteringProxyOptions, OpenedStream, OpenStream } from './proxy-options.js';

/** The codec's options among the proxy's (the rest of them). */
function codecOptions(options: ProxyOptions): BodyOptions {
  const {
    upstream,
    path,
    onLog,
    allowedHosts,
    allowedOrigins,
    fetch,
    guard,
    onGuardLog,
    roots,
    onAudit,
    confirm,
    askUser,
    onStreamError,
    upstreamHeaders,
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
  return codec;
}

/**
 * The proxy's handler on transport-neutral requests (proxy-request.ts), for a server that writes
 * its answers itself (the Node CLI); undefined when an access layer must see each request first
 * (it reads Web Requests: the server then takes `web`). `web` is createFilteringProxy's handler.
 */
export function filteringProxy(options: ProxyOptions): {
  direct: ((request: ProxyRequest) => Promise<Answer>) | undefined;
  web: (request: Request) => Promise<Response>;
} {
  const {
    upstream: upstreamOption,
    onLog,
    fetch: inner,
    onGuardLog,
    authorize,
    ratePerSecond,
    maxSessionsPerClient,
    sessionIdleMs,
    sessionSecret,
  } = options;
  const upstream = new URL(upstreamOption);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new TypeError('upstream must be an http: or https: URL');
  // (checked now: a header fetch or node:http refuses would fail every request, a 502 each)
  for (const [name, value] of Object.entries(options.upstreamHeaders ?? {})) {
    if (!isFieldName(name)) throw new TypeError('upstreamHeaders holds a name that is not a header name');
    if (!isFieldText(normal(value))) throw new TypeError(`upstreamHeaders.${name} holds a character a header cannot carry`);
  }
  const codec = codecOptions(options);
  createCodec(codec); // (refuses bad codec options now, not at the first request)
  if (!authorize && (ratePerSecond || maxSessionsPerClient || sessionSecret))
    throw new TypeError('ratePerSecond, maxSessionsPerClient and sessionSecret need authorize (they are per credential)');
  const log = (line: string) => onLog?.(line);
  const { guard: mode, guardSessions, roots, onAudit, callTimeoutMs, confirm, askUser } = options;
  const handler = new ProxyHandler({
    upstream,
    options,
    base: inner ?? ((input, init) => globalThis.fetch(input, init)),
    bodyOptions: codec,
    max: codec.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    // One guard per MCP session (its own tool list), the sessions without an id sharing one
    // (session-guards.ts: made when the upstream issues the id, kept within bounds, dropped with
    // the session's DELETE). A guard that holds no list asks the upstream as that session.
    guards: sessionGuards({ guard: mode, guardSessions, roots, onAudit, callTimeoutMs, confirm, askUser }, onGuardLog ?? log),
    log,
  });
  // (WASM memory full is answered there, a 503)
  const served = (request: ProxyRequest): Promise<Answer> => handler.handle(request);
  const web = async (request: Request) => toResponse(await served(fromRequest(request)));
  // Who may come in, how often, and whose sessions are whose: before anything reads the request.
  if (!authorize) return { direct: served, web };
  const access = withAccess(web, { authorize, ratePerSecond, maxSessionsPerClient, sessionIdleMs, sessionSecret, onLog });
  return {
    direct: undefined,
    web: async (request) => {
      // (a refused request's body is dropped there)
      return handler.hostOrOriginRefused(fromRequest(request)) ?? access(request);
    },
  };
}

export function createFilteringProxy(options: FilteringProxyOptions): (request: Request) => Promise<Response> {
  // (`web` reads Web Requests: the signal a caller's openStream is given is always their AbortSignal)
  return filteringProxy(options as ProxyOptions).web;
}
