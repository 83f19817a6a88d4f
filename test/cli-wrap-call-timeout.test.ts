// wrap --call-timeout: a request the server leaves unanswered is answered by the proxy
// (tools/call: an isError result; others: error -32001), the server is sent
// notifications/cancelled under the id as written, a late answer never reaches the client, and
// progress for the request keeps it going up to --call-timeout-max. The real SDK client drives
// wrap over stdio; the server is a real child (fixtures/slow-server.mjs). The limit is the
// CLI's least, 1 s, so the cases run at once, each with its own wrap and child (the timer's
// families, to the millisecond: call-timer.test.ts).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it, type TestContext } from 'vitest';
import { NO_ANSWER, PROGRESS_REPORTS, progressUntilAnswer, until } from './call-timeout-helpers.ts';
import { CLI, CliSession, cliRuns, fixture, ROOT } from './fixtures/cli-session.ts';

const SERVER = fixture('slow-server.mjs');
const record = () => join(mkdtempSync(join(tmpdir(), 'mpc-timeout-')), 'seen.ndjson');
const seen = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l);

/** wrap around the child recording into `file`, and the real SDK client: closed when test `t` ends. */
async function wrapped(t: TestContext, file: string, options: string[]) {
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'wrap', ...options, '--', process.execPath, SERVER, file],
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const client = new Client({ name: 'timeout-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  t.onTestFinished(() => client.close().catch(() => {}));
  return { client, stderr, errors };
}

describe.concurrent('wrap --call-timeout', () => {
  it('answers a tools/call the server never answers, and tells the server', async (t) => {
    const file = record();
    const { client } = await wrapped(t, file, ['--call-timeout', '1s']);
    const r = await client.callTool({ name: 'never', arguments: {} });
    expect(r).toEqual({ content: [{ type: 'text', text: NO_ANSWER }], isError: true });
    // The session goes on.
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'echo' }]);
    await client.close();
    const cancels = seen(file)
      .map((l) => JSON.parse(l))
      .filter((m) => m.method === 'notifications/cancelled');
    expect(cancels).toHaveLength(1);
    expect(cancels[0].params.reason).toBe('timeout');
    const call = seen(file)
      .map((l) => JSON.parse(l))
      .find((m) => m.params?.name === 'never');
    expect(cancels[0].params.requestId).toBe(call.id);
  });

  it('answers other requests with error -32001', async (t) => {
    const { client } = await wrapped(t, record(), ['--call-timeout', '1s']);
    await expect(client.listResources()).rejects.toMatchObject({ code: -32001, message: expect.stringContaining(NO_ANSWER) });
    await client.close();
  });

  it('drops a late answer: the client never sees it', async (t) => {
    const { client, stderr, errors } = await wrapped(t, record(), ['--call-timeout', '1s']);
    const r = await client.callTool({ name: 'late', arguments: {} });
    expect(r.isError).toBe(true);
    await until(() => stderr.join('').includes('late answer sent'));
    // An answer after the late one, on the same pipe: once it is in, the late one was read.
    await client.callTool({ name: 'echo', arguments: {} });
    await client.close();
    // The SDK reports an answer to no request of its own as an error.
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(stderr.join('')).toContain('dropped the server');
  });

  it('lets progress keep a call going past the limit', async (t) => {
    const { client } = await wrapped(t, record(), ['--call-timeout', '1s']);
    const progress = progressUntilAnswer(client);
    // (Answered a tick after the 15th report: 1.6 s, past the limit.)
    const r = await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: () => {} });
    expect(r).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(progress('progress')).toEqual(PROGRESS_REPORTS);
    await client.close();
  });

  it('stops at --call-timeout-max however much progress comes', async (t) => {
    const { client } = await wrapped(t, record(), ['--call-timeout', '1s', '--call-timeout-max', '2s']);
    const progress = progressUntilAnswer(client);
    const r = await client.callTool({ name: 'forever', arguments: {} }, undefined, { onprogress: () => {} });
    expect(r).toEqual({ content: [{ type: 'text', text: NO_ANSWER }], isError: true });
    // Progress came every 100 ms, and the call met the cap (2 s: about 20 of them; without it, the
    // server's 100 and the plain limit after them).
    expect(progress('forever').length).toBeGreaterThan(3);
    expect(progress('forever').length).toBeLessThan(40);
    await client.close();
  });

  it('works behind --guard: a blocked call is answered once, a passed one timed', async (t) => {
    const { client, errors } = await wrapped(t, record(), ['--guard', '--call-timeout', '1s']);
    const blocked = await client.callTool({ name: 'nosuch', arguments: {} });
    expect(blocked.isError).toBe(true);
    expect(blocked.content).not.toEqual([{ type: 'text', text: NO_ANSWER }]);
    expect(await client.callTool({ name: 'never', arguments: {} })).toEqual({
      content: [{ type: 'text', text: NO_ANSWER }],
      isError: true,
    });
    await client.callTool({ name: 'echo', arguments: {} });
    await client.close();
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it('answers and cancels under the id as written (a number beyond 2^53)', async (t) => {
    const file = record();
    const s = new CliSession(['wrap', '--call-timeout', '1s', '--', process.execPath, SERVER, file]);
    t.onTestFinished(() => void s.child.kill());
    const ID = '9007199254740993';
    const batch = `[{"jsonrpc":"2.0","id":${ID},"method":"tools/call","params":{"name":"late","arguments":{}}},{"jsonrpc":"2.0","id":"b","method":"ping"}]\n`;
    s.send(batch);
    await s.until(() => s.stdout.toString().includes('"id":"b"') && s.stdout.toString().includes(`"id":${ID}`));
    const lines = s.stdout.toString().split('\n').filter(Boolean);
    // Each request of the batch is answered on its own line.
    expect(lines.every((l) => l.startsWith('{'))).toBe(true);
    expect(lines.find((l) => l.includes(`"id":${ID}`))).toContain('"isError":true');
    expect(JSON.parse(lines.find((l) => l.includes('"id":"b"'))!).error.code).toBe(-32001);
    await s.until(() => s.stderr.includes('late answer sent'));
    s.send({ jsonrpc: '2.0', id: 'e', method: 'tools/call', params: { name: 'echo', arguments: {} } });
    await s.response('e');
    const ended = await s.end();
    const out = ended.stdout.toString();
    expect(out.split(`"id":${ID}`)).toHaveLength(2); // once: the proxy's answer, never the late one
    expect(seen(file)).toContain(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${ID},"reason":"timeout"}}`);
  });

  it('takes an answer under the id as the server parsed it for the request (no timeout, no cancel)', async (t) => {
    const file = record();
    const s = new CliSession(['wrap', '--call-timeout', '1s', '--', process.execPath, SERVER, file, 'parsed-ids']);
    t.onTestFinished(() => void s.child.kill());
    for (const id of ['"a\\u0041"', '1.0', '1e1'])
      s.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{}}}\n`);
    // A call sent after them that the server never answers: wrap answers it at the limit, after
    // any answer of its own to the others (equal limits expire in the order they were set).
    s.send({ jsonrpc: '2.0', id: 'n', method: 'tools/call', params: { name: 'never', arguments: {} } });
    expect((await s.response('n')).result.isError).toBe(true);
    const ended = await s.end();
    const lines = ended.stdout
      .toString()
      .split('\n')
      .filter((l) => l && !l.includes('"id":"n"'));
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => !l.includes('isError'))).toBe(true);
    expect(seen(file).filter((l) => l.includes('notifications/cancelled'))).toEqual([
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"n","reason":"timeout"}}',
    ]);
  });
});

describe('wrap --call-timeout on the command line', () => {
  it('refuses what it cannot honour, with exit status 2 and the reason', () => {
    const cases: [string[], string][] = [
      [['wrap', '--call-timeout', '0', 'node'], '--call-timeout must be a duration'],
      [['wrap', '--call-timeout', 'soon', 'node'], '--call-timeout must be a duration'],
      [['wrap', '--call-timeout-max', '5s', 'node'], '--call-timeout-max needs --call-timeout'],
      [['wrap', '--call-timeout', '5s', '--call-timeout-max', '2s', 'node'], '--call-timeout-max must be at least --call-timeout'],
      [['encode', '--call-timeout', '5s'], '--call-timeout applies to wrap, proxy, connect, serve, not encode'],
      [['serve', '--call-timeout-max', '5s', 'node'], '--call-timeout-max needs --call-timeout'],
      [['proxy', '--call-timeout', 'soon', '--upstream', 'http://x'], '--call-timeout must be a duration'],
    ];
    for (const [k, r] of cliRuns(cases.map(([args]) => args)).entries()) {
      const [args, reason] = cases[k]!;
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(reason);
    }
  });
});
