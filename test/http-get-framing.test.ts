// A body is filtered the way the host's client will read it, as it streams. The SDK's client
// reads any successful GET body as an event stream, whatever its Content-Type
// (streamableHttp.js `_startOrAuthSse`), and a POST's by type (`text/event-stream` with any
// parameters or case, `application/json`; anything else it refuses). A real upstream (node:http)
// answers the GET stream with `application/json` or no type, holding it open, its messages
// JSON-escaped as Python's json.dumps writes them (`\u963f\u91cc`): through `proxy` and through
// createFilteringFetch, the real SDK client gets them encoded as they come, before the body ends;
// so does a stdio host through `connect`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runConnect } from '../src/cli/connect.js';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringFetch } from '../src/http/index.js';
import { encodeText } from '../src/index.ts';
import { answerInitialize, onLoopback, TIMEOUT, textOf } from './http-helpers.ts';
import { termsIn } from './mcp-guard-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** JSON as Python's json.dumps writes it by default: every non-ASCII character as \uXXXX. */
const asciiJson = (value: unknown) =>
  JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const event = (value: unknown) => `event: message\ndata: ${asciiJson(value)}\n\n`;

const SAID = '阿里 says qwen';
/** POST answers by tool name: its Content-Type (null: none), the body held open after the event. */
const POST_TYPES: Record<string, string | null> = {
  charset: 'text/event-stream; charset=utf-8',
  upper: 'TEXT/EVENT-STREAM',
  untyped: null,
  odd: 'application/x-unknown',
};

/** The upstream: its GET stream typed `getType` (null: untyped), one log then held open. */
async function upstream(getType: string | null) {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      res.writeHead(200, getType === null ? {} : { 'content-type': getType });
      res.write(event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: SAID } }));
      return; // (held open)
    }
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    let text = '';
    for await (const c of req) text += c;
    const m = JSON.parse(text) as { id: unknown; method: string; params: { name: string; protocolVersion: string } };
    if (m.method === 'initialize') return answerInitialize(res, m, { session: 's1' });
    if (m.id === undefined) return void res.writeHead(202).end();
    const type = POST_TYPES[m.params.name];
    res.writeHead(200, type === null || type === undefined ? {} : { 'content-type': type });
    res.write(event({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: SAID }] } }));
    // (held open: the answer must go on before the body ends)
  });
  return onLoopback(server, cleanup);
}

type Way = 'proxy' | 'fetch';

async function host(way: Way, upstreamUrl: string) {
  let transport: StreamableHTTPClientTransport;
  if (way === 'proxy') {
    const { server, url } = await runProxy({ upstream: upstreamUrl, log: () => {} });
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    transport = new StreamableHTTPClientTransport(new URL(url));
  } else transport = new StreamableHTTPClientTransport(new URL(upstreamUrl), { fetch: createFilteringFetch() });
  const client = new Client({ name: 'host', version: '1.0.0' });
  let logged!: (text: string) => void;
  const log = new Promise<string>((r) => (logged = r));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logged(JSON.stringify(n.params.data)));
  await client.connect(transport, TIMEOUT);
  cleanup.push(() => client.close());
  return { client, log };
}

describe.each(['proxy', 'fetch'] as const)('through %s', (way) => {
  it.each([
    ['application/json', 'application/json'],
    ['no Content-Type', null],
  ])('a GET stream typed %s is read as events: its message arrives encoded while the body stays open', async (_, type) => {
    const { log } = await host(way, await upstream(type));
    const got = await Promise.race([log, new Promise<string>((r) => setTimeout(() => r('(nothing within 3 s)'), 3000))]);
    expect(got).toBe(JSON.stringify(encodeText(SAID)));
    expect(termsIn(got)).toEqual([]);
  });

  it.each(['charset', 'upper'])('a POST answer typed as an event stream (%s) is encoded as events, before its body ends', async (name) => {
    const { client } = await host(way, await upstream('text/event-stream'));
    const result = await client.callTool({ name, arguments: {} }, undefined, TIMEOUT);
    expect(textOf(result)).toBe(encodeText(SAID));
  });

  it.each([
    ['no Content-Type', 'untyped'],
    ['an odd type', 'odd'],
  ])('a POST answer with %s, held open: the client refuses it at once (the response is not held back)', async (_, name) => {
    const { client } = await host(way, await upstream('text/event-stream'));
    const e = await client.callTool({ name, arguments: {} }, undefined, TIMEOUT).then(
      () => undefined,
      (x: unknown) => x as Error,
    );
    expect(e?.message).toMatch(/Unexpected content type/);
  });
});

describe('through connect', () => {
  it.each([
    ['application/json', 'application/json'],
    ['no Content-Type', null],
  ])('a GET stream typed %s is read as events: its message reaches the host encoded while the body stays open', async (_, type) => {
    const url = await upstream(type);
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: { id?: unknown; method?: string; params?: { data?: unknown } }[] = [];
    let text = '';
    output.on('data', (d: Buffer) => {
      text += d.toString();
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
        lines.push(JSON.parse(text.slice(0, nl)));
        text = text.slice(nl + 1);
      }
    });
    const done = runConnect({ url, input, output, log: () => {} });
    const until = async (found: () => boolean) => {
      for (let waited = 0; waited < 3000 && !found(); waited += 10) await new Promise((r) => setTimeout(r, 10));
    };
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } } })}\n`,
    );
    await until(() => lines.some((l) => l.id === 0));
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await until(() => lines.some((l) => l.method === 'notifications/message'));
    input.end();
    await done;
    const logged = lines.find((l) => l.method === 'notifications/message');
    expect(logged?.params?.data).toBe(encodeText(SAID));
    expect(termsIn(JSON.stringify(lines))).toEqual([]);
  });
});
