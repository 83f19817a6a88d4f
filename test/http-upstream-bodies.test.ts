// Every body the upstream sends on the MCP endpoint reaches the client encoded, whatever its
// Content-Type: JSON that is not JSON-RPC (encoded as a value), text and textual types (XML,
// scripts, YAML...) with or without valid UTF-8, unknown types; only media passes as it is.
// Off the endpoint (OAuth metadata) bodies pass as before. connect never writes a body it
// cannot read as JSON or an event stream: the host gets an encoded error naming the type.
import { createServer } from 'node:http';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { runConnect } from '../src/cli/connect.js';
import { createFilteringFetch, createFilteringProxy, type FetchLike } from '../src/http/index.js';
import { decodeMessage, decodeText, decodeValue, encodeText } from '../src/index.js';
import { runs } from './arbitraries.js';
import { onLoopback } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const TERM = /qwen|通义千问/i;

type Way = 'fetch' | 'proxy';
/** The body the client gets through `way` when the upstream answers `reply` to a POST on the endpoint (or to a GET of `path`). */
async function received(way: Way, reply: () => Response, path = '/mcp'): Promise<{ status: number; bytes: Uint8Array }> {
  const inner: FetchLike = async () => reply();
  let res: Response;
  const post = path === '/mcp';
  if (way === 'fetch') {
    const f = createFilteringFetch({ fetch: inner });
    res = await f(
      `http://up.test${path}`,
      post ? { method: 'POST', headers: HEADERS, body: ping } : { headers: { accept: 'application/json' } },
    );
  } else {
    const handler = createFilteringProxy({ upstream: 'http://up.test/mcp', fetch: inner });
    const headers = { ...HEADERS, host: 'localhost' };
    res = await handler(new Request(`http://localhost${path}`, post ? { method: 'POST', headers, body: ping } : { headers }));
  }
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const respond = (body: Uint8Array | string, type: string | undefined, status: number) => () =>
  new Response(typeof body === 'string' ? body : (body as Uint8Array<ArrayBuffer>), {
    status,
    headers: type === undefined ? {} : { 'content-type': type },
  });
const utf8 = new TextEncoder();
// The platform's decoder, BOM kept: what a reader of the replaced text sees.
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

const TEXTUAL_TYPES = [
  'text/html; charset=utf-8',
  'text/plain',
  'application/xml',
  'application/atom+xml',
  'application/javascript',
  'application/x-yaml',
  'application/octet-stream',
  'application/x-unknown',
  'application/pdf',
];

describe.each<Way>(['fetch', 'proxy'])('upstream bodies on the MCP endpoint, through %s', (way) => {
  it('JSON that is not JSON-RPC is encoded as a value, on errors (status and values kept)', async () => {
    for (const type of ['application/json', 'application/problem+json']) {
      const value = { detail: 'Model Qwen on Alibaba Cloud (通义千问) is overloaded', code: 7, list: ['Qwen'] };
      const { status, bytes } = await received(way, respond(JSON.stringify(value), type, 503));
      const text = new TextDecoder().decode(bytes);
      expect(status).toBe(503);
      expect(text).not.toMatch(TERM);
      expect(decodeValue(JSON.parse(text))).toEqual(value);
    }
  });

  it('a JSON-RPC error body is still encoded as a message, byte for byte outside its payload', async () => {
    const body = '{"jsonrpc":"2.0","id":12345678901234567891,"error":{"code":-32000,"message":"Qwen is busy"}}';
    const { bytes } = await received(way, respond(body, 'application/json', 500));
    const text = new TextDecoder().decode(bytes);
    expect(text).toBe(body.replace('Qwen', encodeText('Qwen')));
  });

  it('application/json that is not JSON at all (an HTML 500 page) is encoded as text', async () => {
    const page = '<h1>Qwen gateway: 通义千问 failed</h1>';
    const { status, bytes } = await received(way, respond(page, 'application/json', 500));
    expect(status).toBe(500);
    expect(decodeText(new TextDecoder().decode(bytes))).toBe(page);
    expect(new TextDecoder().decode(bytes)).not.toMatch(TERM);
  });

  it('text and every non-media type: encoded; bytes that are not UTF-8 become U+FFFD first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TEXTUAL_TYPES, undefined),
        fc.array(fc.oneof(fc.constantFrom('Qwen', '通义千问', ' gateway ', '<p>', '\uFEFF'), fc.string({ maxLength: 8 })), {
          maxLength: 8,
        }),
        fc.array(fc.integer({ min: 0x80, max: 0xff }), { maxLength: 4 }),
        fc.constantFrom(200, 404, 500),
        async (type, parts, bad, status) => {
          const page = utf8.encode(parts.join(''));
          const bytes = new Uint8Array([...page.subarray(0, page.length >> 1), ...bad, ...page.subarray(page.length >> 1)]);
          const got = await received(way, respond(bytes, type, status));
          const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(got.bytes);
          expect(text).not.toMatch(TERM);
          expect(decodeText(text)).toBe(lenient.decode(bytes));
        },
      ),
      runs(40),
    );
  });

  it('media passes byte for byte', async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, ...utf8.encode('Qwen'), 0xff]);
    for (const type of ['image/png', 'audio/wav', 'video/mp4']) {
      expect((await received(way, respond(bytes, type, 200))).bytes).toEqual(bytes);
    }
  });

  it('an error whose type says media is read as text, and its status text is encoded', async () => {
    const reply = () => new Response('Qwen failed', { status: 500, statusText: 'Qwen down', headers: { 'content-type': 'image/png' } });
    const inner: FetchLike = async () => reply();
    const res =
      way === 'fetch'
        ? await createFilteringFetch({ fetch: inner })('http://up.test/mcp', { method: 'POST', headers: HEADERS, body: ping })
        : await createFilteringProxy({ upstream: 'http://up.test/mcp', fetch: inner })(
            new Request('http://localhost/mcp', { method: 'POST', headers: { ...HEADERS, host: 'localhost' }, body: ping }),
          );
    expect([res.status, res.statusText, await res.text()]).toEqual([500, `${encodeText('Qwen')} down`, `${encodeText('Qwen')} failed`]);
  });
});

describe('off the MCP endpoint (OAuth metadata), as before', () => {
  it.each<Way>(['fetch', 'proxy'])('%s: JSON metadata and binary bodies pass as they are', async (way) => {
    const metadata = JSON.stringify({ issuer: 'https://qwen.example', token_endpoint: 'https://qwen.example/token' });
    const path = '/.well-known/oauth-authorization-server';
    expect(new TextDecoder().decode((await received(way, respond(metadata, 'application/json', 200), path)).bytes)).toBe(metadata);
    const blob = utf8.encode('Qwen');
    expect((await received(way, respond(blob, 'application/octet-stream', 200), path)).bytes).toEqual(blob);
  });
});

/** A real upstream answering every POST with `body` as `type`. */
async function rawUpstream(type: string, body: (id: unknown) => string) {
  const server = createServer(async (req, res) => {
    let text = '';
    for await (const c of req) text += c;
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const { id } = JSON.parse(text) as { id?: unknown };
    res.writeHead(type ? 200 : 202, type ? { 'content-type': type } : {});
    res.end(body(id));
  });
  return onLoopback(server, cleanup);
}

/** Runs connect with `lines` from the host; resolves with what it wrote and logged, and how it ended. */
async function connectWith(url: string, lines: string[], maxMessageBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = '';
  output.on('data', (d: Buffer) => (out += d.toString()));
  const logs: string[] = [];
  const done = runConnect({ url, input, output, maxMessageBytes, log: (l) => logs.push(l) }).then(
    (code) => ({ code, error: undefined as Error | undefined }),
    (error: Error) => ({ code: undefined, error }),
  );
  input.end(lines.map((l) => `${l}\n`).join(''));
  const ended = await done;
  return { ...ended, out, logs };
}

describe('connect: only JSON and event streams reach the host', () => {
  const result = (id: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'Qwen on Alibaba Cloud' }] } });
  const call = '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":{}}}';

  it('application/json-rpc is read as JSON: the result arrives encoded', async () => {
    const { out } = await connectWith(await rawUpstream('application/json-rpc', result), [call]);
    expect(out).not.toMatch(TERM);
    expect(decodeMessage(JSON.parse(out))).toEqual(JSON.parse(result(5)));
  });

  it.each(['application/octet-stream', 'text/plain', 'application/x-qwen'])(
    '%s: the request is answered with an encoded error naming the type, the body never written',
    async (type) => {
      const { out, logs } = await connectWith(await rawUpstream(type, result), [call]);
      expect(out).not.toMatch(TERM);
      const answer = decodeMessage(JSON.parse(out)) as { id: number; error: { message: string } };
      expect(answer.id).toBe(5);
      expect(answer.error.message).toBe(`The MCP server answered with Content-Type ${type}, neither JSON nor an event stream`);
      expect(logs.join('\n')).not.toContain('Alibaba');
    },
  );

  it('an empty body of no type (a 202 to a notification) is no answer: nothing written, nothing logged', async () => {
    const url = await rawUpstream('', () => '');
    const { out, logs } = await connectWith(url, ['{"jsonrpc":"2.0","method":"notifications/initialized"}']);
    expect(out).toBe('');
    expect(logs.filter((l) => /Content-Type/.test(l))).toEqual([]);
  });

  it('a line over --max-message-bytes names its line number', async () => {
    const { error } = await connectWith(
      'http://127.0.0.1:9/mcp',
      ['{"jsonrpc":"2.0","method":"notifications/initialized"}', 'a'.repeat(300)],
      100,
    );
    expect(error?.message).toBe('line 2 from the host is larger than maxMessageBytes (100)');
  });
});
