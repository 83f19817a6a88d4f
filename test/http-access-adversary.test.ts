// The access layer attacked the way a hostile client would. Each test here failed before its fix.
import { describe, expect, it, vi } from 'vitest';
import { createFilteringProxy } from '../src/http/index.js';

vi.setConfig({ testTimeout: 30_000 });

const post = (url: string, headers: Record<string, string> = {}) =>
  new Request(url, {
    method: 'POST',
    headers: { host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

describe('proxy paths never leave the upstream origin', () => {
  for (const path of ['//evil.example/steal', '/.//evil.example/steal', '//evil.example:8443/x?y=1']) {
    it(`${path} goes to the upstream's host, with the upstream header`, async () => {
      const seen: URL[] = [];
      const handler = createFilteringProxy({
        upstream: 'https://upstream.example/mcp',
        upstreamHeaders: { authorization: 'Bearer upstream-secret' },
        fetch: async (input) => {
          seen.push(new URL(input instanceof Request ? input.url : input));
          return new Response('{}', { status: 404, headers: { 'content-type': 'application/json' } });
        },
      });
      await handler(post(`http://localhost${path}`));
      expect(seen[0]?.pathname).toBe(new URL(`http://localhost${path}`).pathname);
      expect(seen.length).toBe(1);
      expect(seen[0]!.host).toBe('upstream.example');
    });
  }
});
