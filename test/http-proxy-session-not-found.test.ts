// A guarded call in a session the upstream does not know (it restarted, or the id is made up):
// the guard asks the upstream for the session's tool list, gets 404, and answers the call 404
// itself, with an error (-32001, as the SDK's servers give) under each request's id as written,
// not one under id null, so that a client matches each to its request. Through the CLI's server,
// createFilteringProxy behind `listen`, and createFilteringFetch, on real sockets.
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringFetch, createFilteringProxy } from '../src/http/index.js';
import { onLoopback } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** An upstream that knows no session: 404 to every request, as the SDK's servers answer one. */
async function forgetful(reached: string[]): Promise<string> {
  const server = createServer(async (req, res) => {
    let text = '';
    for await (const c of req) text += c;
    reached.push((JSON.parse(text) as { method: string }).method);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
  });
  return onLoopback(server, cleanup);
}

type Post = (init: RequestInit) => Promise<Response>;

async function direct(up: string): Promise<Post> {
  const { server, url } = await runProxy({ upstream: up, port: 0, log: () => {}, guard: 'tools' });
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return (init) => fetch(url, init);
}

async function web(up: string): Promise<Post> {
  const { server, url } = await listen(createFilteringProxy({ upstream: up, guard: 'tools' }), '127.0.0.1', 0, () => {});
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return (init) => fetch(`${url}/mcp`, init);
}

async function filteredFetch(up: string): Promise<Post> {
  const filtered = createFilteringFetch({ guard: 'tools' });
  return (init) => filtered(up, init);
}

const call = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"move","arguments":{}}}`;

describe.each([
  ['the CLI server', direct],
  ['createFilteringProxy', web],
  ['createFilteringFetch', filteredFetch],
])('404 Session not found from the guard (%s)', (_, serve) => {
  it.each([
    ['one call', false, ['7']],
    ['a batch, a notification among its calls', true, ['12345678901234567890', '"1"', '1.0']],
  ])('%s: an error under each id as written', async (__, batch, ids) => {
    const reached: string[] = [];
    const post = await serve(await forgetful(reached));
    const calls = ids.map(call);
    const body = batch ? `[${calls.join(',{"jsonrpc":"2.0","method":"notifications/x"},')}]` : calls[0]!;
    const r = await post({
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'gone' },
      body,
    });
    expect(r.status).toBe(404);
    const text = await r.text();
    expect(text.startsWith('[')).toBe(batch);
    expect([...text.matchAll(/"id":([^,]+),"error":\{"code":-32001,"message":"Session not found"\}/g)].map((m) => m[1])).toEqual(ids);
    expect(text).not.toMatch(/null/);
    expect(reached).toEqual(['tools/list']); // (the guard asked; the calls never went up)
  });
});
