// roots and onAudit in the library: createFilteringFetch (lexical: the server is elsewhere) and
// ToolCallGuardTransport (with realpath: the server is here), each with the real SDK client
// against the SDK's own Streamable HTTP server on a real socket. Calls outside the roots are
// answered isError and never reach the server; onAudit gets one entry per tools/call judged,
// with the session and the id, and never a value sent. (createFilteringProxy takes the same
// options through the same guards: test/e2e-filesystem-roots-http.test.ts runs it as `proxy`.)
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localRealpath } from '../src/cli/roots.ts';
import type { AuditEntry } from '../src/guard/audit.ts';
import { createFilteringFetch, createFilteringProxy } from '../src/http/index.ts';
import { ToolCallGuardTransport } from '../src/mcp/index.ts';
import { startUpstream, type Upstream } from './fixtures/http-upstream.ts';
import { TIMEOUT } from './http-helpers.ts';
import { createTestServer, type Seen } from './mcp-sdk.ts';

vi.setConfig({ testTimeout: 15_000 });
const done: (() => unknown)[] = [];
afterEach(async () => {
  while (done.length) await done.pop()!();
});

/** The SDK's server (createTestServer: write_file {path, content}) on a socket, stateful. */
async function upstream(): Promise<{ up: Upstream; seen: Seen }> {
  const seen: Seen = { calls: [] };
  const up = await startUpstream('stateful', { server: () => createTestServer(seen) });
  done.push(() => up.close());
  return { up, seen };
}

/** The ids of the tools/call requests a fetch sends, in order. */
function recording(inner: typeof fetch) {
  const ids: unknown[] = [];
  const f: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') {
      const m = JSON.parse(init.body) as { id?: unknown; method?: string };
      if (m.method === 'tools/call') ids.push(m.id);
    }
    return inner(input, init);
  };
  return { f, ids };
}

async function connected(transport: StreamableHTTPClientTransport | ToolCallGuardTransport) {
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(transport, TIMEOUT);
  done.push(() => client.close().catch(() => {}));
  await client.listTools(undefined, TIMEOUT);
  return (path: string, content = 'SECRET-CONTENT') =>
    client.callTool({ name: 'write_file', arguments: { path, content } }, undefined, TIMEOUT) as Promise<CallToolResult>;
}

const isBlocked = (r: CallToolResult, pointer: string) =>
  r.isError === true && (r.content[0] as { text: string }).text.includes(`argument "${pointer}" is a path outside the allowed roots`);

describe('createFilteringFetch({ guard, roots, onAudit })', () => {
  it('blocks paths outside (lexically) and damaged calls; one entry per call, with the session; no value', async () => {
    const { up, seen } = await upstream();
    const entries: AuditEntry[] = [];
    const filtering = createFilteringFetch({ guard: 'all', roots: ['/srv/data'], onAudit: (e) => entries.push(e) });
    const { f, ids } = recording(filtering as typeof fetch); // (what the client sends, before the filter)
    const transport = new StreamableHTTPClientTransport(new URL(up.url), { fetch: f });
    const write = await connected(transport);
    expect((await write('/srv/data/SECRET-in.txt')).isError ?? false).toBe(false);
    expect(isBlocked(await write('/srv/data/../SECRET-out.txt'), '/path')).toBe(true);
    expect(isBlocked(await write('file:///etc/SECRET-uri'), '/path')).toBe(true);
    expect((await write('/srv/data/SECRET-damaged.txt', 'SECRET \uFFFD')).isError).toBe(true);
    expect(seen.calls.map((c) => c.args)).toEqual([{ path: '/srv/data/SECRET-in.txt', content: 'SECRET-CONTENT' }]);
    const session = transport.sessionId!;
    expect(entries.map(({ time, ...e }) => e)).toEqual([
      { session, request: JSON.stringify(ids[0]), tool: 'write_file', decision: 'allowed' },
      { session, request: JSON.stringify(ids[1]), tool: 'write_file', decision: 'blocked', rule: 'outside-roots', paths: ['/path'] },
      { session, request: JSON.stringify(ids[2]), tool: 'write_file', decision: 'blocked', rule: 'outside-roots', paths: ['/path'] },
      { session, request: JSON.stringify(ids[3]), tool: 'write_file', decision: 'blocked', rule: 'damaged', paths: ['/content'] },
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/SECRET|srv/);
  });

  it('refuses roots or onAudit without guard, and a root that is not absolute', () => {
    expect(() => createFilteringFetch({ roots: ['/srv'] })).toThrow(/roots and onAudit need guard/);
    expect(() => createFilteringProxy({ upstream: 'http://127.0.0.1:1/mcp', onAudit: () => {} })).toThrow(/roots and onAudit need guard/);
    expect(() => createFilteringFetch({ guard: 'tools', roots: ['srv'] })).toThrow(/root 1 is not an absolute path/);
  });
});

describe('ToolCallGuardTransport({ roots, realpath, onAudit })', () => {
  it('follows a symlink out of the root; its entries carry the transport session', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-guard-transport-')));
    done.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'root'));
    mkdirSync(join(dir, 'outside'));
    symlinkSync(join(dir, 'outside'), join(dir, 'root', 'link'));
    const { up, seen } = await upstream();
    const entries: AuditEntry[] = [];
    const { f, ids } = recording(fetch);
    const inner = new StreamableHTTPClientTransport(new URL(up.url), { fetch: f });
    const guarded = new ToolCallGuardTransport(inner, {
      roots: [join(dir, 'root')],
      realpath: localRealpath,
      onAudit: (e) => entries.push(e),
    });
    const write = await connected(guarded);
    expect((await write(join(dir, 'root', 'SECRET-in.txt'))).isError ?? false).toBe(false);
    expect(isBlocked(await write(join(dir, 'root', 'link', 'SECRET-out.txt')), '/path')).toBe(true);
    expect(seen.calls).toHaveLength(1);
    const session = inner.sessionId!;
    expect(entries.map(({ time, ...e }) => e)).toEqual([
      { session, request: JSON.stringify(ids[0]), tool: 'write_file', decision: 'allowed' },
      // (a blocked call never leaves: its id is the next the client numbered)
      {
        session,
        request: JSON.stringify((ids[0] as number) + 1),
        tool: 'write_file',
        decision: 'blocked',
        rule: 'outside-roots',
        paths: ['/path'],
      },
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/SECRET|mcp-guard-transport/);
  });
});
