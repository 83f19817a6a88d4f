// The transport wrappers with the real SDK Client and McpServer over InMemoryTransport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { encodeText } from '../src/index.ts';
import { filterTransportIfEnabled, IntegrityGuardTransport, PayloadFilteringTransport } from '../src/mcp/index.ts';
import { createTestServer, quick, type Seen } from './mcp-sdk.ts';

// A hang fails in seconds: every SDK request of these clients times out after 3 s (the SDK's
// default is 60 s), and no test here may take more than 10 s.
vi.setConfig({ testTimeout: 10_000 });

const Q = encodeText('Qwen');

async function connect(wrapServer: (t: Transport) => Transport, wrapClient: (t: Transport) => Transport = (t) => t) {
  const seen: Seen = { calls: [] };
  const server = createTestServer(seen);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(wrapServer(serverSide));
  const client = quick(new Client({ name: 'test-client', version: '1.0.0' }));
  await client.connect(wrapClient(clientSide));
  return { client, seen, close: () => client.close() };
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );

describe('PayloadFilteringTransport, server side', () => {
  it('initializes, and lists tools with aliased descriptions', async () => {
    const { client, close } = await connect((t) => new PayloadFilteringTransport(t));
    expect(client.getServerVersion()?.name).toBe('test-server');
    const { tools } = await client.listTools();
    const open = tools.find((t) => t.name === 'open_app')!;
    expect(open.description).toBe(encodeText('Opens an installed app, such as Qwen or 钉钉 (com.alibaba.dingtalk).'));
    expect(open.description).not.toMatch(/qwen|钉钉|alibaba|dingtalk/i);
    await close();
  });

  it('decodes arguments before the schema check and the handler, and encodes the result', async () => {
    const { client, seen, close } = await connect((t) => new PayloadFilteringTransport(t));
    const result = await client.callTool({ name: 'open_app', arguments: { app: Q } });
    expect(seen.calls).toEqual([{ tool: 'open_app', args: { app: 'Qwen' } }]);
    expect(result.content).toEqual([{ type: 'text', text: `Opened ${Q} at /Applications/${Q}.app` }]);
    expect(result.structuredContent).toEqual({ app: Q, bundleId: `com.${encodeText('alibaba')}.${Q}` });
    await close();
  });

  it('keeps image data byte for byte, and encodes tool error results', async () => {
    const { client, close } = await connect((t) => new PayloadFilteringTransport(t));
    const shot = await client.callTool({ name: 'screenshot', arguments: {} });
    expect(shot.content).toEqual([
      { type: 'image', data: 'qwenQWENcXdlbg==', mimeType: 'image/png' },
      { type: 'text', text: encodeText('Qwen — 通义千问 window') },
    ]);
    const crash = await client.callTool({ name: 'crash', arguments: {} });
    expect(crash.isError).toBe(true);
    expect(crash.content).toEqual([{ type: 'text', text: encodeText('Qwen crashed (dashscope timeout)') }]);
    await close();
  });

  it('lets schema validation still fail, with no handler run', async () => {
    const { client, seen, close } = await connect((t) => new PayloadFilteringTransport(t));
    const result = await client.callTool({ name: 'open_app', arguments: { app: 5 } }).catch((e: unknown) => e);
    const failed = result instanceof McpError || (result as { isError?: boolean }).isError === true;
    expect(failed).toBe(true);
    expect(seen.calls).toEqual([]);
    await close();
  });

  it('answers a call whose decoded keys collide with -32602 and never dispatches it', async () => {
    const { client, seen, close } = await connect((t) => new PayloadFilteringTransport(t));
    const error = await rejection(client.callTool({ name: 'open_app', arguments: { Qwen: 'x', [Q]: 'y', app: 'a' } }));
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).not.toMatch(/"x"|"y"/);
    expect(seen.calls).toEqual([]);
    await close();
  });

  it('does nothing without the wrapper (filtering off)', async () => {
    const { client, close } = await connect((t) => filterTransportIfEnabled(t, {}, { MCP_MODEL_PAYLOAD_FILTER: '0' }));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'open_app')!.description).toContain('Qwen');
    await close();
  });

  it('wraps when MCP_MODEL_PAYLOAD_FILTER is exactly 1', async () => {
    const { client, close } = await connect((t) => filterTransportIfEnabled(t, {}, { MCP_MODEL_PAYLOAD_FILTER: '1' }));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'open_app')!.description).not.toContain('Qwen');
    await close();
  });

  it('keeps handlers set on the inner transport before wrapping', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const observed: string[] = [];
    serverSide.onmessage = (m) => observed.push('method' in m ? m.method : 'response');
    const server = createTestServer();
    await server.connect(new PayloadFilteringTransport(serverSide));
    const client = quick(new Client({ name: 'c', version: '1' }));
    await client.connect(clientSide);
    await client.listTools();
    expect(observed).toContain('tools/list');
    await client.close();
  });
});

describe('PayloadFilteringTransport, client side', () => {
  it('protects the host: server output arrives encoded, the host’s tokens go out decoded', async () => {
    const { client, seen, close } = await connect(
      (t) => t,
      (t) => new PayloadFilteringTransport(t, { side: 'client' }),
    );
    const result = await client.callTool({ name: 'open_app', arguments: { app: Q } });
    expect(seen.calls).toEqual([{ tool: 'open_app', args: { app: 'Qwen' } }]);
    expect(JSON.stringify(result)).not.toMatch(/qwen|alibaba/i);
    await close();
  });
});

describe('IntegrityGuardTransport', () => {
  const damaged = '汉'.repeat(2607) + '\uFFFD\uFFFD\uFFFD';

  it('client side: a call with U+FFFD is answered locally with a result the model can read, and never reaches the server', async () => {
    const blocked: unknown[] = [];
    const { client, seen, close } = await connect(
      (t) => t,
      (t) => new IntegrityGuardTransport(t, { onblock: (e) => blocked.push(e.reports) }),
    );
    const result = await client.callTool({ name: 'write_file', arguments: { path: '/notes.md', content: damaged } });
    expect(result.isError).toBe(true);
    const text = (result.content as { type: string; text: string }[])[0]!.text;
    expect(text).toMatch(
      /argument "content" of tool "write_file" contains 3 invalid UTF-8 replacement character\(s\).*First UTF-8 byte offset: 7821/,
    );
    expect(JSON.stringify(result)).not.toContain('汉');
    expect(seen.calls).toEqual([]);
    expect(blocked).toHaveLength(1);
    const ok = await client.callTool({ name: 'write_file', arguments: { path: '/notes.md', content: '汉字' } });
    expect(ok.content).toEqual([{ type: 'text', text: 'wrote 2 characters' }]);
    await close();
  });

  it("reply: 'error' answers JSON-RPC error -32602 instead, on either side", async () => {
    for (const side of ['client', 'server'] as const) {
      const guard = (t: Transport) => new IntegrityGuardTransport(t, { side, reply: 'error' });
      const { client, seen, close } = side === 'client' ? await connect((t) => t, guard) : await connect(guard);
      const error = await rejection(client.callTool({ name: 'write_file', arguments: { path: '/notes.md', content: damaged } }));
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toMatch(
        /argument "content" of tool "write_file" contains 3 invalid UTF-8 replacement character\(s\)/,
      );
      expect((error as McpError).message).not.toContain('汉');
      expect(seen.calls).toEqual([]);
      await close();
    }
  });

  it('server side: such a call is answered with an error result and not dispatched', async () => {
    const { client, seen, close } = await connect((t) => new IntegrityGuardTransport(t, { side: 'server' }));
    const result = await client.callTool({ name: 'write_file', arguments: { path: 'x', content: damaged } });
    expect(result.isError).toBe(true);
    expect(seen.calls).toEqual([]);
    await close();
  });

  it('composes with filtering: Client -> filter -> guard -> transport', async () => {
    const { client, seen, close } = await connect(
      (t) => t,
      (t) => new PayloadFilteringTransport(new IntegrityGuardTransport(t), { side: 'client' }),
    );
    const blocked = await client.callTool({ name: 'write_file', arguments: { path: Q, content: damaged } });
    expect(blocked.isError).toBe(true);
    await client.callTool({ name: 'write_file', arguments: { path: Q, content: 'ok' } });
    expect(seen.calls).toEqual([{ tool: 'write_file', args: { path: 'Qwen', content: 'ok' } }]);
    await close();
  });
});
