// The proxy's guard reads the POST bodies it decodes: JSON ones. A JSON-RPC body sent under
// another media type would pass it unread, to an upstream that may still take it (older SDK
// servers matched `application/json` anywhere in Content-Type, as in
// `text/plain; x="application/json"` or `application/json-rpc`). With a guard such a body is
// refused (415), with an error under each of its requests' ids; a body that is no JSON (an OAuth
// form) goes on as before.
import { describe, expect, it } from 'vitest';
import { createFilteringProxy, type FetchLike } from '../src/http/index.js';

const call = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'read', arguments: { path: '/etc/passwd' } },
});

describe('the proxy guard and Content-Type', () => {
  it('refuses a JSON body under another media type (415); passes a form on', async () => {
    const seen: string[] = [];
    const lax: FetchLike = async (input, init) => {
      seen.push(await new Request(input, init).text());
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [] } }), {
        headers: { 'content-type': 'application/json' },
      });
    };
    const handler = createFilteringProxy({ upstream: 'http://up.test/mcp', fetch: lax, guard: 'tools', roots: ['/data'] });
    const post = (type: string, body: string, path = '/mcp') =>
      handler(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': type, host: 'localhost' }, body }));
    for (const type of ['text/plain; x="application/json"', 'application/json-rpc', 'text/plain', 'application/x-www-form-urlencoded']) {
      const r = await post(type, call);
      expect(r.status, type).toBe(415);
      expect(await r.text()).not.toContain('passwd');
    }
    const batch = await post(
      'text/plain',
      `\uFEFF[${call},{"jsonrpc":"2.0","id":12345678901234567890,"method":"x"},{"jsonrpc":"2.0","method":"n"}]`,
    );
    expect(batch.status).toBe(415);
    // Each request answered under its id as written, so the client does not wait for it.
    const text = await batch.text();
    expect(text).toMatch(
      /^\[\{"jsonrpc":"2\.0","id":1,"error":\{"code":-32000,.*\},\{"jsonrpc":"2\.0","id":12345678901234567890,"error":\{"code":-32000,.*\}\]$/,
    );
    expect(text).not.toContain('passwd');
    expect(seen).toEqual([]);
    expect((await post('application/x-www-form-urlencoded', 'grant_type=client_credentials', '/token')).status).toBe(200);
    expect(seen).toEqual(['grant_type=client_credentials']);
  });
});
