// serve --call-timeout: a request the child leaves unanswered is answered on its POST's event
// stream under its id as written (tools/call: an isError result; others: error -32001), the
// child is sent notifications/cancelled, a late answer never reaches the host, and progress
// keeps a call going up to the max. The real SDK client over HTTP; the child is a real process
// (fixtures/slow-server.mjs, which records every line it reads).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runServe } from '../src/cli/serve.js';
import type { AuditEntry, OnAudit } from '../src/guard/audit.ts';
import { createCodec } from '../src/index.ts';
import { NO_ANSWER, record, seen, until } from './call-timeout-helpers.ts';
import { connectHost, RAW_INITIALIZE_PARAMS } from './http-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });
const SERVER = 'test/fixtures/slow-server.mjs';
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

type Options = { callTimeoutMs: number; callTimeoutMaxMs?: number; terms?: { ascii: string[] }; onAudit?: OnAudit };

async function serve(file: string, options: Options = { callTimeoutMs: 1000 }) {
  const logs: string[] = [];
  const served = await runServe({ command: [process.execPath, SERVER, file], port: 0, log: (l) => void logs.push(l), ...options });
  cleanup.push(() => served.close());
  const host = await connectHost(served.url);
  const errors: Error[] = [];
  host.client.onerror = (e) => void errors.push(e);
  cleanup.push(() => host.client.close().catch(() => {}));
  return { ...host, url: served.url, logs, errors };
}

describe('serve --call-timeout', () => {
  it('answers a tools/call the child never answers, tells the child, and the session goes on', async () => {
    const file = record();
    const audit: AuditEntry[] = [];
    // (The trail without a guard: the time limit decides too.)
    const { client, transport } = await serve(file, { callTimeoutMs: 1000, onAudit: (e) => void audit.push(e) });
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

  it('answers other requests with error -32001', async () => {
    const { client } = await serve(record());
    await expect(client.listResources()).rejects.toMatchObject({ code: -32001, message: expect.stringContaining(NO_ANSWER) });
  });

  it('drops a late answer: the host never sees it', async () => {
    const { client, logs, errors } = await serve(record());
    expect((await client.callTool({ name: 'late', arguments: {} })).isError).toBe(true);
    await until(() => logs.some((l) => l.includes("dropped the server's late answer")));
    await client.callTool({ name: 'echo', arguments: {} });
    // (The SDK reports an answer to no request of its own as an error.)
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it('lets progress keep a call going past the limit, up to the max', async () => {
    const { client } = await serve(record(), { callTimeoutMs: 1000, callTimeoutMaxMs: 2500 });
    let progress = 0;
    const done = await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: () => progress++ });
    expect(done).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(progress).toBe(15);
    progress = 0;
    const capped = await client.callTool({ name: 'forever', arguments: {} }, undefined, { onprogress: () => progress++ });
    expect(capped).toEqual({ content: [{ type: 'text', text: NO_ANSWER }], isError: true });
    // Progress every 100 ms, cut at 2.5 s: about 25 (without the cap: the child's 100).
    expect(progress).toBeGreaterThan(3);
    expect(progress).toBeLessThan(50);
  });

  it('answers and cancels under the id as written (past 2^53), only the batch member that timed out', async () => {
    const file = record();
    // (A term in the answer's text: it is encoded like the child's output.)
    const codec = { terms: { ascii: ['answer'] } };
    const { url } = await serve(file, { callTimeoutMs: 1000, ...codec });
    const encoded = createCodec(codec).encodeText(NO_ANSWER);
    expect(encoded).not.toBe(NO_ANSWER);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
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
