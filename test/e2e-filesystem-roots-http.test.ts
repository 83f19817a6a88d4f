// --root and --audit over Streamable HTTP, end to end: the real server-filesystem (behind the
// stdin spy, allowed the whole scratch folder) through `serve --guard --root` (the child runs
// here: symlinks followed), and through `proxy --guard --root` in front of a `serve` without a
// guard (lexical: the server is elsewhere), each driven by the real SDK client. Inside works;
// every escape is answered isError and never reaches the server nor the disk; the audit file
// holds one line per decision, with the session and the id as written, and no value sent.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUEST } from './e2e-helpers.ts';
import { escapes, expectBlocked, expectNothingEscaped, insideWorks, type Scratch, scratch, textOf } from './filesystem-roots.ts';
import { cleanup, listening } from './http-cli-helpers.ts';

const T = 60_000;
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** The SDK client on `url`, with the id of each tools/call it POSTs, in order. */
async function client(url: string) {
  const calls: { id: unknown; tool: string }[] = [];
  const recording: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') {
      const m = JSON.parse(init.body) as { id?: unknown; method?: string; params?: { name?: string } };
      if (m.method === 'tools/call') calls.push({ id: m.id, tool: m.params!.name! });
    }
    return fetch(input, init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recording });
  const c = new Client({ name: 'e2e', version: '1.0.0' });
  await c.connect(transport, REQUEST);
  cleanup.push(() => c.close().catch(() => {}));
  const call = (name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }, undefined, REQUEST);
  return { call, calls, session: () => transport.sessionId };
}

/** Inside works, each escape is blocked, a damaged call too; then the trail is read. */
async function drive(url: string, s: Scratch, followsLinks: boolean, audit: string) {
  const { call, calls, session } = await client(url);
  await insideWorks(call, s);
  for (const [, name, args, pointer] of escapes(s, followsLinks)) await expectBlocked(call, name, args, pointer);
  const damaged = (await call('write_file', { path: join(s.root, 'escape-damaged.txt'), content: 'secret \uFFFD' })) as never;
  expect(textOf(damaged)).toMatch(/argument "content" of tool "write_file" contains 1 invalid UTF-8 replacement character/);
  expectNothingEscaped(s);
  const text = readFileSync(audit, 'utf8');
  // One line per decision, each with the session and the id as the client wrote it.
  const trail = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(trail.map((e) => [e.request, e.tool, e.session])).toEqual(calls.map((c) => [JSON.stringify(c.id), c.tool, session()]));
  const blocked = trail.filter((e) => e.decision === 'blocked').map(({ time, request, session, ...e }) => e);
  expect(blocked).toEqual([
    ...escapes(s, followsLinks).map(([, tool, , pointer]) => ({ tool, decision: 'blocked', rule: 'outside-roots', paths: [pointer] })),
    { tool: 'write_file', decision: 'blocked', rule: 'damaged', paths: ['/content'] },
  ]);
  expect(trail.filter((e) => e.decision === 'allowed')).toHaveLength(5);
  // Never a value sent (every path holds the scratch folder's name).
  expect(text).not.toContain(s.dir);
  expect(text).not.toMatch(/escape-|secret|written inside|second root/);
  expect(statSync(audit).mode & 0o777).toBe(0o600);
}

function trailFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'mcp-roots-audit-'));
  made.push(d);
  return join(d, 'audit.ndjson');
}

describe('--root and --audit over Streamable HTTP with server-filesystem', () => {
  it(
    'serve --guard --root: symlinks followed, every escape blocked and never sent; the trail has the session',
    async () => {
      const s = scratch('mcp-fs-serve-');
      made.push(s.dir);
      const audit = trailFile();
      const { url } = await listening([
        'serve',
        '--port',
        '0',
        '--guard',
        '--root',
        s.root,
        '--root',
        s.second,
        '--audit',
        audit,
        '--audit-all',
        '--',
        ...s.server,
      ]);
      await drive(url, s, true, audit);
    },
    T,
  );

  it(
    'proxy --guard --root in front of serve: the lexical escapes blocked and never sent; the trail has the session',
    async () => {
      const s = scratch('mcp-fs-proxy-');
      made.push(s.dir);
      const audit = trailFile();
      const upstream = await listening(['serve', '--port', '0', '--', ...s.server]);
      const { url } = await listening([
        'proxy',
        '--port',
        '0',
        '--upstream',
        upstream.url,
        '--guard',
        '--root',
        s.root,
        '--root',
        s.second,
        '--audit',
        audit,
        '--audit-all',
      ]);
      await drive(url, s, false, audit);
    },
    T,
  );
});
