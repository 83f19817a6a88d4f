// Session churn against the proxy's guard at its default bounds (too slow for `npm test`:
// test/http-guard-churn.test.ts does the same with a small bound). Live sessions list once;
// other clients then open more sessions than the proxy keeps; every 500, half the live sessions
// (and one that never listed) call an unknown tool (must be blocked) and a known one (must run),
// the other half once at the end (their lists forgotten by then). Prints what reached the upstream, how often the guard asked, and the RSS.
// node scripts/run-ts.mjs bench/guard-churn.ts [sessions=6000]
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen } from '../src/cli/node-http.js';
import { createFilteringProxy } from '../src/http/index.js';
import { GUARDED_SESSIONS } from '../src/http/session-guards.js';

const total = Number(process.argv[2] ?? 6000);
const TOOLS = { tools: [{ name: 'move', inputSchema: { type: 'object' } }] };
const sessions = new Set<string>();
const reached: string[] = [];
let lists = 0;
let issued = 0;
const up = createServer(async (req: IncomingMessage, res: ServerResponse) => {
  let text = '';
  for await (const c of req) text += c;
  const m = JSON.parse(text) as { id?: unknown; method: string; params?: { name?: string } };
  if (m.method === 'initialize') {
    const id = `s${++issued}`;
    sessions.add(id);
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': id });
    return void res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: m.id,
        result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'up', version: '1' } },
      }),
    );
  }
  if (!sessions.has(String(req.headers['mcp-session-id']))) return void res.writeHead(404).end();
  if (m.method === 'tools/list') {
    lists++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    return void res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: TOOLS })}\n\n`);
  }
  reached.push(m.params?.name ?? '');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ran' }] } }));
});
up.listen(0, '127.0.0.1');
await new Promise((r) => up.once('listening', r));
const upstream = `http://127.0.0.1:${(up.address() as AddressInfo).port}/mcp`;
const { server, url } = await listen(createFilteringProxy({ upstream, guard: 'tools' }), '127.0.0.1', 0, () => {});
const endpoint = `${url}/mcp`;

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const post = (body: unknown, session?: string) =>
  fetch(endpoint, {
    method: 'POST',
    headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) },
    body: JSON.stringify(body),
  });
const open = async () => {
  const r = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  });
  await r.text();
  return r.headers.get('mcp-session-id')!;
};
const outcome = async (session: string, name: string) => {
  const r = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }, session);
  const { result } = (await r.json()) as { result: { isError?: boolean; content: { text: string }[] } };
  return result.isError ? 'blocked' : result.content[0]!.text;
};

const live = await Promise.all(Array.from({ length: 8 }, open));
for (const s of live) await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, s)).text();
const silent = await open();
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
let wrong = 0;
let checks = 0;
async function check(s: string) {
  const got = [await outcome(s, 'evil'), await outcome(s, 'move')];
  checks++;
  if (got[0] !== 'blocked' || got[1] !== 'ran') wrong++;
}
for (let opened = 0; opened < total; ) {
  const n = Math.min(500, total - opened);
  for (let i = 0; i < n; i += 32) await Promise.all(Array.from({ length: Math.min(32, n - i) }, open));
  opened += n;
  // The busy ones call every round (kept: recently used); the idle ones only at the end (pushed out).
  for (const s of [...live.slice(0, 4), silent]) await check(s);
}
for (const s of live.slice(4)) await check(s);
const seconds = (performance.now() - t0) / 1000;
console.log(
  `${total} sessions churned past a bound of ${GUARDED_SESSIONS} in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s); ` +
    `${checks} checks, ${wrong} wrong; unknown tools that reached the upstream: ${reached.filter((r) => r !== 'move').length}; ` +
    `lists asked for by the guard: ${lists - live.length}; RSS growth ${((process.memoryUsage().rss - rss0) / 2 ** 20).toFixed(1)} MiB`,
);
server.closeAllConnections();
server.close();
up.closeAllConnections();
up.close();
process.exitCode = wrong ? 1 : 0;
