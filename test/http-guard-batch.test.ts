// The HTTP guard with batches and both response forms, in process: createFilteringProxy and
// createFilteringFetch with `guard`, in front of the SDK's Streamable HTTP server (JSON
// responses and event streams). A batch part of which is blocked gets ONE answer holding the
// server's answers and the guard's.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { createFilteringFetch, createFilteringProxy } from '../src/http/index.js';
import { decodeText, encodeText } from '../src/index.js';
import { startUpstream, type Upstream } from './fixtures/http-upstream.js';
import { closer } from './http-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });
const cleanup: (() => Promise<unknown> | undefined)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

async function upstream(json: boolean): Promise<Upstream> {
  const up = await startUpstream('stateful', { json });
  cleanup.push(() => up.close());
  return up;
}

/** The messages of a response body, JSON or an event stream. */
async function messages(res: Response): Promise<{ id?: unknown; result?: { content?: { text: string }[]; isError?: boolean } }[]> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return text
      .split(/\n\n/)
      .flatMap((e) =>
        e
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6)),
      )
      .filter((d) => d.trim())
      .flatMap((d) => JSON.parse(d));
  }
  const v = JSON.parse(text);
  return Array.isArray(v) ? v : [v];
}

/** A session through `send` (a fetch): initialize, initialized, tools/list; returns a poster. */
async function session(send: typeof fetch, url: string) {
  const init = await send(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(initialize) });
  const sid = init.headers.get('mcp-session-id')!;
  await init.text();
  const headers = { ...HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26' };
  const post = (body: unknown) => send(url, { method: 'POST', headers, body: JSON.stringify(body) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).text();
  return post;
}

const ways = [
  ['proxy', 'json'],
  ['proxy', 'sse'],
  ['fetch', 'json'],
  ['fetch', 'sse'],
] as const;

describe.each(ways)('guard through %s, upstream answering %s', (way, form) => {
  async function start() {
    const up = await upstream(form === 'json');
    if (way === 'proxy') {
      const handler = createFilteringProxy({ upstream: up.url, guard: 'all' });
      const { server, url } = await listen(handler, '127.0.0.1', 0, () => {});
      cleanup.push(closer(server));
      return { up, post: await session(fetch, `${url}/mcp`) };
    }
    return { up, post: await session(createFilteringFetch({ guard: 'all' }) as typeof fetch, up.url) };
  }

  it('a batch with one blocked call: one answer with both, the blocked one never sent', async () => {
    const { up, post } = await start();
    const res = await post([
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: encodeText('qwen_nope'), arguments: {} } },
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { text: encodeText('Qwen') } } },
    ]);
    expect(res.status).toBe(200);
    const got = await messages(res);
    expect(got.map((m) => m.id).sort()).toEqual([7, 8]);
    const blocked = got.find((m) => m.id === 7)!.result!;
    expect(blocked.isError).toBe(true);
    expect(blocked.content![0]!.text).not.toMatch(/qwen/i);
    expect(decodeText(blocked.content![0]!.text)).toMatch(/^MCP tool call "qwen_nope" was blocked/);
    expect(got.find((m) => m.id === 8)!.result!.content![0]!.text).toBe(encodeText('echo: Qwen'));
    expect(up.calls).toEqual([{ tool: 'echo', args: { text: 'Qwen' } }]);
  });

  it('a batch blocked whole, and a single blocked call, are answered here', async () => {
    const { up, post } = await start();
    const before = up.hits.length;
    const single = await messages(
      await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x\uFFFD' } } }),
    );
    expect(single).toHaveLength(1);
    expect(single[0]!.result!.isError).toBe(true);
    const batch = await post([
      { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'nope', arguments: {} } },
      { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'echo', arguments: { text: 1 } } },
    ]);
    const got = await messages(batch);
    expect(got.map((m) => [m.id, m.result!.isError])).toEqual([
      [10, true],
      [11, true],
    ]);
    expect(up.hits.slice(before).filter((h) => h.method === 'POST')).toEqual([]);
  });
});
