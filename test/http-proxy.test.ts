// The filtering proxy (createFilteringProxy behind the CLI's Node adapter) in front of the SDK's
// Streamable HTTP server, and in front of small raw servers that misbehave, on real sockets.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringProxy } from '../src/http/index.js';
import { encodeMessage, encodeText } from '../src/index.js';
import { startUpstream, type Upstream } from './fixtures/http-upstream.js';
import {
  closer,
  connectHost,
  expectEncodedListAndEcho,
  expectFirstEventBeforeEnd,
  expectProgressBeforeResult,
  onLoopback,
  TIMEOUT,
} from './http-helpers.ts';

vi.setConfig({ testTimeout: 15_000 }); // (a hang fails fast)
const cleanup: (() => Promise<unknown> | undefined)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function proxyTo(upstream: string, options: Partial<Parameters<typeof runProxy>[0]> = {}) {
  const logs: string[] = [];
  const { server, url } = await runProxy({ upstream, port: 0, log: (l) => void logs.push(l), ...options });
  cleanup.push(closer(server));
  return { url, logs };
}

async function upstream(mode: 'stateful' | 'stateless'): Promise<Upstream> {
  const up = await startUpstream(mode);
  cleanup.push(() => up.close());
  return up;
}

/** A host on the SDK's Streamable HTTP client transport, recording log messages; closed after the test. */
async function connect(url: string) {
  const session = await connectHost(url);
  cleanup.push(() => session.client.close().catch(() => {}));
  return session;
}

/** A raw HTTP server for misbehaviour, on 127.0.0.1. */
async function rawServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server: Server = createServer(handle);
  return onLoopback(server, cleanup);
}

/** One raw request, with any headers (Host included); resolves with status, headers and body. */
function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; end?: boolean } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'POST', headers: init.headers }, async (res) => {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
    });
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    if (init.end !== false) req.end();
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe.each(['stateful', 'stateless'] as const)('proxy in front of a %s SDK server', (mode) => {
  it('tool lists and results arrive encoded, arguments decoded, notifications before the result', async () => {
    const up = await upstream(mode);
    const { url } = await proxyTo(up.url);
    const { client, seen } = await connect(url);
    await expectEncodedListAndEcho(client, 'Qwen 阿里', () => up.calls);
    await expectProgressBeforeResult(client, seen, 1);
  });

  it('answers a colliding request -32602 without it reaching the server', async () => {
    const up = await upstream(mode);
    const { url, logs } = await proxyTo(up.url);
    const { client } = await connect(url);
    const before = up.hits.length;
    await expect(
      client.callTool({ name: 'echo', arguments: { text: 'x', Qwen: 1, [encodeText('Qwen')]: 2 } }, undefined, TIMEOUT),
    ).rejects.toMatchObject({ code: -32602 });
    expect(up.hits.slice(before).filter((h) => h.method === 'POST')).toEqual([]); // (the GET stream may open meanwhile)
    expect(logs.join('\n')).not.toMatch(/Qwen/);
  });

  it('passes the first event of a slow stream before the stream ends', async () => {
    const up = await upstream(mode);
    const { url } = await proxyTo(up.url);
    const { client, seen } = await connect(url);
    await expectFirstEventBeforeEnd(client, seen, () => up.release());
    expect(seen).toEqual([{ kind: 'log', text: encodeText('Qwen started') }]);
  });
});

describe('proxy: sessions and security', () => {
  it('ends a session on DELETE', async () => {
    const up = await upstream('stateful');
    const { url } = await proxyTo(up.url);
    const { transport } = await connect(url);
    const id = transport.sessionId!;
    await transport.terminateSession();
    expect(up.deleted).toEqual([id]);
  });

  it('answers 403 to a foreign Origin or Host, before anything reaches the upstream', async () => {
    const up = await upstream('stateful');
    const { url } = await proxyTo(up.url);
    const port = new URL(url).port;
    const body = JSON.stringify(initialize);
    for (const headers of <Record<string, string>[]>[
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { host: `evil.example:${port}` },
      { host: `localhost.evil.example:${port}` },
    ]) {
      const res = await raw(url, { headers: { ...JSON_HEADERS, ...headers }, body });
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    expect(up.hits).toEqual([]);
    for (const headers of <Record<string, string>[]>[
      { origin: 'http://localhost:5173' },
      { host: `localhost:${port}` },
      { host: `127.0.0.1:${port}` },
    ]) {
      const res = await raw(url, { headers: { ...JSON_HEADERS, ...headers }, body });
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('lets configured origins and hosts in', async () => {
    const up = await upstream('stateless');
    const { url } = await proxyTo(up.url, { allowedOrigins: ['https://app.example'], allowedHosts: ['proxy.internal'] });
    const body = JSON.stringify(initialize);
    expect((await raw(url, { headers: { ...JSON_HEADERS, host: 'proxy.internal:1', origin: 'https://app.example' }, body })).status).toBe(
      200,
    );
    expect((await raw(url, { headers: { ...JSON_HEADERS, host: 'proxy.internal', origin: 'http://localhost' }, body })).status).toBe(403);
    expect((await raw(url, { headers: { ...JSON_HEADERS, origin: 'https://app.example' }, body })).status).toBe(403); // (Host 127.0.0.1 no longer listed)
  });

  it('answers 413 to a body over maxMessageBytes, declared or not, without reading it to the end', async () => {
    const up = await upstream('stateless');
    const { url } = await proxyTo(up.url, { maxMessageBytes: 1024 });
    const big = JSON.stringify({ ...initialize, params: { ...initialize.params, pad: 'x'.repeat(2000) } });
    expect((await raw(url, { headers: JSON_HEADERS, body: big })).status).toBe(413);
    // Chunked, and never finished: the answer comes anyway.
    const res = await raw(url, { headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' }, body: big, end: false });
    expect(res.status).toBe(413);
    expect(up.hits).toEqual([]);
    expect((await raw(url, { headers: JSON_HEADERS, body: JSON.stringify(initialize) })).status).toBe(200);
  });

  it('answers 502 with a JSON-RPC error per request when the upstream is down, encoded', async () => {
    const closed = await rawServer(() => {});
    cleanup.pop()!(); // (closes it: its port is now refused)
    const down = closed.replace('127.0.0.1', 'qwen.localhost');
    const { url, logs } = await proxyTo(down);
    const res = await raw(url, { headers: JSON_HEADERS, body: JSON.stringify([initialize, { ...initialize, id: 'b' }]) });
    expect(res.status).toBe(502);
    const body = JSON.parse(res.body);
    expect(body.map((m: { id: unknown }) => m.id)).toEqual([1, 'b']);
    expect(body[0].error.message).toContain(encodeText(`${new URL(down).host}`));
    expect(res.body).not.toMatch(/qwen/i);
    expect(logs.some((l) => l.includes('502'))).toBe(true);
  });
});

describe('proxy as a plain fetch handler (no Node server)', () => {
  it('answers Web-standard Requests: a tools/list comes back encoded', async () => {
    const up = await upstream('stateless');
    const handler = createFilteringProxy({ upstream: up.url });
    const post = (body: unknown) =>
      handler(new Request('http://localhost/mcp', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) }));
    expect((await post(initialize)).status).toBe(200);
    const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const text = await res.text();
    const data = text
      .split('\n')
      .find((l) => l.startsWith('data: '))!
      .slice(6);
    expect(JSON.parse(data).result.tools.find((t: { name: string }) => t.name === 'echo').description).toBe(
      encodeText('Echoes text, for Qwen and 通义千问 users'),
    );
    expect((await handler(new Request('http://evil.example/mcp', { method: 'POST', headers: JSON_HEADERS, body: '{}' }))).status).toBe(403);
  });
});

describe('proxy: bodies and headers', () => {
  it('encodes a gzipped, pretty-printed JSON body and a text error page; the length and encoding headers follow the new body', async () => {
    const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Qwen 通义' }] } };
    const up = await rawServer((req, res) => {
      if (req.method === 'GET') return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no Qwen here');
      const body = gzipSync(JSON.stringify(message, null, 2));
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(body.length),
        'set-cookie': ['a=1', 'b=2'],
        'mcp-session-id': 'qwen-session',
      });
      res.end(body);
    });
    const { url } = await proxyTo(up);
    const res = await raw(url, {
      headers: JSON_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual(encodeMessage(message));
    expect(res.body).toContain('\n  '); // (its whitespace kept)
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-length'] === undefined || Number(res.headers['content-length']) === Buffer.byteLength(res.body)).toBe(true);
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers['mcp-session-id']).toBe('qwen-session'); // (headers pass untouched)
    const page = await raw(url, { method: 'GET' });
    expect(page.status).toBe(404);
    expect(page.body).toBe(encodeText('no Qwen here'));
  });
});

describe('proxy: streams', () => {
  const event = (id: number, text: string) =>
    `id: ${id}\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: text } })}\n\n`;
  const encodedEvent = (id: number, text: string) =>
    `id: ${id}\ndata: ${JSON.stringify(encodeMessage({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: text } }))}\n\n`;

  it.each(['ends', 'resets'] as const)('ends cleanly at the last whole event when the upstream %s mid-event', async (how) => {
    const up = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event(1, 'Qwen one'));
      res.write(event(2, 'Qwen two').slice(0, 30), () => (how === 'ends' ? res.end() : res.destroy()));
    });
    const { url } = await proxyTo(up);
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(encodedEvent(1, 'Qwen one'));
  });

  it('cancels the upstream request when the client disconnects mid-response', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    const up = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event(1, 'Qwen'));
      res.on('close', upstreamClosed); // (never ends by itself)
    });
    const { url } = await proxyTo(up);
    const controller = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(encodedEvent(1, 'Qwen'));
    controller.abort();
    await closed;
  });

  it('does not buffer without bound for a reader that stops reading', async () => {
    // The upstream is an in-memory stream that makes an event each time it is pulled.
    const total = 64 * 1024 * 1024;
    const chunk = new TextEncoder().encode(event(1, 'Qwen '.repeat(1000)));
    let pulled = 0;
    const upstream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled += chunk.length;
          controller.enqueue(chunk.slice());
          if (pulled >= total) controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const handler = createFilteringProxy({
      upstream: 'http://127.0.0.1:1/mcp',
      fetch: async () => new Response(upstream, { headers: { 'content-type': 'text/event-stream' } }),
    });
    const { server, url } = await listen(handler, '127.0.0.1', 0, () => {});
    cleanup.push(closer(server));
    const res = await fetch(`${url}/mcp`, { headers: { accept: 'text/event-stream' } });
    const reader = res.body!.getReader();
    await reader.read(); // one chunk, then nothing
    // Wait until the pulls stop (they must: the socket and the stream queues fill up).
    for (let last = -1; pulled !== last; ) {
      last = pulled;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(pulled).toBeLessThan(total / 4);
    await reader.cancel();
  });
});
