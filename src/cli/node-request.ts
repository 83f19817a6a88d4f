// A Node IncomingMessage as the handlers read it: a Web Request (its body a Web stream with
// backpressure, its signal aborted when the client leaves), or the proxy's own ProxyRequest
// (the body read whole, no Web objects). Served by node-http.ts.
import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError } from '../http/body.js';
import { Fields } from '../http/proxy-headers.js';
import { type AbortSignalLike, abortSignalOf, type ProxyRequest, type RequestBody } from '../http/proxy-request.js';
import { concat } from '../util/concat.js';

/**
 * The request body as a Web stream, with backpressure. Not Readable.toWeb: on Node 20 a stream
 * cancelled before its data arrives (a request refused from its headers: 401, 413, 429) throws
 * from the next 'data' event ("Controller is already closed"), which killed the process.
 * Cancelled, the rest of the body is read and dropped.
 */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk: Buffer) => {
          if (!open) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once('end', () => {
          if (open) controller.close();
          open = false;
        });
        req.once('error', (e) => {
          if (open) controller.error(e);
          open = false;
        });
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        open = false;
        req.resume();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/** The request's head, as `into` keeps one (Web Headers for a Request; Fields for the proxy's handler). */
function headersOf<H extends { append(name: string, value: string): void }>(req: IncomingMessage, into: H): H {
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) into.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  return into;
}

/** The URL's host is only a placeholder: the handler checks the Host header itself. */
const urlOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://localhost');

/**
 * urlOf, a URL parse saved while the target is the last one (a client sends the same one on
 * every call; the proxy's handler only reads it). One per server, not one per module: servers
 * in one process would evict each other's target and hand one server's URL object to another.
 */
export function targetCache(): (req: IncomingMessage) => URL {
  let last: { raw: string | undefined; url: URL } = { raw: '/', url: new URL('/', 'http://localhost') };
  return (req) => {
    if (req.url !== last.raw) last = { raw: req.url, url: urlOf(req) };
    return last.url;
  };
}

const hasBody = (req: IncomingMessage) => req.method !== 'GET' && req.method !== 'HEAD';

export function toRequest(req: IncomingMessage, left: ClientLeft): Request {
  const body = hasBody(req) ? bodyOf(req) : null;
  const headers = headersOf(req, new Headers());
  return new Request(urlOf(req), { method: req.method, headers, body, signal: abortSignalOf(left), duplex: 'half' } as RequestInit);
}

/**
 * That the client left, as the proxy's handler reads it (an AbortSignalLike): a flag and a short
 * list, where an AbortController per request made an EventTarget, and each listener added or
 * taken off went through its checks (in a profile of small calls, Node's largest cost we add).
 * As an AbortSignal's: aborted once, with an AbortError as its reason; listeners told in order,
 * each once; one that throws is reported as uncaught, after the others are told.
 */
export class ClientLeft implements AbortSignalLike {
  aborted = false;
  reason: unknown = undefined;
  /** The first listener (a small call has one at a time: its upstream request's), no list made for it. */
  private first: (() => void) | undefined;
  /** The listeners after it, in order; empty whenever `first` is. */
  private more: (() => void)[] | undefined;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted || listener === this.first || this.more?.includes(listener)) return;
    // (no first means none after it either: removeEventListener moves the next up)
    if (this.first === undefined) this.first = listener;
    else if (this.more) this.more.push(listener);
    else this.more = [listener];
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (listener === this.first) {
      // (the next in order takes its place, so that the order stays as added)
      this.first = this.more?.shift();
      return;
    }
    const i = this.more ? this.more.indexOf(listener) : -1;
    if (i >= 0) this.more!.splice(i, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.first ? [this.first, ...(this.more ?? [])] : (this.more ?? []);
    this.first = undefined;
    this.more = undefined;
    for (const listener of listeners)
      try {
        listener();
      } catch (e) {
        process.nextTick(() => {
          throw e;
        });
      }
  }
}

/** Request body chunks under this size (after the first) are copied into blocks of BLOCK_BYTES. */
const SMALL_CHUNK = 4 * 1024;
const BLOCK_BYTES = 16 * 1024;

/**
 * The request body read whole from the IncomingMessage, as bodyOf's reader reads it: past the
 * limit the rest is read and dropped; a body cut short (the client left) fails the read.
 */
function wholeBody(req: IncomingMessage): RequestBody {
  return {
    read: (limit) =>
      new Promise((resolve, reject) => {
        const parts: Uint8Array[] = [];
        let size = 0;
        // Small chunks after the first are copied into blocks: kept one by one, a body trickled a
        // byte a chunk held a Buffer and a view per byte (~200-300 bytes of heap each).
        let block: Uint8Array | undefined;
        let used = 0;
        const flush = () => {
          if (block && used) parts.push(block.subarray(0, used));
          block = undefined;
          used = 0;
        };
        const done = () => {
          req.off('data', data);
          req.off('end', end);
          req.off('error', reject);
          req.off('close', cut);
        };
        const data = (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > limit) {
            done();
            req.resume();
            return reject(new BodyTooLargeError(limit));
          }
          if (chunk.byteLength >= SMALL_CHUNK || (!parts.length && !block)) {
            flush();
            parts.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            return;
          }
          if (!block || used + chunk.byteLength > block.length) {
            flush();
            block = new Uint8Array(Math.min(BLOCK_BYTES, limit));
          }
          block.set(chunk, used);
          used += chunk.byteLength;
        };
        const end = () => {
          done();
          flush();
          resolve(parts.length ? concat(parts) : new Uint8Array(0));
        };
        const cut = () => {
          done();
          reject(new Error('request body ended before its end'));
        };
        if (req.destroyed) return reject(new Error('request body ended before its end')); // (its 'close' has been)
        // (`on`, not `once`: done() takes them off, and a `once` wraps each listener, per call)
        req.on('data', data);
        req.on('end', end);
        req.on('error', reject);
        req.on('close', cut);
      }),
    drop: () => void req.resume(),
  };
}

/** The request as the proxy's handler reads it, without a Web Request, stream or AbortSignal. */
export function toProxyRequest(req: IncomingMessage, signal: AbortSignalLike, url: URL): ProxyRequest {
  const headers = headersOf(req, new Fields());
  return { method: req.method ?? 'GET', url, headers, signal, body: hasBody(req) ? wholeBody(req) : null };
}
