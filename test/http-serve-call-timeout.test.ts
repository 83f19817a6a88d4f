// serve --call-timeout: a request the child leaves unanswered is answered on its POST's event
// stream under its id as written (tools/call: an isError result; others: error -32001), the
// child is sent notifications/cancelled, a late answer never reaches the host, and progress
// keeps a call going up to the max. The real SDK client over HTTP; the child is a real process
// (fixtures/slow-server.mjs, which records every line it reads). The limit is 1 s, so the cases
// run at once, each in its own session (the timer's families: call-timer.test.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it, type TestContext, vi } from 'vitest';
import type { AuditEntry, OnAudit } from '../src/guard/audit.ts';
import { createCodec } from '../src/index.ts';
import { NO_ANSWER, progressUpToMax, record, seen, until } from './call-timeout-helpers.ts';
import { connectHost, RAW_INITIALIZE_PARAMS } from './http-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });

// serve times the host's initialize too, and a child starting on a loaded machine took past the
// limit to answer it (1.1-1.3 s to connect beside ten busy loops; an echo call to a running
// child, 50-180 ms). So each session's child is started first, and serve's startChild hands it
// to the session once it reads its input: what serve does with it from there is as in use.
const started = new Map<string, ChildProcess[]>();
vi.mock('../src/cli/serve-child.js', async (original) => ({
  ...(await original<typeof import('../src/cli/serve-child.js')>()),
  startChild: (command: string[]) => {
    const child = started.get(command.join(' '))?.shift();
    if (!child) throw new Error('no child started for this session');
    return child;
  },
}));
const { runServe } = await import('../src/cli/serve.js');
const SERVER = 'test/fixtures/slow-server.mjs';

/** A child for `command` (slow-server.mjs with `ready`), for the next session, once it reads its input; ended when test `t` ends. */
async function startFirst(t: TestContext, command: string[]): Promise<void> {
  const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  t.onTestFinished(() => void child.kill());
  child.stdin.on('error', () => {}); // (as serve's own: its end is read from its stdout)
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.once('exit', () => reject(new Error(`the child ended before it read its input: ${said}`)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      said += d;
      if (said.startsWith('ready\n')) resolve();
    });
  });
  started.set(command.join(' '), [...(started.get(command.join(' ')) ?? []), child]);
}

type Options = { callTimeoutMs: number; callTimeoutMaxMs?: number; terms?: { ascii: string[] }; onAudit?: OnAudit };

/** serve around the child recording into `file`, and the real SDK client in a session: closed when test `t` ends. */
async function serve(t: TestContext, file: string, options: Options = { callTimeoutMs: 1000 }) {
  const logs: string[] = [];
  const command = [process.execPath, SERVER, file, 'ready'];
  const served = await runServe({ command, port: 0, log: (l) => void logs.push(l), ...options });
  t.onTestFinished(() => served.close());
  await startFirst(t, command);
  const host = await connectHost(served.url);
  const errors: Error[] = [];
  host.client.onerror = (e) => void errors.push(e);
  t.onTestFinished(() => host.client.close().catch(() => {}));
  return { ...host, url: served.url, command, logs, errors };
}

describe.concurrent('serve --call-timeout', () => {
  it('lets progress keep a call going past the limit, up to the max', async (t) => {
    const { client } = await serve(t, record(), { callTimeoutMs: 1000, callTimeoutMaxMs: 2500 });
    await progressUpToMax(client, expect);
  });

  it('answers a tools/call the child never answers, tells the child, and the session goes on', async (t) => {
    const file = record();
    const audit: AuditEntry[] = [];
    // (The trail without a guard: the time limit decides too.)
    const { client, transport } = await serve(t, file, { callTimeoutMs: 1000, onAudit: (e) => void audit.push(e) });
    expect(await client.callTool({ name: 'never', arguments: {} })).toEqual({
      content: [{ type: 'text', text: NO_ANSWER }],
      isError: true,
    });
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'echo' }]);
    const call = seen(file).find((m) => m.params?.name === 'never')!;
    await until(() => seen(file).some((m) => m.method === 'notifications/cancelled'));
    const cancels = seen(file).filter((m) => m.method === 'notifications/cancelled');
    expect(cancels.map((m) => m.params)).toEqual([{ requestId: call.id, reason: 'timeout' }]);
    expect(audit).toEqual([
      {
        time: expect.any(String),
        session: transport.sessionId,
        request: JSON.stringify(call.id),
        tool: 'never',
        decision: 'timed-out',
        rule: 'timeout',
      },
    ]);
  });

  it('answers other requests with error -32001', async (t) => {
    const { client } = await serve(t, record());
    await expect(client.listResources()).rejects.toMatchObject({ code: -32001, message: expect.stringContaining(NO_ANSWER) });
  });

  it('drops a late answer: the host never sees it', async (t) => {
    const { client, logs, errors } = await serve(t, record());
    expect((await client.callTool({ name: 'late', arguments: {} })).isError).toBe(true);
    await until(() => logs.some((l) => l.includes("dropped the server's late answer")));
    await client.callTool({ name: 'echo', arguments: {} });
    // (The SDK reports an answer to no request of its own as an error.)
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it('answers and cancels under the id as written (past 2^53), only the batch member that timed out', async (t) => {
    const file = record();
    // (A term in the answer's text: it is encoded like the child's output.)
    const codec = { terms: { ascii: ['answer'] } };
    const { url, command } = await serve(t, file, { callTimeoutMs: 1000, ...codec });
    const encoded = createCodec(codec).encodeText(NO_ANSWER);
    expect(encoded).not.toBe(NO_ANSWER);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    await startFirst(t, command);
    const init = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: RAW_INITIALIZE_PARAMS }),
    });
    await init.text();
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    const ID = '9007199254740993';
    const body = `[{"jsonrpc":"2.0","id":${ID},"method":"tools/call","params":{"name":"never","arguments":{}}},{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"echo","arguments":{}}}]`;
    const text = await (await fetch(url, { method: 'POST', headers: session, body })).text();
    const data = text.split('\n').filter((l) => l.startsWith('data: {'));
    expect(data).toHaveLength(2);
    expect(data[0]).toBe('data: {"jsonrpc":"2.0","id":"e","result":{"content":[{"type":"text","text":"echo"}]}}');
    expect(data[1]).toBe(`data: {"jsonrpc":"2.0","id":${ID},"result":{"content":[{"type":"text","text":"${encoded}"}],"isError":true}}`);
    await until(() => readFileSync(file, 'utf8').includes('notifications/cancelled'));
    expect(readFileSync(file, 'utf8')).toContain(
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${ID},"reason":"timeout"}}`,
    );
  });
});
