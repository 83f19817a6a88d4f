// `proxy` holds GET event streams over node:http, relayed without fetch or Web streams
// (http/event-relay.ts, cli/node-upstream.ts). Held to the fetch path it replaces: the same
// handler without `openStream`, on the same server code. Over real sockets, for generated event
// streams (terms, every line ending, comments and ids, a BOM, events the encoder refuses, any
// chunking, bodies cut inside an event), the client gets the same bytes and the proxy logs the
// same lines. A client that leaves lets the upstream connection go.
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openUpstream } from '../src/cli/node-upstream.js';
import { runProxy } from '../src/cli/proxy.js';
import { encodeText } from '../src/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { closer, onLoopback } from './http-helpers.ts';
import { bothPaths, chunked, play, type Script } from './proxy-paths.ts';

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** What the upstream does with the next GET. */
let script: Script = { chunks: [], cut: false };

/** GETs `url` as an SDK client does; resolves with every byte it got and how the body ended. */
function get(url: string): Promise<{ status: number; body: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream' }, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('close', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts), complete: res.complete }));
    });
    req.on('error', reject);
    req.end();
  });
}

const utf8 = new TextEncoder();
const END = fc.constantFrom('\n', '\r\n', '\r');

/** One event: a message (a term in its text) or not JSON, any type, with the lines around it SSE allows. */
const anEvent = fc
  .record({
    text: fragmentString(8),
    json: fc.boolean(),
    type: fc.constantFrom(undefined, 'message', 'other'),
    typeAfter: fc.boolean(),
    comment: fc.boolean(),
    id: fc.option(fc.nat(99)),
    end: END,
  })
  .map(({ text, json, type, typeAfter, comment, id, end }) => {
    const data = json
      ? JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: text } })
      : `{"jsonrpc":"2.0","method":${text.replace(/[\r\n]/g, ' ')}`; // (not JSON: refused, the stream ends there)
    const lines = [
      ...(comment ? [': keep-alive'] : []),
      ...(id !== null ? [`id: ${id}`] : []),
      ...(type && !typeAfter ? [`event: ${type}`] : []),
      `data: ${data}`,
      ...(type && typeAfter ? [`event: ${type}`] : []),
    ];
    return lines.map((l) => l + end).join('') + end;
  });

/** A stream: a BOM or not, events, cut anywhere into chunks, maybe cut short. */
const aStream = fc
  .record({
    bom: fc.boolean(),
    events: fc.array(anEvent, { minLength: 1, maxLength: 6 }),
    cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
    cutAt: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
  })
  .map(({ bom, events, cuts, cutAt }) => ({
    chunks: chunked(utf8.encode((bom ? '\uFEFF' : '') + events.join('')), cuts, cutAt),
    cut: cutAt !== null,
  }));

describe('proxy: GET event streams held over node:http', () => {
  let held: string; // runProxy: openStream, the relay piped into the response
  let fetched: string; // the same handler and server without openStream: fetch and Web streams
  let logs: { node: string[]; fetched: string[] };
  let upstreamUrl: string;
  let upstream: Server;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (req.method === 'GET') return void play(res, script);
      res.writeHead(405).end();
    });
    upstreamUrl = `${await onLoopback(upstream, cleanup)}/mcp`;
    ({ node: held, fetched, logs } = await bothPaths(upstreamUrl, cleanup));
  });

  it('gives the client the bytes the fetch path gives, and logs the same lines', async () => {
    // (a fixed case first: a term in a message, encoded on both)
    script = { chunks: [utf8.encode('event: message\ndata: {"jsonrpc":"2.0","method":"m","params":{"t":"qwen"}}\n\n')], cut: false };
    const fixed = await get(held);
    expect(fixed.body.toString()).toContain(encodeText('qwen'));
    await fc.assert(
      fc.asyncProperty(aStream, async (s) => {
        script = s;
        logs.node.length = logs.fetched.length = 0;
        const a = await get(held);
        const b = await get(fetched);
        expect(a.status).toBe(b.status);
        expect(a.complete).toBe(b.complete);
        expect(a.body.toString('latin1')).toBe(b.body.toString('latin1'));
        expect(logs.node).toEqual(logs.fetched);
      }),
      runs(30),
    );
  }, 60_000);

  it('lets the upstream connection go when the client leaves', async () => {
    const closed: Promise<unknown>[] = [];
    const up = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"m"}\n\n');
      closed.push(once(req.socket, 'close'));
    });
    const url = `${await onLoopback(up, cleanup)}/mcp`;
    const proxy = await runProxy({ upstream: url, port: 0, log: () => {} });
    cleanup.push(closer(proxy.server));
    for (let i = 0; i < 3; i++) {
      // The client reads the first event, then leaves.
      await new Promise<void>((resolve, reject) => {
        const req = request(proxy.url, { headers: { accept: 'text/event-stream' }, agent: false }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', reject);
        req.end();
      });
    }
    // Each upstream connection closes (a hang fails the test at its timeout), and none is left.
    await Promise.all(closed);
    const open = await new Promise<number>((r, j) => up.getConnections((e, n) => (e ? j(e) : r(n))));
    expect(open).toBe(0);
  }, 10_000);

  it('lets the upstream request go when the client leaves before its answer has a head (a POST, a GET)', async () => {
    let asked!: () => void;
    const closed: Promise<unknown>[] = [];
    const up = createServer((req) => {
      closed.push(once(req.socket, 'close')); // (and never answers)
      asked();
    });
    const url = `${await onLoopback(up, cleanup)}/mcp`;
    const proxy = await runProxy({ upstream: url, port: 0, log: () => {} });
    cleanup.push(closer(proxy.server));
    for (const method of ['POST', 'GET']) {
      const upstreamAsked = new Promise<void>((r) => {
        asked = r;
      });
      const headers = method === 'POST' ? { 'content-type': 'application/json' } : { accept: 'text/event-stream' };
      const req = request(proxy.url, { method, headers, agent: false });
      req.on('error', () => {});
      req.end(method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : undefined);
      await upstreamAsked;
      req.destroy();
    }
    // Each upstream connection closes (a hang fails the test at its timeout), and none is left.
    await Promise.all(closed);
    const open = await new Promise<number>((r, j) => up.getConnections((e, n) => (e ? j(e) : r(n))));
    expect(open).toBe(0);
  }, 10_000);

  it('tells a body cut before its reader starts (a response held meanwhile, as the access layer holds one to sign its session id)', async () => {
    let cut!: () => void;
    const up = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"jsonrpc":"2.0",');
      cut = () => res.socket!.destroy();
    });
    const url = `${await onLoopback(up, cleanup)}/mcp`;
    const opened = await openUpstream(new URL(url), new Headers({ accept: 'text/event-stream' }), new AbortController().signal);
    cut();
    await new Promise((r) => setTimeout(r, 100)); // (the connection is gone before anyone reads)
    const how = await new Promise<string>((resolve) => {
      opened.source.start({ data: () => {}, end: () => resolve('end'), error: () => resolve('error') });
      setTimeout(() => resolve('nothing: the body would be waited for for ever'), 2000);
    });
    expect(how).toBe('error');
  });
});
