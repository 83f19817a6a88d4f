import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, it, type TestContext, vi } from 'vitest';
import type { AuditEntry } from '../src/guard/audit.ts';
import { createCodec } from '../src/index.ts';
import { CallTimeoutTransport, PayloadFilteringTransport, ToolCallGuardTransport } from '../src/mcp/index.ts';
import { LIMIT_MS, MAX_MS, NO_ANSWER, progressUpToMax, record, seen, slowServer, until } from './call-timeout-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });

/** The real SDK client over `wrap` around a recording child: closed when the case ends (`finished`). */
async function connect(finished: TestContext['onTestFinished'], wrap: (t: Transport) => Transport) {
  const file = record();
  const stdio = new StdioClientTransport({ command: process.execPath, args: slowServer(file), stderr: 'pipe' });
  const stderr: string[] = [];
  stdio.stderr?.on('data', (d: Buffer) => void stderr.push(d.toString()));
  const client = new Client({ name: 'host', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (e) => void errors.push(e);
  // (Timing starts once the child is up: its start on a loaded machine is not what is tested.)
  await client.connect(wrap(stdio));
  finished(() => client.close().catch(() => {}));
  return { client, file, stderr, errors };
}

const timed =
  (ms = LIMIT_MS, max?: number) =>
  (t: Transport) =>
    new CallTimeoutTransport(t, { callTimeoutMs: ms, callTimeoutMaxMs: max });

describe.concurrent('CallTimeoutTransport', () => {
  it('answers a tools/call never answered, encoded on its way up, and cancels it through the inner transport', async ({
    expect,
    onTestFinished,
  }) => {
    const options = { terms: { ascii: ['answer'] } };
    const { client, file } = await connect(
      onTestFinished,
      (t) => new PayloadFilteringTransport(timed()(t), { ...options, side: 'client' }),
    );
    const r = await client.callTool({ name: 'never', arguments: {} });
    expect(r).toEqual({ content: [{ type: 'text', text: createCodec(options).encodeText(NO_ANSWER) }], isError: true });
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'echo' }]);
    const call = seen(file).find((m) => m.params?.name === 'never')!;
    await until(() => seen(file).some((m) => m.method === 'notifications/cancelled'));
    expect(
      seen(file)
        .filter((m) => m.method === 'notifications/cancelled')
        .map((m) => m.params),
    ).toEqual([{ requestId: call.id, reason: 'timeout' }]);
  });

  it('answers other requests with error -32001', async ({ expect, onTestFinished }) => {
    const { client } = await connect(onTestFinished, timed());
    await expect(client.listResources()).rejects.toMatchObject({ code: -32001, message: expect.stringContaining(NO_ANSWER) });
  });

  it('drops a late answer: the client never sees it', async ({ expect, onTestFinished }) => {
    const { client, stderr, errors } = await connect(onTestFinished, timed());
    expect((await client.callTool({ name: 'late', arguments: {} })).isError).toBe(true);
    await until(() => stderr.join('').includes('late answer sent'));
    // An answer after the late one, on the same pipe: once it is in, the late one was read.
    await client.callTool({ name: 'echo', arguments: {} });
    // (The SDK reports an answer to no request of its own as an error.)
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it('lets progress keep a call going past the limit, up to the max', async ({ expect, onTestFinished }) => {
    const { client } = await connect(onTestFinished, timed(LIMIT_MS, MAX_MS));
    await progressUpToMax(client, expect);
  });
});

describe.concurrent('ToolCallGuardTransport({ callTimeoutMs })', () => {
  it('times the calls it lets through, and tells onAudit', async ({ expect, onTestFinished }) => {
    const audit: AuditEntry[] = [];
    const { client, file } = await connect(
      onTestFinished,
      (t) => new ToolCallGuardTransport(t, { callTimeoutMs: LIMIT_MS, onAudit: (e) => void audit.push(e) }),
    );
    const blocked = await client.callTool({ name: 'nosuch', arguments: {} });
    expect(blocked.isError).toBe(true);
    expect(blocked.content).not.toEqual([{ type: 'text', text: NO_ANSWER }]);
    expect(await client.callTool({ name: 'never', arguments: {} })).toEqual({
      content: [{ type: 'text', text: NO_ANSWER }],
      isError: true,
    });
    const call = seen(file).find((m) => m.params?.name === 'never')!;
    expect(audit.filter((e) => e.decision === 'timed-out')).toEqual([
      { time: expect.any(String), request: JSON.stringify(call.id), tool: 'never', decision: 'timed-out', rule: 'timeout' },
    ]);
    await until(() => seen(file).some((m) => m.method === 'notifications/cancelled'));
  });
});
