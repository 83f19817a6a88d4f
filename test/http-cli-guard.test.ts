// --guard and --guard-tools-only on proxy, connect and serve, as processes: the SDK client,
// the real command, and a real server (the SDK's McpServer over Streamable HTTP for proxy and
// connect, an SDK stdio server for serve). A blocked call is answered by the command with a
// tool result the model can read, encoded, and never reaches the server; --max-message-bytes
// is honoured by all three.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { decodeText, encodeText } from '../src/index.js';
import { startUpstream } from './fixtures/http-upstream.js';
import { type Closer, cleanup, listening, MAIN, ROOT } from './http-cli-helpers.ts';
import { TIMEOUT, textOf } from './http-helpers.ts';

vi.setConfig({ testTimeout: 30_000 });
const STDIO_SERVER = [process.execPath, 'test/fixtures/http-stdio-server.mjs'];

type Command = 'proxy' | 'connect' | 'serve';

/** serve or proxy (in front of a stateful upstream) with `flags`, listening; `close` takes their end. */
async function started(command: 'proxy' | 'serve', flags: string[], close: Closer) {
  if (command === 'serve') return { ...(await listening(['serve', '--port', '0', ...flags, ...STDIO_SERVER], {}, close)), hits: undefined };
  const up = await startUpstream('stateful');
  close(() => up.close());
  return { ...(await listening(['proxy', '--upstream', up.url, '--port', '0', ...flags], {}, close)), hits: up.hits };
}

// serve and proxy without flags, one each for the file (the case without a guard, and the 413
// case's other half: they only send requests), closed after its last case.
const closes: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of closes.reverse()) await c();
});
const plainOnes: Partial<Record<'proxy' | 'serve', ReturnType<typeof started>>> = {};
const plain = (command: 'proxy' | 'serve') => (plainOnes[command] ??= started(command, [], (c) => void closes.push(c)));

/**
 * An SDK client through `command` with `flags`; `reached()` counts the tool calls that reached
 * the server since (for serve: none can be seen from here, so blocked answers are told apart by
 * text).
 */
async function through(command: Command, flags: string[]) {
  const client = new Client({ name: 'host', version: '1.0.0' });
  let reached: () => string[] = () => [];
  let stderr: () => string;
  if (command !== 'connect') {
    const s = await (flags.length === 0 ? plain(command) : started(command, flags, cleanup.push));
    stderr = s.stderr;
    const calls = () => (s.hits ?? []).filter((h) => h.rpc === 'tools/call').map(() => 'tools/call');
    const before = calls().length;
    reached = () => calls().slice(before);
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)), TIMEOUT);
  } else {
    const up = await startUpstream('stateful');
    cleanup.push(() => up.close());
    reached = () => up.hits.filter((h) => h.rpc === 'tools/call').map(() => 'tools/call');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'connect', up.url, ...flags],
      cwd: ROOT,
      stderr: 'pipe',
    });
    let err = '';
    transport.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    stderr = () => err;
    await client.connect(transport, TIMEOUT);
  }
  cleanup.push(() => client.close().catch(() => {}));
  return { client, reached, stderr: () => stderr() };
}

const blockedPrefix = (tool: string) => `MCP tool call ${JSON.stringify(tool)} was blocked before it reached the server: `;
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }, undefined, TIMEOUT);

describe.each<Command>(['proxy', 'connect', 'serve'])('%s --guard', (command) => {
  it('blocks unknown tools, schema-invalid arguments and U+FFFD; answers are encoded tool results; good calls pass', async () => {
    const { client, reached, stderr } = await through(command, ['--guard']);
    await client.listTools(undefined, TIMEOUT);
    // Unknown tool: its name holds a term, so the answer names it only as a token.
    const unknown = await call(client, encodeText('qwen_tool'), {});
    expect(unknown.isError).toBe(true);
    expect(encodeText(decodeText(textOf(unknown)))).toBe(textOf(unknown));
    expect(textOf(unknown)).not.toMatch(/qwen/i);
    expect(decodeText(textOf(unknown))).toBe(`${blockedPrefix('qwen_tool')}tool "qwen_tool" is not in the server's current tool list`);
    // Arguments that fail the schema (text must be a string).
    const invalid = await call(client, 'echo', { text: 5 });
    expect(invalid.isError).toBe(true);
    expect(decodeText(textOf(invalid))).toMatch(
      new RegExp(
        `^${blockedPrefix('echo').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}arguments do not match the tool's inputSchema: /text must be string`,
      ),
    );
    // U+FFFD in an argument: blocked, the reason names the place, never the text.
    const damaged = await call(client, 'echo', { text: `${encodeText('Qwen')} broken \uFFFD` });
    expect(damaged.isError).toBe(true);
    expect(textOf(damaged)).toMatch(/argument "text" of tool "echo" contains 1 invalid UTF-8 replacement character/);
    expect(textOf(damaged)).not.toContain('broken');
    // Half a surrogate pair (sent as the escape \ud83d): the same damage, blocked the same way.
    const cut = await call(client, 'echo', { text: 'cut \ud83d' });
    expect(cut.isError).toBe(true);
    expect(textOf(cut)).toMatch(
      /argument "text" of tool "echo" contains 1 invalid UTF-8 replacement character\(s\) \(U\+FFFD, 1 of them lone/,
    );
    expect(reached()).toEqual([]);
    // A good call passes, decoded on its way, encoded on its way back.
    expect(textOf(await call(client, 'echo', { text: encodeText('Qwen') }))).toBe(encodeText('echo: Qwen'));
    if (command !== 'serve') expect(reached()).toHaveLength(1);
    expect(stderr()).toMatch(/blocked tools\/call "echo"/);
    expect(stderr()).not.toContain('broken');
  });

  it('--guard-tools-only checks tools but lets U+FFFD through', async () => {
    const { client, reached } = await through(command, ['--guard-tools-only']);
    await client.listTools(undefined, TIMEOUT);
    expect((await call(client, 'nope', {})).isError).toBe(true);
    expect(decodeText(textOf(await call(client, 'nope', {})))).toMatch(/^MCP tool call "nope" was blocked/);
    expect(textOf(await call(client, 'echo', { text: 'a \uFFFD' }))).toBe('echo: a \uFFFD');
    if (command !== 'serve') expect(reached()).toHaveLength(1);
  });

  it('without a guard, the same calls reach the server', async () => {
    const { client, reached } = await through(command, []);
    await client.listTools(undefined, TIMEOUT);
    const unknown = await call(client, 'nope', {});
    expect(decodeText(textOf(unknown))).not.toMatch(/was blocked before it reached the server/);
    expect(textOf(await call(client, 'echo', { text: 'a \uFFFD' }))).toBe('echo: a \uFFFD');
    if (command !== 'serve') expect(reached()).toHaveLength(2);
  });
});

describe('--max-message-bytes on the HTTP commands', () => {
  const LIMIT = 2048;
  const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  // An initialize request of about 4 KB (padding in a field the server ignores).
  const big = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' }, pad: 'x'.repeat(2 * LIMIT) },
  });

  it.each<'proxy' | 'serve'>(['proxy', 'serve'])('%s answers 413 to a body over the limit, and not without the flag', async (command) => {
    const limited = await started(command, ['--max-message-bytes', String(LIMIT)], cleanup.push);
    const refused = await fetch(limited.url, { method: 'POST', headers: HEADERS, body: big });
    expect(refused.status).toBe(413);
    expect(await refused.text()).toContain(`larger than ${LIMIT} bytes`);
    const open = await plain(command);
    const passed = await fetch(open.url, { method: 'POST', headers: HEADERS, body: big });
    expect(passed.status).toBe(200);
    await passed.body?.cancel();
  });

  it('connect refuses a line from the host over the limit, and not without the flag', async () => {
    const up = await startUpstream('stateless');
    cleanup.push(() => up.close());
    const run = async (flags: string[]) => {
      const p = spawn(process.execPath, [MAIN, 'connect', up.url, ...flags], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
      cleanup.push(() => void p.kill('SIGKILL'));
      let out = '';
      let err = '';
      p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      p.stdin!.write(big + '\n');
      // (without the flag, the answer comes; then the host leaves)
      while (!out.includes('\n') && p.exitCode === null) await new Promise((r) => setTimeout(r, 20));
      p.stdin!.end();
      const [code] = p.exitCode === null ? await once(p, 'exit') : [p.exitCode];
      return { code, out, err };
    };
    const limited = await run(['--max-message-bytes', String(LIMIT)]);
    expect(limited.code).toBe(1);
    expect(limited.err).toContain(`larger than maxMessageBytes (${LIMIT})`);
    expect(limited.out).toBe('');
    const open = await run([]);
    expect(open.code).toBe(0);
    expect(JSON.parse(open.out.split('\n')[0]!)).toMatchObject({ id: 0, result: { serverInfo: { name: 'http-upstream' } } });
  });
});

describe('--audit on the HTTP commands, when the trail cannot be written', () => {
  // (/dev/full opens, and every write to it fails with ENOSPC)
  it.each<'proxy' | 'serve'>(['serve', 'proxy'])('%s lets no call through and says why on stderr', async (command) => {
    const flags = ['--guard', '--audit', '/dev/full', '--audit-all'];
    let s: Awaited<ReturnType<typeof listening>>;
    let reached = () => 0;
    if (command === 'serve') s = await listening(['serve', '--port', '0', ...flags, ...STDIO_SERVER]);
    else {
      const up = await startUpstream('stateful');
      cleanup.push(() => up.close());
      reached = () => up.calls.length;
      s = await listening(['proxy', '--upstream', up.url, '--port', '0', ...flags]);
    }
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)), TIMEOUT);
    cleanup.push(() => client.close().catch(() => {}));
    await client.listTools(undefined, TIMEOUT);
    const answer = await call(client, 'echo', { text: 'SECRET' }).then(
      (r) => textOf(r),
      (e: Error) => e.message,
    );
    expect(answer).not.toMatch(/echo: SECRET/);
    expect(reached()).toBe(0);
    // (stderr is its own pipe: the line may come after the answer)
    const said = /writing the audit file failed \(ENOSPC\): the call is not let through/;
    for (const end = Date.now() + 5000; !said.test(s.stderr()) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
    expect(s.stderr()).toMatch(said);
  });
});
