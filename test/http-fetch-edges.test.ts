// createFilteringFetch around a recording fetch and a raw server: what it passes untouched
// (headers, other methods and bodies, statuses, redirects) and what it rewrites.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createFilteringFetch, type FetchLike } from '../src/http/index.js';
import { encodeMessage, encodeText } from '../src/index.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  redirect: RequestRedirect | undefined;
}

/** A fetch that records what reached it and answers `reply`. */
function recording(reply: () => Response): { fetch: FetchLike; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetch: FetchLike = async (input, init) => {
    const r = new Request(input, init);
    seen.push({
      url: r.url,
      method: r.method,
      headers: Object.fromEntries(r.headers),
      body: r.body ? await r.text() : null,
      redirect: init?.redirect,
    });
    return reply();
  };
  return { fetch, seen };
}

const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'open', arguments: { app: encodeText('Qwen') } } };
const json = (value: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(value), { ...init, headers: { 'content-type': 'application/json', ...init.headers } });

describe('createFilteringFetch: what passes untouched', () => {
  it('decodes a JSON POST and passes every header but Content-Length as it was', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 202 }));
    const f = createFilteringFetch({ fetch });
    const headers = {
      'content-type': 'application/json',
      authorization: 'Bearer qwen-token',
      'mcp-session-id': 's-1',
      'mcp-protocol-version': '2025-06-18',
      'last-event-id': 'e-9',
      cookie: 'a=1',
      'content-length': '999',
    };
    const res = await f('http://example.test/mcp', { method: 'POST', headers, body: JSON.stringify(call), redirect: 'manual' });
    expect(res.status).toBe(202);
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body!)).toEqual({ ...call, params: { ...call.params, arguments: { app: 'Qwen' } } });
    const { 'content-length': _dropped, ...rest } = headers;
    expect(seen[0]!.headers).toEqual(rest); // (fetch recomputes the length)
    expect(seen[0]!.redirect).toBe('manual');
  });

  it('takes a Request as input too', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 202 }));
    await createFilteringFetch({ fetch })(
      new Request('http://example.test/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-trace': 'qwen' },
        body: JSON.stringify(call),
      }),
    );
    expect(JSON.parse(seen[0]!.body!).params.arguments).toEqual({ app: 'Qwen' });
    expect(seen[0]!.headers['x-trace']).toBe('qwen');
  });

  it('passes GET, DELETE and non-JSON bodies as they are (an OAuth token request, say)', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 204 }));
    const f = createFilteringFetch({ fetch });
    const form = `grant_type=code&code=${encodeText('Qwen')}`;
    expect(
      (
        await f('http://example.test/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        })
      ).status,
    ).toBe(204);
    expect((await f('http://example.test/mcp', { method: 'DELETE', headers: { 'mcp-session-id': 's' } })).status).toBe(204);
    expect((await f('http://example.test/mcp')).status).toBe(204);
    expect(seen.map((s) => [s.method, s.body])).toEqual([
      ['POST', form],
      ['DELETE', null],
      ['GET', null],
    ]);
  });

  it('keeps statuses and response headers, and encodes error bodies', async () => {
    const body = { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Qwen is busy' } };
    const { fetch } = recording(() =>
      json(body, { status: 409, statusText: 'Conflict', headers: { 'mcp-session-id': 's-2', 'www-authenticate': 'Bearer realm="qwen"' } }),
    );
    const res = await createFilteringFetch({ fetch })('http://example.test/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect([res.status, res.statusText]).toEqual([409, 'Conflict']);
    expect(res.headers.get('mcp-session-id')).toBe('s-2');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="qwen"');
    expect(await res.json()).toEqual(encodeMessage(body));
  });

  it('answers a colliding notification 400 and a colliding batch with every request, sending nothing', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 202 }));
    const f = createFilteringFetch({ fetch });
    const colliding = { Qwen: 1, [encodeText('Qwen')]: 2 };
    const note = await f('http://example.test/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: colliding }),
    });
    expect(note.status).toBe(400);
    expect((await note.json()).error.code).toBe(-32602);
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: colliding },
      { jsonrpc: '2.0', method: 'notifications/y' },
    ];
    const res = await f('http://example.test/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    const replies = (await res.json()) as { id: string; error: { code: number } }[];
    expect(replies.map((r) => [r.id, r.error.code])).toEqual([
      ['a', -32602],
      ['b', -32602],
    ]);
    expect(seen).toEqual([]);
  });

  it('sends the server an error instead of a colliding response to its request', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 202 }));
    const reply = { jsonrpc: '2.0', id: 7, result: { Qwen: 1, [encodeText('Qwen')]: 2 } };
    const res = await createFilteringFetch({ fetch })('http://example.test/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(reply),
    });
    expect(res.status).toBe(202);
    expect(JSON.parse(seen[0]!.body!)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
  });
});

describe('createFilteringFetch: redirects, on a real socket', () => {
  it('follows a 307 with the decoded body, as fetch does', async () => {
    const bodies: string[] = [];
    const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/old') return void res.writeHead(307, { location: '/mcp' }).end();
      let body = '';
      for await (const c of req) body += c;
      bodies.push(body);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { echo: JSON.parse(body).params.arguments.app } }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(() => server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await createFilteringFetch()(`${base}/old`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    expect(res.status).toBe(200);
    expect(bodies.map((b) => JSON.parse(b).params.arguments.app)).toEqual(['Qwen']);
    expect((await res.json()).result.echo).toBe(encodeText('Qwen'));
    const manual = await createFilteringFetch()(`${base}/old`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
      redirect: 'manual',
    });
    expect(manual.status).toBe(307);
    expect(bodies).toHaveLength(1);
  });
});
