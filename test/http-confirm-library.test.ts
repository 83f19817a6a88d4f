// confirm and askUser on the HTTP pieces: createFilteringFetch and createFilteringProxy, the real
// SDK client against the SDK's own Streamable HTTP server on a real socket. Over HTTP the guard
// cannot ask the client itself: askUser decides (told the tool and the argument names, never the
// values); without it a call the rule names is blocked. The trail says confirmed / declined.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../src/guard/audit.ts';
import type { ConfirmRequest } from '../src/guard/confirm.ts';
import { createFilteringFetch, createFilteringProxy } from '../src/http/index.ts';
import { startUpstream } from './fixtures/http-upstream.ts';
import { TIMEOUT } from './http-helpers.ts';
import { createTestServer, type Seen } from './mcp-sdk.ts';

vi.setConfig({ testTimeout: 15_000 });
const done: (() => unknown)[] = [];
afterEach(async () => {
  while (done.length) await done.pop()!();
});

/** A client through `via` (a fetch) to the SDK's server; `write` calls write_file. */
async function session(via: (up: string) => typeof fetch) {
  const seen: Seen = { calls: [] };
  const up = await startUpstream('stateful', { server: () => createTestServer(seen) });
  done.push(() => up.close());
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(up.url), { fetch: via(up.url) }), TIMEOUT);
  done.push(() => client.close().catch(() => {}));
  await client.listTools(undefined, TIMEOUT);
  const write = async (path: string) => {
    const r = (await client.callTool({ name: 'write_file', arguments: { path, content: 'SECRET' } }, undefined, TIMEOUT)) as CallToolResult;
    return r.isError ? (r.content[0] as { text: string }).text.replace(/^.*the server: /, '') : 'ran';
  };
  return { write, seen };
}

describe('confirm with askUser over HTTP', () => {
  it('createFilteringFetch: askUser decides; the trail says confirmed, declined', async () => {
    const asked: ConfirmRequest[] = [];
    const entries: AuditEntry[] = [];
    let yes = true;
    const filtering = createFilteringFetch({
      guard: 'tools',
      confirm: ['write_file'],
      askUser: async (r) => {
        asked.push(r);
        return yes;
      },
      onAudit: (e) => entries.push(e),
    });
    const { write, seen } = await session(() => filtering as typeof fetch);
    expect(await write('/a')).toBe('ran');
    yes = false;
    expect(await write('/b')).toBe('declined by the user');
    expect(seen.calls.map((c) => (c.args as { path: string }).path)).toEqual(['/a']);
    expect(asked).toEqual([
      { tool: 'write_file', argumentNames: ['path', 'content'] },
      { tool: 'write_file', argumentNames: ['path', 'content'] },
    ]);
    expect(entries.map((e) => [e.decision, e.rule])).toEqual([
      ['confirmed', 'confirm'],
      ['declined', 'confirm'],
    ]);
  });

  it('createFilteringProxy without askUser: the call is blocked, it cannot be asked; confirm needs guard', async () => {
    let proxy: ((request: Request) => Promise<Response>) | undefined;
    const { write, seen } = await session((url) => {
      proxy = createFilteringProxy({ upstream: url, guard: 'all', confirm: ['destructive', 'write_file'] });
      return ((input: string | URL | Request, init?: RequestInit) => proxy!(new Request(input, init))) as typeof fetch;
    });
    expect(await write('/a')).toBe('needs a confirmation that this client cannot ask for');
    expect(seen.calls).toEqual([]);
    expect(() => createFilteringFetch({ confirm: ['x'] })).toThrow(/confirm needs guard/);
  });
});
