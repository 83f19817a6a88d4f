// The upstream requests of the proxy's MCP endpoint (its OpenStream, http/proxy.ts: GET event
// streams and POSTs), made with node:http or node:https over keep-alive connections instead of
// fetch: a response's body is a ByteSource (http/event-relay.ts) that the relay reads without
// Web streams. As fetch would: redirects are not followed, bodies are
// decompressed (gzip, deflate, br), and a failure before the response rejects with the
// system error as its `cause`. As fetch's undici does (300 s each by default), an upstream that
// keeps silent too long fails the request: before its response head (rejected, `cause.code`
// UND_ERR_HEADERS_TIMEOUT: the proxy answers 502) or inside its body (the body fails,
// UND_ERR_BODY_TIMEOUT: cut as by the network). A body paused by its reader is not timed: that
// wait is the client's, not the upstream's.
import type { Agent as HttpAgent } from 'node:http';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ByteSource } from '../http/event-relay.js';
import type { OpenedStream } from '../http/proxy.js';
import { Fields, type HeadFields } from '../http/proxy-headers.js';
import type { AbortSignalLike } from '../http/proxy-request.js';
import { type Deadline, Deadlines } from './deadlines.js';
import { agents } from './upstream-agents.js';

const Z_FLUSH = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const BROTLI_FLUSH = { flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH };

/** More codings than fetch (undici) decodes: a hostile list would cost a zlib stream each (35 KiB of RSS once data flows), per response. */
const MAX_CODINGS = 5;

const NONE: readonly Readable[] = [];

/** Decoders for a Content-Encoding list, last applied first; none when one is unknown or they are too many (the body passes as it is). */
function decoders(encoding: string | null): readonly Readable[] {
  if (!encoding) return NONE; // (most answers: no list to split, nor an array made)
  const codings = encoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (codings.length > MAX_CODINGS) return NONE;
  const out: Readable[] = [];
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') out.push(createGunzip(Z_FLUSH));
    else if (coding === 'deflate') out.push(createInflate(Z_FLUSH));
    else if (coding === 'br') out.push(createBrotliDecompress(BROTLI_FLUSH));
    else return NONE;
  }
  return out;
}

const ignore = () => {};
const ONCE = { once: true };

type TargetOptions = Pick<ReturnType<typeof urlToHttpOptions>, 'protocol' | 'hostname' | 'port' | 'path' | 'auth'>;

/** The options of one request: the target's, and the request's own, set just before it is made. */
type RequestOptions = TargetOptions & { method: string; headers: string[] | Record<string, string> | undefined; agent: HttpAgent };

/** A URL's request options, and the fields node:http would add to a head sent there. */
interface Target {
  /**
   * The options http.request is given, one object for every request to the URL: node:http
   * copies them at once (ClientRequest's Object.assign), so the method and head are set in it
   * just before, and the head taken out after (a spread of them per call was the largest self
   * time of ours in a profile of small calls).
   */
  options: RequestOptions;
  https: boolean;
  /** The Host field as node:http makes it from the options (IPv6 in brackets, a port not the scheme's). */
  host: string;
  /** The Authorization field node:http makes of the URL's userinfo, if any. */
  authorization: string | undefined;
}

/** The Host field node:http's ClientRequest makes of `hostname` and `port` (its own rule, followed to the byte). */
function hostField(hostname: string | null | undefined, port: TargetOptions['port'], defaultPort: number): string {
  let host = hostname || 'localhost';
  const colon = host.indexOf(':');
  if (colon !== -1 && host.includes(':', colon + 1) && host.charCodeAt(0) !== 0x5b) host = `[${host}]`;
  if (port && Number(port) !== defaultPort) host += `:${port}`;
  return host;
}

/**
 * A URL's request options, made once per URL (the proxy sends every call to the same one; it is
 * only read): only those node:http reads, since the agent copies every option into each request's
 * (href, hash, search and pathname cost about 1 KB a call there).
 */
const targetOf = new WeakMap<URL, Target>();
function target(url: URL): Target {
  let t = targetOf.get(url);
  if (!t) {
    const { protocol, hostname, port, path, auth } = urlToHttpOptions(url);
    const https = url.protocol === 'https:';
    const own = { method: 'GET', headers: undefined, agent: agents[https ? 'https:' : 'http:'] };
    const options = auth === undefined ? { protocol, hostname, port, path, ...own } : { protocol, hostname, port, path, auth, ...own };
    const defaultPort = https ? 443 : 80; // (the agents')
    const authorization = auth ? `Basic ${Buffer.from(auth).toString('base64')}` : undefined;
    t = { options, https, host: hostField(hostname, port, defaultPort), authorization };
    targetOf.set(url, t);
  }
  return t;
}

/** Methods node:http frames with chunks by default: sent with no body, it adds `Content-Length: 0` at the end of the head. */
const CHUNKED_BY_DEFAULT = (method: string) =>
  method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' && method !== 'OPTIONS' && method !== 'TRACE' && method !== 'CONNECT';

/**
 * The head's fields as node:http's ClientRequest takes them listed (`[name, value, ...]`: one
 * check each, where an object of them is copied field by field through setHeader), with the Host
 * and Authorization it would have added, where it would have put them; the same bytes either way.
 * Undefined where a list cannot give the same bytes: a name an object would move to the front
 * (one that starts with a digit), or a body-framed method sent with no body.
 */
function fieldList(headers: HeadFields, t: Target, method: string, body: Uint8Array | undefined): string[] | undefined {
  if (!body && CHUNKED_BY_DEFAULT(method)) return undefined;
  const list: string[] = [];
  let cookie = -1; // (as an object of them kept it: Set-Cookie once, at its first place, its last value)
  let listable = true;
  headers.forEach((value, name) => {
    const c = name.charCodeAt(0);
    if (c >= 0x30 && c <= 0x39) listable = false;
    if (name === 'content-length' && body) return; // (as an object of them had it: the body's own length, set after)
    if (name !== 'set-cookie') list.push(name, value);
    else if (cookie >= 0) list[cookie] = value;
    else cookie = list.push(name, value) - 1;
  });
  if (!listable) return undefined;
  if (body) list.push('content-length', String(body.byteLength));
  if (headers.get('host') === null) list.push('Host', t.host);
  if (t.authorization && headers.get('authorization') === null) list.push('Authorization', t.authorization);
  return list;
}

/** The head's fields as an object, for the heads fieldList cannot list. */
function fieldObject(headers: HeadFields, body: Uint8Array | undefined): Record<string, string> {
  const sent: Record<string, string> = {};
  headers.forEach((value, name) => {
    sent[name] = value;
  });
  // (a body's length set here, as fetch sends it: node:http frames a DELETE's or an OPTIONS's
  // body neither by length nor in chunks, so the upstream would read its bytes as a request)
  if (body) sent['content-length'] = String(body.byteLength);
  return sent;
}

/** How long the upstream may keep silent, in ms: before its response head, and between its body's chunks while read. */
export interface UpstreamLimits {
  headersMs: number;
  bodyIdleMs: number;
}

/** undici's headersTimeout and bodyTimeout, which fetch had. */
export const UPSTREAM_LIMITS: UpstreamLimits = { headersMs: 300_000, bodyIdleMs: 300_000 };

/** An opener's limits, each on one timer for all its requests (deadlines.ts). */
interface Timers {
  heads: Deadlines;
  idles: Deadlines;
}

/** An error as undici names its own timeouts (`code`), so the proxy reads both alike. */
const timeout = (code: string, what: string, ms: number) => Object.assign(new Error(`${what} within ${ms} ms`), { code });

/**
 * A response body as a ByteSource; cancelled, the request is destroyed (its connection let go),
 * unless the body has all arrived: then it is drained, and the connection kept for the next.
 */
function sourceOf(response: IncomingMessage, request: ClientRequest, encoding: string | null, idles: Deadlines): ByteSource {
  // (Out here, so that what a held stream keeps is this, not the scope its request was made in.)
  let cancelled = false; // (a drained body's data and end go to no one)
  // The idle limit, armed while the body is read (started, not paused), renewed by each chunk.
  let timer: Deadline | undefined;
  const disarm = () => idles.clear(timer);
  const arm = () => {
    if (ended || failed || cancelled) return;
    if (timer) idles.renew(timer);
    else timer = idles.set(idle);
  };
  const stop = () => {
    disarm();
    cancelled = true;
    if (response.complete) response.resume();
    else request.destroy();
  };
  const chain = decoders(encoding);
  let body: Readable = response;
  for (const d of chain) body = body.pipe(d as unknown as NodeJS.WritableStream) as unknown as Readable;
  // A decoder's error fails the body (the reader is told, as by fetch), then lets the connection
  // go: the decoders after it never end, so nothing else would tell the reader.
  for (const d of chain)
    d.on('error', (e: unknown) => {
      fail(e);
      stop();
    });
  // A body cut short (the connection reset or closed inside it): 'error', or 'close' without 'end'.
  // Listened for from here, not from `start`: the body may be cut before its reader starts (the
  // response held meanwhile: the access layer signs its session id), and these come only once.
  let on: Parameters<ByteSource['start']>[0] | undefined;
  let ended = false;
  let failed = false;
  let failure: unknown;
  const fail = (e: unknown) => {
    if (ended || failed || cancelled) return;
    disarm();
    failed = true;
    failure = e;
    on?.error(e);
  };
  const end = () => {
    ended = true;
    disarm();
    if (!cancelled) on!.end();
  };
  const idle = () => {
    fail(timeout('UND_ERR_BODY_TIMEOUT', 'no more of the upstream body', idles.ms));
    request.destroy();
  };
  // (`on`, not `once`, for events that come once: a `once` wraps each listener, per call.)
  body.on('error', fail);
  // (The error made only when it is one: a stack trace on every clean close cost a call 10-30 µs.)
  body.on('close', () => ended || fail(new Error('upstream body ended before its end')));
  response.on('error', fail);
  response.on('aborted', () => fail(new Error('upstream body aborted')));
  return {
    start(o) {
      on = o;
      if (failed) return o.error(failure);
      // A body that has all come, undecoded (a small call's answer: its head, event and end in
      // one read), is read here at once: no turn for the stream to start flowing, no idle timer,
      // no listener per chunk; the relay writes the answer whole before this returns.
      if (body === response && response.complete && response.readableFlowing === null) {
        const chunk: Buffer | null = response.read(); // (all of it, in one piece)
        if (chunk && !cancelled) o.data(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if (!cancelled && !failed) end();
        return;
      }
      body.on('data', (chunk: Buffer) => {
        if (timer?.set) idles.renew(timer);
        if (!cancelled) o.data(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      body.on('end', end);
      arm();
    },
    pause: () => {
      disarm();
      body.pause();
    },
    resume: () => {
      arm();
      body.resume();
    },
    cancel: stop,
  };
}

/**
 * An OpenStream under `limits`: `method` `url` with `headers` and `body` (sent with the head, in
 * one write); resolves with the response (its body read lazily) and its body as a source.
 */
export const upstreamOpener = (limits: UpstreamLimits = UPSTREAM_LIMITS) => {
  const timers: Timers = { heads: new Deadlines(limits.headersMs), idles: new Deadlines(limits.bodyIdleMs) };
  return (url: URL, headers: HeadFields, signal: AbortSignalLike, method = 'GET', body?: Uint8Array): Promise<OpenedStream> =>
    open(url, headers, signal, method, body, timers);
};

/** An OpenStream under UPSTREAM_LIMITS. */
export const openUpstream = upstreamOpener();

function open(
  url: URL,
  headers: HeadFields,
  signal: AbortSignalLike,
  method: string,
  body: Uint8Array | undefined,
  { heads, idles }: Timers,
): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const t = target(url);
    const o = t.options;
    const head = fieldList(headers, t, method, body) ?? fieldObject(headers, body);
    o.method = method; // (after the head: reading it may run a caller's code, which may open another)
    o.headers = head;
    let req: ClientRequest;
    try {
      req = (t.https ? httpsRequest : httpRequest)(o);
    } finally {
      o.headers = undefined; // (copied: not held past the call)
    }
    const abort = () => req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, ONCE);
    const unreachable = (e: Error) => {
      heads.clear(silent);
      signal.removeEventListener('abort', abort); // (a signal kept for more calls keeps none of this one)
      reject(new TypeError('fetch failed', { cause: e }));
    };
    req.on('error', unreachable);
    const silent = heads.set(() => req.destroy(timeout('UND_ERR_HEADERS_TIMEOUT', 'no response head from the upstream', heads.ms)));
    req.on('response', (res) => {
      // (The body's reader lets it go from here; nothing of this scope is held after.)
      heads.clear(silent);
      signal.removeEventListener('abort', abort);
      req.off('error', unreachable);
      req.on('error', ignore); // (later failures reach the body)
      const received = new Fields();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) received.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
      // (its coding from the fields read here: res.headers would build Node's object of them too)
      const source = sourceOf(res, req, received.get('content-encoding'), idles);
      resolve({ status: res.statusCode ?? 502, statusText: res.statusMessage ?? '', headers: received, source });
    });
    req.end(body); // (the head and the body in one write)
  });
}
