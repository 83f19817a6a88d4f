// Protocol fields through the SDK wrappers, with the real SDK client and server: progress under
// the host's own token, cancellation by a request id, `_meta` byte for byte, and encoded
// results that still satisfy the tool's output schema.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_TERMS, encodeText } from '../src/index.ts';
import { PayloadFilteringTransport } from '../src/mcp/index.ts';

const META = { 'com.qwen/trace': 'qwen-通义-1', nested: { Qwen: ['alibaba'] } };
const TIMEOUT = { timeout: 5000 };

function createServer(events: string[]) {
  const server = new McpServer({ name: 'fields', version: '1.0.0' });
  server.registerTool('slow', { description: 'Reports progress', inputSchema: {} }, async (_args, extra) => {
    const token = extra._meta?.progressToken;
    for (let step = 1; step <= 3; step++) {
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, total: 3, message: `qwen step ${step}` },
        });
    }
    return { content: [{ type: 'text', text: 'done with qwen' }], _meta: META };
  });
  server.registerTool('wait', { description: 'Waits until cancelled', inputSchema: {} }, async (_args, extra) => {
    await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve()));
    events.push('aborted');
    return { content: [{ type: 'text', text: 'stopped' }] };
  });
  server.registerTool(
    'vendor',
    { description: 'Names the vendor', inputSchema: {}, outputSchema: { vendor: z.string().max(12), code: z.enum(['qwen', 'other']) } },
    async () => ({ content: [{ type: 'text', text: 'alibaba' }], structuredContent: { vendor: 'alibaba', code: 'qwen' } }),
  );
  return server;
}

const noTerm = (s: string) =>
  !DEFAULT_TERMS.ascii.some((t) => s.toLowerCase().includes(t)) && !DEFAULT_TERMS.exact.some((t) => s.includes(t));

describe('protocol fields through PayloadFilteringTransport (real SDK client and server)', () => {
  it('the host gets every progress notification under its own string token holding a term', async () => {
    const server = createServer([]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(new PayloadFilteringTransport(serverSide));
    const client = new Client({ name: 'host', version: '1.0.0' });
    const progress: unknown[] = [];
    client.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push(n.params));
    await client.connect(clientSide);
    const token = 'qwen-task-1';
    const result = await client.request(
      { method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: token } } },
      CallToolResultSchema,
      TIMEOUT,
    );
    expect(progress).toEqual(
      [1, 2, 3].map((step) => ({ progressToken: token, progress: step, total: 3, message: encodeText(`qwen step ${step}`) })),
    );
    expect(result._meta).toEqual(META); // byte for byte, terms and all
    expect(result.content).toEqual([{ type: 'text', text: encodeText('done with qwen') }]);
    await client.close();
  });

  it('the encoded result still satisfies the tool output schema the host was given', async () => {
    for (const side of ['server', 'client'] as const) {
      const server = createServer([]);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(side === 'server' ? new PayloadFilteringTransport(serverSide) : serverSide);
      const client = new Client({ name: 'host', version: '1.0.0' });
      await client.connect(side === 'client' ? new PayloadFilteringTransport(clientSide, { side: 'client' }) : clientSide);
      const { tools } = await client.listTools(undefined, TIMEOUT);
      const vendor = tools.find((t) => t.name === 'vendor')!;
      const schema = vendor.outputSchema as unknown as { properties: { vendor: { maxLength: number }; code: { enum: string[] } } };
      expect(schema.properties.vendor.maxLength).toBeGreaterThanOrEqual(encodeText('alibaba').length);
      expect(schema.properties.code.enum).toEqual([encodeText('qwen'), 'other']);
      // The SDK client validates structuredContent against the (encoded) outputSchema itself.
      const result = await client.callTool({ name: 'vendor', arguments: {} }, undefined, TIMEOUT);
      expect(result.structuredContent).toEqual({ vendor: encodeText('alibaba'), code: encodeText('qwen') });
      expect(noTerm(JSON.stringify(result.structuredContent))).toBe(true);
      await client.close();
    }
  });

  it('a cancellation citing a request id that looks like a token still stops the call', async () => {
    const events: string[] = [];
    const server = createServer(events);
    const [hostSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(new PayloadFilteringTransport(serverSide));
    const received: JSONRPCMessage[] = [];
    hostSide.onmessage = (m) => void received.push(m);
    await hostSide.start();
    const send = (m: object) => hostSide.send(m as JSONRPCMessage);
    await send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    });
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // A host that had the model's text in its ids: the id travels untouched, so must the citation.
    const id = `${encodeText('qwen')}-7`;
    await send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: {} } });
    await new Promise((r) => setTimeout(r, 20));
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'qwen asked' } });
    for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual(['aborted']);
    expect((received[0] as unknown as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-06-18');
    await hostSide.close();
  });
});
