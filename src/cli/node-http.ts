// A Web-standard fetch handler behind Node's http server: IncomingMessage to Request,
// Response to ServerResponse, with backpressure both ways and cancellation when the client
// leaves. Small enough to keep here rather than add a dependency.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { takeRelay } from '../http/event-relay.js';
import { isMemoryFull, memoryFullResponse } from '../http/memory-full.js';

export type Handler = (request: Request) => Promise<Response>;

/** How long a response's head waits for its body's first bytes before it goes alone (default). */
const HEAD_WAIT_MS = 20;

export interface ServeOptions {
  /** How long a response's head waits for its body's first bytes before it goes alone; default 20 ms. */
  headWaitMs?: number;
}

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

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  // The URL's host is only a placeholder: the handler checks the Host header itself.
  const url = new URL(req.url ?? '/', 'http://localhost');
  const body = req.method === 'GET' || req.method === 'HEAD' ? null : bodyOf(req);
  return new Request(url, { method: req.method, headers, body, signal, duplex: 'half' } as RequestInit);
}

/** Waits for 'drain' or 'close', whichever comes first, leaving no listener behind. */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function send(
  response: Response,
  res: ServerResponse,
  onError: (line: string) => void,
  headWaitMs: number,
  detach?: () => void,
): Promise<void> {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers.push([name, value]);
  });
  for (const cookie of response.headers.getSetCookie()) headers.push(['set-cookie', cookie]);
  res.writeHead(response.status, response.statusText || undefined, headers.flat());
  if (!response.body) return void res.end();
  // What is written in one turn of the event loop goes out in one write (headers, events, the
  // end): a small answer costs one system call, not three.
  let corked = false;
  const coalesce = () => {
    if (corked) return;
    corked = true;
    res.cork();
    setImmediate(() => {
      corked = false;
      res.uncork();
    });
  };
  // The head goes with the body's first bytes, in one write, as a bare pass-through sends it:
  // the upstream flushes its head before its first event, and a head written alone cost every
  // small POST a system call and a wake-up of the client. If no bytes come within headWaitMs
  // it goes alone (an event stream's headers go out before its first event, however late).
  let started = false;
  const head = setTimeout(() => {
    if (!started && !res.destroyed) res.flushHeaders();
  }, headWaitMs);
  head.unref();
  const start = () => {
    if (started) return;
    started = true;
    clearTimeout(head);
  };
  // A relayed event stream (http/event-relay.ts): piped in without a Web stream between.
  const take = takeRelay(response.body);
  if (take) {
    detach?.(); // (the request's abort signal is not needed: the relay lets the upstream go itself)
    const relay = take({
      write(chunk) {
        start();
        coalesce();
        return res.write(chunk);
      },
      end() {
        start();
        coalesce();
        res.end();
      },
    });
    res.on('drain', () => relay.resume());
    res.once('close', () => relay.cancel());
    if (res.destroyed) relay.cancel(); // (the client left before its answer was ready)
    return;
  }
  const reader = response.body.getReader();
  const left = () => reader.cancel().catch(() => {});
  res.once('close', left);
  if (res.destroyed) void left();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      start();
      coalesce();
      if (!res.write(value)) {
        await drainOrClose(res);
        if (res.destroyed) return;
      }
    }
    start();
    coalesce();
    res.end();
  } catch (e) {
    onError(`response body failed: ${(e as Error).name}`);
    res.destroy(); // the client sees the connection end, not a clean end
  } finally {
    start(); // (a body that failed or was left: no head after it)
    res.off('close', left);
  }
}

/** Serves `handler` on host:port (port 0: any free port); resolves once listening. */
export async function listen(
  handler: Handler,
  host: string,
  port: number,
  onError: (line: string) => void,
  { headWaitMs = HEAD_WAIT_MS }: ServeOptions = {},
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const controller = new AbortController();
    const left = () => {
      if (!res.writableFinished) controller.abort();
    };
    res.once('close', left);
    let request: Request;
    try {
      request = toRequest(req, controller.signal);
    } catch {
      res.writeHead(400).end();
      return;
    }
    handler(request)
      .then((response) => send(response, res, onError, headWaitMs, () => res.off('close', left)))
      .catch((e: unknown) => {
        onError(`request failed: ${(e as Error).name}`);
        // (WASM memory full is the process's limit, not a fault: 503, retry later)
        if (!res.headersSent && isMemoryFull(e)) void send(memoryFullResponse(), res, onError, headWaitMs);
        else if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  });
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${shown}:${address.port}` };
}
