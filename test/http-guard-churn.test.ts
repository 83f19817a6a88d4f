// A guard that forgets fails closed. The proxy keeps one tool list per session within bounds;
// thousands of other sessions push a live one's out, a restarted proxy has none, a restarted
// upstream knows no session: a call to a tool the guard cannot judge makes it ask the upstream
// for the list (as that session), else it is blocked. Through `proxy` on real sockets, with an
// upstream that issues sessions and refuses those it does not know, as the SDK's server does;
// an unknown tool must never reach it, a known one always.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { createFilteringFetch, createFilteringProxy } from '../src/http/index.js';
import { answerInitialize, onLoopback } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const TOOLS = { tools: [{ name: 'move', inputSchema: { type: 'object' } }] };

/** The upstream: sessions issued at initialize, 404 for others; lists as events, calls as JSON. */
async function upstream() {
  const sessions = new Set<string>();
  const reached: string[] = [];
  let issued = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const c of req) text += c;
    const m = JSON.parse(text) as { id: unknown; method: string; params: { name?: string; protocolVersion: string } };
    if (m.method === 'initialize') {
      sessions.add(`s${++issued}`);
      return answerInitialize(res, m, { session: `s${issued}` });
    }
    if (!sessions.has(String(req.headers['mcp-session-id']))) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
    }
    if (m.id === undefined) return void res.writeHead(202).end();
    if (m.method === 'tools/list') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: TOOLS })}\n\n`);
    }
    reached.push(m.params.name!);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ran' }] } }));
  });
  return { url: await onLoopback(server, cleanup), reached, restart: () => sessions.clear() };
}

/** Sessions the proxies here keep (the default, 4,096, would take thousands of sessions a run). */
const KEPT = 64;

async function proxyOf(upstreamUrl: string) {
  const handler = createFilteringProxy({ upstream: upstreamUrl, guard: 'tools', guardSessions: KEPT });
  const { server, url } = await listen(handler, '127.0.0.1', 0, () => {});
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `${url}/mcp`;
}

type Post = (body: unknown, session?: string) => Promise<Response>;
const poster =
  (url: string, fetch: typeof globalThis.fetch = globalThis.fetch): Post =>
  (body, session) =>
    fetch(url, { method: 'POST', headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const call = (name: string) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: {} } });

async function open(post: Post): Promise<string> {
  const r = await post(initialize);
  await r.text();
  return r.headers.get('mcp-session-id')!;
}

/** What a call to `name` in `session` came to: 'blocked' (an isError result saying so), 'ran', or the HTTP status. */
async function outcome(post: Post, session: string, name: string): Promise<string> {
  const r = await post(call(name), session);
  if (r.status !== 200) {
    await r.text();
    return String(r.status);
  }
  const { result } = (await r.json()) as { result: { isError?: boolean; content: { text: string }[] } };
  if (result.isError) return result.content[0]!.text.includes('blocked before it reached the server') ? 'blocked' : 'isError';
  return result.content[0]!.text;
}

/** Opens `n` sessions through `post`, `at` a time. */
async function churn(post: Post, n: number, at = 32): Promise<void> {
  for (let i = 0; i < n; i += at) await Promise.all(Array.from({ length: Math.min(at, n - i) }, () => open(post)));
}

describe('the proxy guard fails closed when it forgets', () => {
  it('past its session bound, after a proxy restart, and for a session that never listed: unknown tools blocked, known ones pass', async () => {
    const up = await upstream();
    const post = poster(await proxyOf(up.url));
    const live = await Promise.all([0, 1, 2].map(() => open(post)));
    for (const s of live) await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, s)).text();
    const silent = await open(post); // never lists
    const seen: string[] = [];
    const check = async (p: Post, sessions: string[]) => {
      for (const s of sessions) seen.push(await outcome(p, s, 'evil'), await outcome(p, s, 'move'));
    };
    await check(post, [...live, silent]);
    // Other clients open more sessions than the proxy keeps: the live ones are pushed out.
    await churn(post, 2 * KEPT);
    await check(post, [...live, silent]);
    // A proxy that restarted knows no list at all.
    await check(poster(await proxyOf(up.url)), [...live, silent]);
    expect(seen).toEqual(Array.from({ length: 3 * 4 }, () => ['blocked', 'ran']).flat());
    expect(up.reached).toEqual(Array.from({ length: 3 * 4 }, () => 'move'));
  });

  it('an upstream that restarted (sessions unknown to it): the call gets its 404, nothing reaches it', async () => {
    const up = await upstream();
    const post = poster(await proxyOf(up.url));
    const s = await open(post);
    up.restart();
    expect([await outcome(post, s, 'evil'), await outcome(post, s, 'move')]).toEqual(['404', '404']);
    // The client starts again: a new session, its list asked for.
    const again = await open(post);
    expect([await outcome(post, again, 'evil'), await outcome(post, again, 'move')]).toEqual(['blocked', 'ran']);
    expect(up.reached).toEqual(['move']);
  });

  it('an upstream that cannot give the list: the call is blocked with the reason', async () => {
    const up = await upstream();
    const proxied = await proxyOf(up.url);
    const s = await open(poster(proxied));
    // The upstream answers this session's list with an error page, as a broken server might.
    const broken: typeof globalThis.fetch = async (input, init) => {
      const body = String(init?.body ?? '');
      if (body.includes('"tools/list"')) return new Response('<h1>502</h1>', { status: 502, headers: { 'content-type': 'text/html' } });
      return globalThis.fetch(input, init);
    };
    const f = createFilteringFetch({ fetch: broken, guard: 'tools' });
    const r = await f(up.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': s }, body: JSON.stringify(call('move')) });
    const { result } = (await r.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/tool list is not known, and asking the server for it failed: the server answered HTTP 502$/);
    expect(up.reached).toEqual([]);
  });

  it('createFilteringFetch: a fresh wrapper in front of a live session asks for the list', async () => {
    const up = await upstream();
    const s = await open(poster(up.url));
    const post = poster(up.url, createFilteringFetch({ guard: 'tools' }) as typeof globalThis.fetch);
    expect([await outcome(post, s, 'evil'), await outcome(post, s, 'move')]).toEqual(['blocked', 'ran']);
    expect(up.reached).toEqual(['move']);
  });
});
