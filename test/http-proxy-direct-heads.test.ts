// The CLI proxy serves its handler without Web objects (cli/node-http.ts listenDirect: the
// request read from the IncomingMessage, heads kept as Fields, the answer written into the
// ServerResponse); createFilteringProxy serves the same handler on Web Request, Headers and
// Response. Held to each other over real sockets, for generated upstream answers (any status
// and status text, bodies or none, repeated and mixed-case fields, cookies, a connection's own
// fields and the ones its Connection header names, requests refused before going up): the
// client gets the same status line, the same fields in the same order, and the same bytes.
import { once } from 'node:events';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../src/cli/node-http.ts';
import { openUpstream } from '../src/cli/node-upstream.ts';
import { runProxy } from '../src/cli/proxy.ts';
import { createFilteringProxy } from '../src/http/proxy.ts';
import { encodeText } from '../src/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { closer, onLoopback } from './http-helpers.ts';
import { bothPaths } from './proxy-paths.ts';

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** What the upstream answers the next request with. */
interface Answer {
  status: number;
  statusText: string;
  fields: [string, string][];
  body: string | null;
}
let answer: Answer = { status: 200, statusText: 'OK', fields: [], body: null };

interface Got {
  status: number;
  statusText: string;
  /** Every field as the client read it, in order, but the Date of the proxy's own clock. */
  fields: string[];
  body: string;
}

function send(url: string, method: string, body: string | undefined, headers: Record<string, string>): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res: IncomingMessage) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const fields: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i]!.toLowerCase() !== 'date') fields.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode!, statusText: res.statusMessage!, fields, body: Buffer.concat(parts).toString('latin1') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const TOKEN = fc.constantFrom('x-one', 'X-Two', 'x-TWO', 'mcp-session-id', 'cache-control', 'vary', 'x-hop', 'link');
/** A field value: words (a term among them, maybe), inner spaces kept; no control characters. */
const VALUE = fc.oneof(
  fc.constantFrom('a', 'b, c', 'no-cache', 'x  y', 'path=/; HttpOnly', ''),
  fragmentString(3).map((t) => t.replace(/[^\x20-\x7e]/g, '').trim()),
);

/** A field of the upstream's head: any of these, repeated or not; a Connection naming some. */
const aField = fc.oneof(
  fc.tuple(TOKEN, VALUE),
  fc.tuple(
    fc.constantFrom('Set-Cookie', 'set-cookie'),
    VALUE.map((v) => `id=${v.replace(/[;,\s]/g, '')}`),
  ),
  fc.tuple(fc.constantFrom('Connection'), fc.constantFrom('keep-alive', 'x-hop', 'X-One, x-hop', 'close')),
  fc.tuple(
    fc.constantFrom('Keep-Alive', 'Proxy-Authenticate', 'Proxy-Connection', 'Upgrade'),
    fc.constantFrom('timeout=5', 'Basic', 'h2c'),
  ),
);

/** A body for the status and type: an event stream, JSON, text, or none. */
const aBody = (status: number) =>
  fc.oneof(
    fc.constant({ type: undefined, body: null }),
    fragmentString(4).map((text) => ({
      type: 'text/event-stream',
      body: `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text } })}\n\n`,
    })),
    fragmentString(4).map((text) => ({ type: 'application/json', body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text } }) })),
    fragmentString(4).map((text) => ({ type: status < 300 ? 'text/plain' : 'text/html', body: `<p>${text}</p>` })),
  );

const anAnswer = fc
  .record({
    status: fc.constantFrom(200, 201, 202, 204, 302, 400, 401, 404, 429, 500, 503),
    statusText: fc.oneof(
      fc.constant(''),
      fc.constantFrom('OK', 'Nope'),
      fragmentString(2).map((t) => t.replace(/[^\x20-\x7e]/g, '')),
    ),
    fields: fc.array(aField, { maxLength: 6 }),
  })
  .chain((head) =>
    aBody(head.status).map(({ type, body }) => ({
      ...head,
      body: head.status === 204 ? null : body,
      fields: type && head.status !== 204 ? [['Content-Type', type] as [string, string], ...head.fields] : head.fields,
    })),
  );

/** The client's request: a POST (a tools/call, its argument holding a term; a notification), a GET, a DELETE; or one refused here. */
const aRequest = fc.oneof(
  fragmentString(4).map((text) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as Record<string, string>,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { q: encodeText(text) } } }),
  })),
  fc.constant({
    method: 'POST',
    headers: { 'content-type': 'application/json', 'Mcp-Session-Id': 's1', Connection: 'keep-alive, x-drop', 'x-drop': '1' },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  }),
  fc.constant({ method: 'GET', headers: { accept: 'text/event-stream' } as Record<string, string>, body: undefined }),
  fc.constant({ method: 'DELETE', headers: { 'mcp-session-id': 's1' } as Record<string, string>, body: undefined }),
  fc.constant({ method: 'POST', headers: { 'content-type': 'application/json' } as Record<string, string>, body: '{"jsonrpc":' }),
  fc.constant({ method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://evil.example' }, body: '{}' }),
);

describe('proxy: served without Web objects, as createFilteringProxy serves the same handler', () => {
  let direct: string;
  let web: string;
  let logs: { node: string[]; fetched: string[] };
  let upstream: Server;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const { status, statusText, fields, body } = answer;
        res.writeHead(status, statusText || undefined, fields.flat());
        res.end(body ?? undefined);
      });
    });
    const upstreamUrl = `${await onLoopback(upstream, cleanup)}/mcp`;
    ({ node: direct, fetched: web, logs } = await bothPaths(upstreamUrl, cleanup));
  });

  it('gives the client the same status line, fields in the same order and bytes, and logs the same lines', async () => {
    await fc.assert(
      fc.asyncProperty(anAnswer, aRequest, async (a, r) => {
        answer = a;
        logs.node.length = logs.fetched.length = 0;
        const viaDirect = await send(direct, r.method, r.body, r.headers);
        const viaWeb = await send(web, r.method, r.body, r.headers);
        expect(viaDirect).toEqual(viaWeb);
        expect(logs.node).toEqual(logs.fetched);
      }),
      runs(60),
    );
  }, 90_000);
});

describe('proxy: an upstream status text a server will not write', () => {
  it('fails the request (500) on every path, the process alive and the upstream let go', { timeout: 10_000 }, async () => {
    // (node:http reads a control character in the status text; writeHead and Response refuse it)
    const conns = new Set<Socket>();
    const open = () => conns.size;
    const upstream = createNetServer((c) => {
      conns.add(c);
      c.on('close', () => void conns.delete(c));
      c.on('error', () => {});
      c.once('data', () => c.write('HTTP/1.1 200 O\x01K\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'));
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    cleanup.push(() => upstream.close());
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
    const logs = { direct: [] as string[], web: [] as string[], fetch: [] as string[] };
    const a = await runProxy({ upstream: upstreamUrl, port: 0, log: (l) => void logs.direct.push(l) });
    cleanup.push(closer(a.server));
    const web = createFilteringProxy({ upstream: upstreamUrl, openStream: openUpstream, onLog: (l) => void logs.web.push(l) });
    const b = await listen(web, '127.0.0.1', 0, (l) => void logs.web.push(l));
    cleanup.push(closer(b.server));
    // (without openStream: fetch reads the same head; its body must be cancelled, not left to undici's body timeout)
    const fetched = createFilteringProxy({ upstream: upstreamUrl, onLog: (l) => void logs.fetch.push(l) });
    const c = await listen(fetched, '127.0.0.1', 0, (l) => void logs.fetch.push(l));
    cleanup.push(closer(c.server));
    logs.direct.length = 0;
    const post = ['POST', '{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-type': 'application/json' }] as const;
    for (const [url, [method, body, headers]] of [a.url, `${b.url}/mcp`, `${c.url}/mcp`].flatMap((u) => [
      [u, ['GET', undefined, { accept: 'text/event-stream' }]] as const,
      [u, post] as const,
    ])) {
      const got = await send(url, method, body, headers);
      expect([got.status, got.body]).toEqual([500, '']);
      // (undici lets a cancelled body's connection go at its next bytes, not before: events come)
      await expect
        .poll(() => {
          for (const conn of conns) conn.write('7\r\ndata: x\r\n');
          return open();
        })
        .toBe(0);
    }
    expect(logs.direct).toEqual(['request failed: TypeError', 'request failed: TypeError']);
    expect(logs.web).toEqual(logs.direct);
    expect(logs.fetch).toEqual(logs.direct);
  });
});
