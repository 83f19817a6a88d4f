// The proxy's guard keeps one tool list per MCP session the upstream issued. Ids a client makes
// up never push a live session's list out (else its unknown-tool check would silently go).
import { describe, expect, it } from 'vitest';
import { createFilteringProxy, type FetchLike } from '../src/http/index.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' };
const tools = { tools: [{ name: 'move', inputSchema: { type: 'object' } }] };

/** An upstream that issues session "live" at initialize and answers lists and calls as JSON. */
const upstream: FetchLike = async (input, init) => {
  const m = JSON.parse(await new Request(input, init).text()) as { id?: number; method: string };
  if (m.id === undefined) return new Response(null, { status: 202 });
  const result = m.method === 'tools/list' ? tools : m.method === 'initialize' ? {} : { content: [{ type: 'text', text: 'ran' }] };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (m.method === 'initialize') headers['mcp-session-id'] = 'live';
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }), { headers });
};

describe('the proxy guard per session', () => {
  it('keeps a live session’s list however many made-up session ids arrive', async () => {
    const handler = createFilteringProxy({ upstream: 'http://up.test/mcp', fetch: upstream, guard: 'tools' });
    const post = (body: unknown, session?: string) =>
      handler(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) },
          body: JSON.stringify(body),
        }),
      );
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    expect(init.headers.get('mcp-session-id')).toBe('live');
    await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, 'live')).text();
    for (let i = 0; i < 1100; i++) await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, `made-up-${i}`)).text();
    const call = await (
      await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'evil', arguments: {} } }, 'live')
    ).json();
    expect(call.result.isError).toBe(true);
    expect(call.result.content[0].text).toContain('is not in the server');
  });
});
