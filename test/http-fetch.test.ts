// createFilteringFetch in the SDK's StreamableHTTPClientTransport, against the SDK's own
// Streamable HTTP server on a real socket: stateful and stateless.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFilteringFetch } from '../src/http/index.js';
import { encodeText } from '../src/index.js';
import { startUpstream, type Upstream } from './fixtures/http-upstream.js';
import { expectProgressBeforeResult, TIMEOUT, textOf } from './http-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });
let up: Upstream | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close().catch(() => {});
  await up?.close();
  client = up = undefined;
});

async function connect(mode: 'stateful' | 'stateless', options = {}) {
  up = await startUpstream(mode);
  client = new Client({ name: 'host', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(up.url), { fetch: createFilteringFetch(options) });
  const seen: { kind: string; text: string }[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push({ kind: 'log', text: String(n.params.data) }));
  await client.connect(transport, TIMEOUT);
  return { client, transport, seen, up };
}

describe.each(['stateful', 'stateless'] as const)('createFilteringFetch, %s server', (mode) => {
  it('tool lists arrive encoded; tool arguments arrive decoded; results arrive encoded', async () => {
    const { client, up } = await connect(mode);
    const { tools } = await client.listTools(undefined, TIMEOUT);
    const echo = tools.find((t) => t.name === 'echo')!;
    expect(echo.description).toBe(encodeText('Echoes text, for Qwen and 通义千问 users'));
    expect(echo.description).not.toMatch(/Qwen|通义/);
    const result = await client.callTool({ name: 'echo', arguments: { text: encodeText('open Qwen in 阿里 Cloud') } }, undefined, TIMEOUT);
    expect(up.calls).toEqual([{ tool: 'echo', args: { text: 'open Qwen in 阿里 Cloud' } }]);
    expect(textOf(result)).toBe(encodeText('echo: open Qwen in 阿里 Cloud'));
  });

  it('progress and log messages sent during a call arrive encoded and before the result', async () => {
    const { client, seen } = await connect(mode);
    await expectProgressBeforeResult(client, seen, 2);
  });

  it('a request whose decoded keys collide is answered -32602 and never reaches the server', async () => {
    const { client, up } = await connect(mode);
    const before = up.hits.length;
    const call = client.callTool({ name: 'echo', arguments: { text: 'x', Qwen: 1, [encodeText('Qwen')]: 2 } }, undefined, TIMEOUT);
    await expect(call).rejects.toMatchObject({ code: -32602 });
    expect(up.hits.slice(before).filter((h) => h.method === 'POST')).toEqual([]); // (the GET stream may open meanwhile)
    expect(up.calls).toEqual([]);
    // The session goes on.
    await client.callTool({ name: 'echo', arguments: { text: 'after' } }, undefined, TIMEOUT);
    expect(up.calls).toEqual([{ tool: 'echo', args: { text: 'after' } }]);
  });

  it('the first event of a slow stream reaches the host before the stream ends', async () => {
    const { client, seen, up } = await connect(mode);
    let started!: () => void;
    const firstEvent = new Promise<void>((r) => (started = r));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seen.push({ kind: 'log', text: String(n.params.data) });
      started();
    });
    const call = client.callTool({ name: 'slow', arguments: {} }, undefined, TIMEOUT);
    await firstEvent; // (would wait for ever if the stream were held whole: the tool waits for us)
    expect(seen).toEqual([{ kind: 'log', text: encodeText('Qwen started') }]);
    up.release();
    expect(textOf(await call)).toBe(encodeText('Qwen finished'));
  });
});

describe('createFilteringFetch, sessions', () => {
  it('keeps the session id and ends the session on DELETE', async () => {
    const { transport, up } = await connect('stateful');
    const id = transport.sessionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await transport.terminateSession();
    expect(up.deleted).toEqual([id]);
  });
});
