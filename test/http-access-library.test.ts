// createFilteringProxy({ authorize }): an edge deployment's own identity plugged in (here a
// header its platform sets), in front of the real SDK server, driven by the real SDK client on a
// real socket. The hook sees the request before anything reads its body; its Response goes out
// as it is; who it names owns the sessions made; the client's credential never goes upstream.
import { describe, expect, it, vi } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { createFilteringProxy, type Principal } from '../src/http/index.js';
import { sdkClient } from './access-commands.ts';
import { startUpstream } from './fixtures/http-upstream.js';
import { cleanup } from './http-cli-helpers.ts';
import { postInitialize, TIMEOUT, textOf } from './http-helpers.ts';

vi.setConfig({ testTimeout: 30_000 });

const UPSTREAM_CREDENTIAL = 'Bearer upstream-secret-0123456789';

async function platformProxy(options: { maxSessionsPerClient?: number; upstreamHeaders?: Record<string, string> } = {}) {
  const up = await startUpstream('stateful');
  cleanup.push(() => up.close());
  const seen: { user: string | null; method: string }[] = [];
  const authorize = (request: Request): Principal | Response => {
    const user = request.headers.get('x-platform-user');
    seen.push({ user, method: request.method });
    if (!user) return new Response('sign in first', { status: 401, headers: { 'www-authenticate': 'Platform realm="edge"' } });
    return { id: `platform:${user}` };
  };
  const handler = createFilteringProxy({ upstream: up.url, authorize, ...options });
  const { server, url } = await listen(handler, '127.0.0.1', 0, () => {});
  cleanup.push(async () => {
    server.closeAllConnections();
    server.close();
  });
  return { up, seen, handler, url: `${url}/mcp` };
}

/** The SDK client's options as `user` (and a credential of its own, which must not go upstream). */
const as = (user: string) => ({
  requestInit: { headers: { 'x-platform-user': user, authorization: 'Bearer client-own-credential-0123' } },
});

/** A POST to `handler` whose body counts the reads asked of it (none is read unless asked). */
function countedPost(handler: (r: Request) => Promise<Response>, headers: Record<string, string>) {
  const read = { pulls: 0 };
  const body = new ReadableStream(
    {
      pull: (c) => {
        read.pulls++;
        c.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
        c.close();
      },
    },
    { highWaterMark: 0 },
  );
  const request = new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
  return { read, answer: handler(request) };
}

describe('createFilteringProxy({ authorize }) with a platform identity', () => {
  it("the hook's Response goes out as it is; nothing reaches the upstream", async () => {
    const { up, seen, url } = await platformProxy();
    const r = await postInitialize(url);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Platform realm="edge"');
    expect(await r.text()).toBe('sign in first');
    expect(seen).toEqual([{ user: null, method: 'POST' }]);
    expect(up.hits).toEqual([]);
  });

  it('the hook and the session limit decide before any of the body is read', async () => {
    const { up, handler, url } = await platformProxy({ maxSessionsPerClient: 1 });
    const refused = countedPost(handler, {});
    expect((await refused.answer).status).toBe(401);
    expect(refused.read.pulls).toBe(0);
    const first = await postInitialize(url, { 'x-platform-user': 'alice' });
    expect(first.status).toBe(200);
    await first.text();
    const hits = up.hits.length;
    const over = countedPost(handler, { 'x-platform-user': 'alice' });
    const answer = await over.answer;
    expect(answer.status).toBe(429);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.read.pulls).toBe(0);
    expect(up.hits.length).toBe(hits);
    const other = await postInitialize(url, { 'x-platform-user': 'bob' });
    expect(other.status).toBe(200);
    await other.text();
  });

  it("the SDK client works as the named user; the client's Authorization never goes upstream", async () => {
    for (const upstreamHeaders of [undefined, { authorization: UPSTREAM_CREDENTIAL }]) {
      const { up, url } = await platformProxy(upstreamHeaders ? { upstreamHeaders } : {});
      const alice = await sdkClient(url, as('alice'));
      expect(textOf(await alice.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, TIMEOUT))).toBe('echo: hi');
      expect(up.authorizations.length).toBeGreaterThan(0);
      expect(new Set(up.authorizations)).toEqual(new Set([upstreamHeaders?.authorization]));
    }
  });

  it('sessions belong to who the hook named: another user gets 404, the owner goes on', async () => {
    const { up, url } = await platformProxy();
    const alice = await sdkClient(url, as('alice'));
    const session = (alice as unknown as { transport: { sessionId?: string } }).transport.sessionId!;
    await vi.waitFor(() => expect(up.hits.some((h) => h.method === 'GET')).toBe(true), { timeout: 5_000 });
    const hits = up.hits.length;
    const bob = await fetch(url, {
      method: 'POST',
      headers: {
        'x-platform-user': 'bob',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }),
    });
    expect(bob.status).toBe(404);
    expect(up.hits.length).toBe(hits);
    expect(textOf(await alice.callTool({ name: 'echo', arguments: { text: 'still' } }, undefined, TIMEOUT))).toBe('echo: still');
  });
});
