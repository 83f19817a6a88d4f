// serve, a child that exits or crashes mid-call: every request of its session in flight is
// answered at once (a tool call as an isError result naming the exit, anything else -32603),
// under its id as the host wrote it, and the session ends (404, so the host starts a new one).
// It used to leave each call waiting for the host's own timeout. Real children, the real SDK client.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runServe } from '../src/cli/serve.js';
import { connectHost, RAW_INITIALIZE_PARAMS, textOf } from './http-helpers.ts';

vi.setConfig({ testTimeout: 20_000 });
const CHILD = [process.execPath, 'test/fixtures/serve-exit-child.mjs'];
/** Longer than the test: an answer that comes at all came from serve, not from a timeout. */
const PATIENT = { timeout: 60_000 };
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function serve(mode: 'exit' | 'kill') {
  const logs: string[] = [];
  const served = await runServe({ command: [...CHILD, mode], port: 0, log: (l) => void logs.push(l) });
  cleanup.push(() => served.close());
  return { ...served, logs };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

describe('serve, a child that dies with requests in flight', () => {
  it.each([
    ['exit', /exited with code 3/],
    ['kill', /was killed by SIGKILL/],
  ] as const)('answers each at once (%s) and ends the session', async (mode, how) => {
    const { url, logs } = await serve(mode);
    const { client, transport } = await connectHost(url);
    cleanup.push(() => client.close().catch(() => {}));
    const session = transport.sessionId!;
    const call = client.callTool({ name: 'die', arguments: { secret: 'payload-text' } }, undefined, PATIENT);
    const read = client.readResource({ uri: 'file:///x' }, PATIENT);
    const readFailed = read.then(
      () => undefined,
      (e: Error & { code?: number }) => e,
    );
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(how);
    expect(textOf(result)).not.toContain('payload-text');
    const error = await readFailed;
    expect(error?.code).toBe(-32603);
    expect(error?.message).toMatch(how);
    // The session is over: the next request under its id gets 404.
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': session },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(logs.some((l) => /^session ended \(the server (exited|was killed)/.test(l))).toBe(true);
    // A new session starts as usual.
    const again = await connectHost(url);
    cleanup.push(() => again.client.close().catch(() => {}));
    expect((await again.client.listTools(undefined, PATIENT)).tools.map((t) => t.name)).toEqual(['die']);
  });

  it('answers under each id as the host wrote it (past 2^53, past 2^64)', async () => {
    const { url } = await serve('exit');
    const init = await fetch(url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: RAW_INITIALIZE_PARAMS }),
    });
    await init.text();
    const headers = { ...HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')! };
    await (await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
    const post = (body: string) => fetch(url, { method: 'POST', headers, body }).then((r) => r.text());
    const [call, read] = await Promise.all([
      post('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"die","arguments":{}}}'),
      post('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"resources/read","params":{"uri":"file:///x"}}'),
    ]);
    expect(call).toMatch(/^data: \{"jsonrpc":"2.0","id":9007199254740993,"result":\{.*"isError":true/m);
    expect(read).toMatch(/^data: \{"jsonrpc":"2.0","id":123456789012345678901234567890,"error":\{"code":-32603,/m);
  });

  it('a command that cannot be started: its initialize is answered so, not with an exit code', async () => {
    const logs: string[] = [];
    const served = await runServe({ command: ['/nonexistent/mcp-server'], port: 0, log: (l) => void logs.push(l) });
    cleanup.push(() => served.close());
    const init = await fetch(served.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: RAW_INITIALIZE_PARAMS }),
    });
    const text = await init.text();
    expect(text).toMatch(/"error":\{"code":-32603,"message":"Not answered: the server could not be started; the session has ended"/);
    expect(logs).toContain('session ended (the server could not be started); 0 open');
  });
});
