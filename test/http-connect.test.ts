// `connect`: a stdio server that forwards to a remote Streamable HTTP server, filtered. The
// host is the SDK Client over NDJSON lines in memory; the server is the SDK's, on a real socket.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runConnect } from '../src/cli/connect.js';
import { encodeText } from '../src/index.js';
import { startUpstream, type Upstream } from './fixtures/http-upstream.js';
import {
  answerInitialize,
  expectEncodedListAndEcho,
  expectFirstEventBeforeEnd,
  expectProgressBeforeResult,
  TIMEOUT,
  textOf,
} from './http-helpers.ts';
import { until } from './until.ts';

vi.setConfig({ testTimeout: 15_000 }); // (a hang fails fast)

/** The host's end of a stdio connection, in memory. */
class LineTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;
  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}
  async start() {
    let buffer = '';
    this.fromServer.setEncoding('utf8');
    this.fromServer.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) this.onmessage?.(JSON.parse(line));
    });
  }
  async send(m: JSONRPCMessage) {
    this.toServer.write(JSON.stringify(m) + '\n');
  }
  async close() {
    this.toServer.end();
    this.onclose?.();
  }
}

let up: Upstream | undefined;
afterEach(async () => {
  await up?.close();
  up = undefined;
});

async function start(mode: 'stateful' | 'stateless', headers: string[] = []) {
  up = await startUpstream(mode);
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const done = runConnect({ url: up.url, headers, input, output, log: (l) => void logs.push(l) });
  const client = new Client({ name: 'host', version: '1.0.0' });
  const seen: { kind: string; text: string }[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push({ kind: 'log', text: String(n.params.data) }));
  await client.connect(new LineTransport(input, output), TIMEOUT);
  return { client, done, seen, logs, up };
}

describe.each(['stateful', 'stateless'] as const)('connect to a %s server', (mode) => {
  it('lists and results arrive encoded, arguments decoded, notifications before the result; headers pass', async () => {
    const { client, seen, up, done } = await start(mode, ['Authorization: Bearer s3cret']);
    await expectEncodedListAndEcho(client, 'Qwen 阿里', () => up.calls);
    await expectProgressBeforeResult(client, seen, 1);
    expect(up.authorizations.every((a) => a === 'Bearer s3cret')).toBe(true);
    await client.close();
    expect(await done).toBe(0);
  });

  it('answers a colliding request -32602 without it reaching the server', async () => {
    const { client, up } = await start(mode);
    const before = up.hits.length;
    await expect(
      client.callTool({ name: 'echo', arguments: { text: 'x', Qwen: 1, [encodeText('Qwen')]: 2 } }, undefined, TIMEOUT),
    ).rejects.toMatchObject({ code: -32602 });
    expect(up.hits.slice(before).filter((h) => h.method === 'POST')).toEqual([]);
    await client.close();
  });

  it('passes the first event of a slow stream before the stream ends', async () => {
    const { client, seen, up } = await start(mode);
    await expectFirstEventBeforeEnd(client, seen, () => up.release());
    await client.close();
  });
});

describe('connect: sessions', () => {
  it('keeps the session, opens the GET stream, and ends the session with DELETE when stdin closes', async () => {
    const { client, seen, up, done } = await start('stateful');
    await client.listTools(undefined, TIMEOUT);
    await until(() => up.hits.some((h) => h.method === 'GET'));
    let got!: () => void;
    const arrived = new Promise<void>((r) => (got = r));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seen.push({ kind: 'log', text: String(n.params.data) });
      got();
    });
    await up.notifyAll('Qwen says hello');
    await arrived;
    expect(seen).toEqual([{ kind: 'log', text: encodeText('Qwen says hello') }]);
    expect(up.hits.filter((h) => h.method === 'POST').length).toBeGreaterThan(1); // (all in one session: a second initialize would 400)
    await client.close();
    expect(await done).toBe(0);
    expect(up.deleted).toHaveLength(1);
  });
});

/** `connect` in front of `server` (listened on here), and the host's SDK client for its stdio. */
async function connectVia(server: Server) {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const input = new PassThrough();
  const output = new PassThrough();
  const done = runConnect({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, input, output, log: () => {} });
  const client = new Client({ name: 'host', version: '1.0.0' });
  return { input, output, done, client };
}

describe('connect: resumption', () => {
  it('resumes a POST stream that ends before its response, with GET and Last-Event-ID after the retry delay', async () => {
    const lastEventIds: (string | undefined)[] = [];
    const server = createServer(async (req, res) => {
      let text = '';
      for await (const c of req) text += c;
      if (req.method === 'GET') {
        lastEventIds.push(req.headers['last-event-id'] as string | undefined);
        if (req.headers['last-event-id'] !== 'e1') return void res.writeHead(405).end();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.end(
          `id: e2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pendingId, result: { content: [{ type: 'text', text: 'Qwen resumed' }] } })}\n\n`,
        );
      }
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      const m = JSON.parse(text);
      if (m.method === 'initialize') return answerInitialize(res, m, { session: 'sess', version: '2025-06-18' });
      if (m.id === undefined) return void res.writeHead(202).end();
      pendingId = m.id;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('id: e1\nretry: 20\ndata: \n\n'); // a priming event, then the stream closes
    });
    let pendingId: unknown;
    const { input, output, done, client } = await connectVia(server);
    const errors: Error[] = [];
    client.onerror = (e) => void errors.push(e);
    await client.connect(new LineTransport(input, output), TIMEOUT);
    const result = await client.callTool({ name: 'x', arguments: {} }, undefined, TIMEOUT);
    expect(textOf(result)).toBe(encodeText('Qwen resumed'));
    expect(lastEventIds).toContain('e1');
    expect(errors).toEqual([]); // (the priming event wrote no empty line)
    await client.close();
    await done;
    server.close();
  });
});

describe('connect: a retry delay past the longest timer', () => {
  // Node fires a timer longer than 2^31-1 ms after 1 ms (with a TimeoutOverflowWarning): a
  // server's `retry:` of 2^31 ms (about 25 days) or more made connect come back at once.
  it('waits the longest timer Node keeps, not 1 ms', async () => {
    const gets: number[] = [];
    const server = createServer(async (req, res) => {
      let text = '';
      for await (const c of req) text += c;
      if (req.method === 'GET') {
        if (req.headers['last-event-id'] !== undefined) gets.push(Date.now()); // (a resumption)
        return void res.writeHead(405).end();
      }
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      const m = JSON.parse(text);
      if (m.method === 'initialize') return answerInitialize(res, m, { session: 'sess', version: '2025-06-18' });
      if (m.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('id: e1\nretry: 4294967297\ndata: \n\n'); // a priming event, then the stream closes
    });
    const { input, output, done, client } = await connectVia(server);
    await client.connect(new LineTransport(input, output), TIMEOUT);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const call = client.callTool({ name: 'x', arguments: {} }, undefined, TIMEOUT).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 300));
    expect(gets).toEqual([]); // still waiting to resume
    // Its timer is the longest Node keeps; run it now (the resumption is refused: the call fails).
    const wait = timers.mock.calls.find(([, ms]) => ms === 2 ** 31 - 1);
    timers.mockRestore();
    expect(wait).toBeDefined();
    (wait![0] as () => void)();
    expect(await call).toBeInstanceOf(Error);
    await client.close();
    await call;
    await done;
    server.close();
  });
});
