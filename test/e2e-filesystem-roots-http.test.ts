// --root and --audit over Streamable HTTP, end to end: the real server-filesystem (behind the
// stdin spy, allowed the whole scratch folder) through `serve --guard --root` (the child runs
// here: symlinks followed), and through `proxy --guard --root` and `connect --guard --root` to a
// `serve` without a guard (lexical: the server is elsewhere), each driven by the real SDK client. Inside works;
// every escape is answered isError and never reaches the server nor the disk; the audit file
// holds one line per decision, with the session and the id as written, and no value sent.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REQUEST, ROOT } from './e2e-helpers.ts';
import { type Call, escapes, expectBlocked, expectNothingEscaped, insideWorks, type Scratch, scratch, textOf } from './filesystem-roots.ts';
import { cleanup, listening } from './http-cli-helpers.ts';

const T = 60_000;
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A client driving the command: its callTool, the tools/call ids it sent (in order), and the session the trail should name. */
interface Driven {
  call: Call;
  calls: { id: unknown; tool: string }[];
  /** The session every line names (connect's own session with the server is not the client's to see: undefined). */
  session: () => string | undefined;
}

/** Records each tools/call a transport sends. */
function recordCalls(transport: Transport): Driven['calls'] {
  const calls: Driven['calls'] = [];
  const send = transport.send.bind(transport);
  transport.send = (m, options) => {
    const r = m as { id?: unknown; method?: string; params?: { name?: string } };
    if (r.method === 'tools/call') calls.push({ id: r.id, tool: r.params!.name! });
    return send(m, options);
  };
  return calls;
}

async function connected(transport: Transport): Promise<Call> {
  const c = new Client({ name: 'e2e', version: '1.0.0' });
  await c.connect(transport, REQUEST);
  cleanup.push(() => c.close().catch(() => {}));
  return (name, args) => c.callTool({ name, arguments: args }, undefined, REQUEST);
}

/** The SDK client over Streamable HTTP on `url`. */
async function overHttp(url: string): Promise<Driven> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const calls = recordCalls(transport);
  return { call: await connected(transport), calls, session: () => transport.sessionId };
}

/** The SDK client over stdio, through `connect ARGS`. */
async function overConnect(args: string[]): Promise<Driven> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'connect', ...args], cwd: ROOT, stderr: 'pipe' });
  const calls = recordCalls(transport);
  return { call: await connected(transport), calls, session: () => undefined };
}

/** Inside works, each escape is blocked, a damaged call too; then the trail is read. */
async function drive({ call, calls, session }: Driven, s: Scratch, followsLinks: boolean, audit: string) {
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
  const named = session() ?? (trail[0]?.session as string);
  expect(named).toMatch(/^[0-9a-f-]{36}$/);
  expect(trail.map((e) => [e.request, e.tool, e.session])).toEqual(calls.map((c) => [JSON.stringify(c.id), c.tool, named]));
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

/** Each command's guard: both roots, every decision to the trail. */
const guardFlags = (s: Scratch, audit: string) => ['--guard', '--root', s.root, '--root', s.second, '--audit', audit, '--audit-all'];

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
      const { url } = await listening(['serve', '--port', '0', ...guardFlags(s, audit), '--', ...s.server]);
      await drive(await overHttp(url), s, true, audit);
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
      const { url } = await listening(['proxy', '--port', '0', '--upstream', upstream.url, ...guardFlags(s, audit)]);
      await drive(await overHttp(url), s, false, audit);
    },
    T,
  );

  it(
    "connect --guard --root to serve: the same, the trail naming the server's session",
    async () => {
      const s = scratch('mcp-fs-connect-');
      made.push(s.dir);
      const audit = trailFile();
      const upstream = await listening(['serve', '--port', '0', '--', ...s.server]);
      await drive(await overConnect([upstream.url, ...guardFlags(s, audit)]), s, false, audit);
    },
    T,
  );
});
