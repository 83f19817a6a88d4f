// openUpstream's request options are trimmed to what node:http reads (node-upstream.ts
// requestOptions): the request still goes where the URL says (IPv6 host, port, path prefix,
// query, userinfo as Basic auth) with the Host the URL names; and the per-call listeners do not
// pile up on what outlives a call (the kept-alive socket, the caller's signal).
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openUpstream } from '../src/cli/node-upstream.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function serve(host: string) {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    sockets.add(req.socket);
    seen.push({ url: req.url!, headers: req.headers });
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.listen(0, host);
  await once(server, 'listening');
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { port: (server.address() as AddressInfo).port, seen, sockets };
}

const drain = (opened: Awaited<ReturnType<typeof openUpstream>>) =>
  new Promise<void>((resolve, reject) => opened.source.start({ data: () => {}, end: resolve, error: reject }));

describe('openUpstream, where a request goes', () => {
  it('an IPv6 host with userinfo, a port, a path prefix and a query: that path, that Host, that auth', async () => {
    const { port, seen } = await serve('::1');
    const url = new URL(`http://us%20er:p%40ss@[::1]:${port}/pre/fix/mcp?x=1&y=%20#frag`);
    await drain(await openUpstream(url, new Headers(), new AbortController().signal, 'POST', new TextEncoder().encode('{}')));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/pre/fix/mcp?x=1&y=%20');
    expect(seen[0]!.headers.host).toBe(`[::1]:${port}`);
    expect(seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('us er:p@ss').toString('base64')}`);
    expect(seen[0]!.headers['content-length']).toBe('2');
  });

  it('an IPv4 host without userinfo: its Host with the port, no auth', async () => {
    const { port, seen } = await serve('127.0.0.1');
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    await drain(await openUpstream(url, new Headers(), new AbortController().signal));
    expect(seen[0]!.headers.host).toBe(`127.0.0.1:${port}`);
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });
});

describe('openUpstream, listeners per call', () => {
  it('200 calls over one kept-alive socket and one signal leave no listeners behind on them', async () => {
    const { port, sockets } = await serve('127.0.0.1');
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const controller = new AbortController();
    // (a listener left on the client's socket per call would pass 10 and warn)
    const warnings: string[] = [];
    const warned = (w: Error) => warnings.push(w.name);
    process.on('warning', warned);
    cleanup.push(() => process.off('warning', warned));
    for (let k = 0; k < 200; k++) {
      await drain(await openUpstream(url, new Headers(), controller.signal));
      await new Promise((r) => setImmediate(r)); // (the socket back in the pool)
    }
    await new Promise((r) => setImmediate(r));
    expect(sockets.size).toBe(1); // (one connection kept alive throughout)
    expect(warnings).toEqual([]);
    const { getEventListeners } = await import('node:events');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('20 calls to an upstream that drops each connection, under one signal, leave no abort listener on it', async () => {
    const { createServer: createTcpServer } = await import('node:net');
    const server = createTcpServer((c) => c.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(() => server.close());
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const controller = new AbortController();
    for (let k = 0; k < 20; k++) await expect(openUpstream(url, new Headers(), controller.signal)).rejects.toThrow('fetch failed');
    const { getEventListeners } = await import('node:events');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
