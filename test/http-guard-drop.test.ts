// createFilteringFetch (and so `connect`) and createFilteringProxy (and so `proxy`) with `guard`,
// and a tools/call that has no id (a notification, or `"id": null`): over real sockets, the
// upstream never receives it, the POST gets what a body of notifications gets (202, nothing to
// read), the trail names it (rule malformed, no request), and a request beside it in a batch goes
// on and is answered. See guard/drop.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import type { AuditEntry } from '../src/guard/audit.js';
import { createFilteringFetch, createFilteringProxy } from '../src/http/index.js';
import { closer } from './http-helpers.ts';
import { dropCall as call, dropNote as note } from './mcp-guard-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });
const cleanup: (() => Promise<unknown> | undefined)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

type Rpc = { id?: unknown; method?: string; params?: { name?: string } };
const TOOLS = [
  { name: 'echo', inputSchema: { type: 'object' } },
  { name: 'delete_all', inputSchema: { type: 'object' } },
];

/** A JSON-answering MCP endpoint on a real socket that keeps every body it is POSTed. */
async function upstream() {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const body = JSON.parse(text) as Rpc | Rpc[];
      bodies.push(body);
      const result = (m: Rpc) =>
        m.method === 'tools/list' ? { tools: TOOLS } : { content: [{ type: 'text', text: `ran ${m.params?.name}` }] };
      const requests = [body].flat().filter((m) => m.method && m.id !== undefined);
      const answers = requests.map((m) => ({ jsonrpc: '2.0', id: m.id, result: result(m) }));
      if (!answers.length) res.writeHead(202).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  cleanup.push(closer(server));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, bodies };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe.each(['fetch', 'proxy'] as const)('%s with guard drops a tools/call without an id', (way) => {
  it('alone, with id null, beside a request in a batch, a batch of them only: the upstream never sees one', async () => {
    const up = await upstream();
    const audit: AuditEntry[] = [];
    let send: typeof fetch;
    let url = up.url;
    if (way === 'proxy') {
      const { server, url: at } = await listen(
        createFilteringProxy({ upstream: up.url, guard: 'all', onAudit: (e) => audit.push(e) }),
        '127.0.0.1',
        0,
        () => {},
      );
      cleanup.push(closer(server));
      send = fetch;
      url = `${at}/mcp`;
    } else send = createFilteringFetch({ guard: 'all', onAudit: (e) => audit.push(e) }) as typeof fetch;
    const post = (body: unknown) => send(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
    expect(await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).json()).toMatchObject({ id: 1 });

    for (const body of [note('delete_all'), note('delete_all', { id: null }), [note('delete_all'), note('echo')]]) {
      const res = await post(body);
      expect(res.status).toBe(202);
      expect(await res.text()).toBe('');
    }
    const both = await post([call(2, 'echo'), note('delete_all')]);
    expect(both.status).toBe(200);
    expect(await both.json()).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'ran echo' }] } }]);

    expect(up.bodies).toEqual([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, [call(2, 'echo')]]);
    const drop = (tool: string) => ({ tool, decision: 'blocked', rule: 'malformed' });
    expect(audit.filter((e) => e.decision !== 'allowed').map(({ time, ...e }) => e)).toEqual([
      drop('delete_all'),
      drop('delete_all'),
      drop('delete_all'),
      drop('echo'),
      drop('delete_all'),
    ]);
    expect(JSON.stringify(audit)).not.toContain('SECRET');
  });
});
