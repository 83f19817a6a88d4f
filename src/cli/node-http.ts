// A Web-standard fetch handler behind Node's http server: IncomingMessage to Request,
// Response to ServerResponse, with backpressure both ways and cancellation when the client
// leaves (the request side: node-request.ts). Small enough to keep here rather than add a
// dependency. The proxy's own handler (http/proxy-request.ts) is served without the Web
// objects: its request read straight from the IncomingMessage, its answer written straight
// into the ServerResponse (a relayed event stream piped in), so that a small call makes no
// Request, Response or Web stream.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ByteSink, type Relay, takeRelay } from '../http/event-relay.js';
import { isMemoryFull, memoryFullResponse } from '../http/memory-full.js';
import type { HeadFields } from '../http/proxy-headers.js';
import type { Answer, DirectAnswer, ProxyRequest } from '../http/proxy-request.js';
import { type Deadline, Deadlines } from './deadlines.js';
import { ClientLeft, targetCache, toProxyRequest, toRequest } from './node-request.js';

export type Handler = (request: Request) => Promise<Response>;

/** A handler of transport-neutral requests (the proxy's: http/proxy-request.ts). */
export type DirectHandler = (request: ProxyRequest) => Promise<Answer>;

/** How long a response's head waits for its body's first bytes before it goes alone (default). */
const HEAD_WAIT_MS = 20;

export interface ServeOptions {
  /** How long a response's head waits for its body's first bytes before it goes alone; default 20 ms. */
  headWaitMs?: number;
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

/** A head's fields as writeHead takes them, Set-Cookie one field each (as Headers holds them). */
function fieldsOf(headers: HeadFields): string[] {
  const fields: string[] = [];
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') fields.push(name, value);
  });
  for (const cookie of headers.getSetCookie()) fields.push('set-cookie', cookie);
  return fields;
}

/**
 * How a body's writes go out. What is written in one turn of the event loop goes out in one
 * write (headers, events, the end): a small answer costs one system call, not three. The head
 * goes with the body's first bytes, in one write, as a bare pass-through sends it: the upstream
 * flushes its head before its first event, and a head written alone cost every small POST a
 * system call and a wake-up of the client. If no bytes come within headWaitMs of `waitForBody`
 * it goes alone (an event stream's headers go out before its first event, however late).
 * Between `hold` and `release` the writes are held for the caller to send at once, with no
 * turn waited for: a relayed body that had all come is written whole there.
 */
function bodyWrites(res: ServerResponse, headWaits: Deadlines) {
  let corked = false;
  let held = false;
  const coalesce = () => {
    if (corked || held) return;
    corked = true;
    res.cork();
    setImmediate(() => {
      corked = false;
      res.uncork();
    });
  };
  let started = false;
  let head: Deadline | undefined;
  const settled = () => {
    if (started) return;
    started = true;
    headWaits.clear(head);
  };
  return {
    hold() {
      held = true;
      res.cork();
    },
    release() {
      held = false;
      res.uncork(); // (after an end, which uncorks all, nothing left)
    },
    /** Sends the head alone if no bytes come within headWaitMs. */
    waitForBody() {
      if (started) return;
      head = headWaits.set(() => {
        if (!started && !res.destroyed) res.flushHeaders();
      });
    },
    write() {
      settled();
      coalesce();
    },
    settled,
  };
}

/** A relayed event stream (http/event-relay.ts) piped into the response, without a Web stream between. */
function pipeRelay(start: (sink: ByteSink) => Relay, res: ServerResponse, headWaits: Deadlines): void {
  const writes = bodyWrites(res, headWaits);
  writes.hold();
  let relay: Relay;
  try {
    relay = start({
      write(chunk) {
        writes.write();
        return res.write(chunk);
      },
      end() {
        writes.write();
        res.end();
      },
    });
  } finally {
    writes.release();
  }
  if (res.writableEnded) return; // (all written at once: nothing to wait for)
  writes.waitForBody();
  res.on('drain', () => relay.resume());
  res.on('close', () => relay.cancel()); // (it comes once)
  if (res.destroyed) relay.cancel(); // (the client left before its answer was ready)
}

async function send(
  response: Response,
  res: ServerResponse,
  onError: (line: string) => void,
  headWaits: Deadlines,
  detach?: () => void,
): Promise<void> {
  res.writeHead(response.status, response.statusText || undefined, fieldsOf(response.headers));
  if (!response.body) return void res.end();
  const take = takeRelay(response.body);
  if (take) {
    detach?.(); // (the request's abort signal is not needed: the relay lets the upstream go itself)
    return pipeRelay(take, res, headWaits);
  }
  const writes = bodyWrites(res, headWaits);
  writes.waitForBody();
  const reader = response.body.getReader();
  const left = () => reader.cancel().catch(() => {});
  res.once('close', left);
  if (res.destroyed) void left();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      writes.write();
      if (!res.write(value)) {
        await drainOrClose(res);
        if (res.destroyed) return;
      }
    }
    writes.write();
    res.end();
  } catch (e) {
    onError(`response body failed: ${(e as Error).name}`);
    res.destroy(); // the client sees the connection end, not a clean end
  } finally {
    writes.settled(); // (a body that failed or was left: no head after it)
    res.off('close', left);
  }
}

/** An answer written as it is: its head alone, or with a relayed stream's first bytes. */
function sendDirect(answer: DirectAnswer, res: ServerResponse, headWaits: Deadlines, detach: () => void): void {
  const { body } = answer;
  try {
    res.writeHead(answer.status, answer.statusText || undefined, fieldsOf(answer.headers));
  } catch (e) {
    // A status text node:http read but will not write (a control character), which a Response
    // would not take either: the request fails (500) as on the Web path, the upstream let go.
    // (writeHead keeps the text it refused, and would refuse the 500 with it.)
    res.statusMessage = '';
    body?.cancel();
    throw e;
  }
  if (!body) return void res.end();
  detach(); // (as in send: the relay lets the upstream go itself)
  pipeRelay((sink) => body.start(sink), res, headWaits);
}

/** Serves `handler` on host:port (port 0: any free port); resolves once listening. */
export function listen(
  handler: Handler,
  host: string,
  port: number,
  onError: (line: string) => void,
  options: ServeOptions = {},
): Promise<{ server: Server; url: string }> {
  return serveOn((req, left) => handler(toRequest(req, left)), host, port, onError, options);
}

/** Serves a handler of transport-neutral requests (the proxy's) on host:port, with no Web objects per call. */
export function listenDirect(
  handler: DirectHandler,
  host: string,
  port: number,
  onError: (line: string) => void,
  options: ServeOptions = {},
): Promise<{ server: Server; url: string }> {
  const targetOf = targetCache();
  return serveOn((req, left) => handler(toProxyRequest(req, left, targetOf(req))), host, port, onError, options);
}

async function serveOn(
  answer: (req: IncomingMessage, left: ClientLeft) => Promise<Answer>,
  host: string,
  port: number,
  onError: (line: string) => void,
  { headWaitMs = HEAD_WAIT_MS }: ServeOptions,
): Promise<{ server: Server; url: string }> {
  const headWaits = new Deadlines(headWaitMs); // (one timer for the server's answers: deadlines.ts)
  const server = createServer((req, res) => {
    const gone = new ClientLeft();
    const left = () => {
      if (!res.writableFinished) gone.abort();
    };
    res.on('close', left); // (it comes once)
    const detach = () => res.off('close', left);
    let answered: Promise<Answer>;
    try {
      answered = answer(req, gone);
    } catch {
      res.writeHead(400).end();
      return;
    }
    answered
      .then((a) => (a instanceof Response ? send(a, res, onError, headWaits, detach) : sendDirect(a, res, headWaits, detach)))
      .catch((e: unknown) => {
        onError(`request failed: ${(e as Error).name}`);
        // (WASM memory full is the process's limit, not a fault: 503, retry later)
        if (!res.headersSent && isMemoryFull(e)) void send(memoryFullResponse(), res, onError, headWaits);
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
