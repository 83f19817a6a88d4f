// ToolCallGuardTransport with the real SDK Client and McpServer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { encodeText } from '../src/index.ts';
import { PayloadFilteringTransport, ToolCallGuardTransport, type BlockedCall, type ToolCallGuardOptions } from '../src/mcp/index.ts';

// A hang fails in seconds: every SDK request of these clients times out after 3 s (the SDK's
// default is 60 s), and no test here may take more than 10 s.
vi.setConfig({ testTimeout: 10_000 });
function quick(client: Client, ms = 3_000): Client {
  type Request = (request: unknown, schema: unknown, options?: object) => Promise<unknown>;
  const request = client.request.bind(client) as unknown as Request;
  (client as unknown as { request: Request }).request = (r, schema, options) => request(r, schema, { timeout: ms, ...options });
  return client;
}

async function setup(options: ToolCallGuardOptions = {}, wrap?: (t: Transport) => Transport) {
  const calls: { tool: string; args: unknown }[] = [];
  const blocked: BlockedCall[] = [];
  const server = new McpServer({ name: 's', version: '1' });
  const handler = (tool: string) => async (args: unknown) => {
    calls.push({ tool, args });
    return { content: [{ type: 'text' as const, text: 'ok' }] };
  };
  const move = server.registerTool('move', { inputSchema: { target: z.object({ x: z.number(), y: z.number() }), note: z.string().optional() } }, handler('move'));
  server.registerTool('pick', { inputSchema: { app: z.enum(['Qwen', 'Safari']) } }, handler('pick'));
  server.registerTool('delete_all', { inputSchema: {} }, handler('delete_all'));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const guarded = new ToolCallGuardTransport(clientSide, { ...options, onblock: (b) => blocked.push(b) });
  const client = quick(new Client({ name: 'c', version: '1' }));
  await client.connect(wrap ? wrap(guarded) : guarded);
  return { client, calls, blocked, move, guard: guarded.guard };
}

async function blockedMessage(p: Promise<unknown>): Promise<string> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(McpError);
  expect((e as McpError).code).toBe(-32602);
  return (e as McpError).message;
}

describe('ToolCallGuardTransport', () => {
  it('lets calls pass before any tool list was seen', async () => {
    const { client, calls } = await setup();
    await client.callTool({ name: 'move', arguments: { target: { x: 1, y: 2 } } });
    expect(calls).toHaveLength(1);
  });

  it('blocks an unknown tool, and lets valid calls reach the server unchanged', async () => {
    const { client, calls, blocked } = await setup();
    await client.listTools();
    expect(await blockedMessage(client.callTool({ name: 'teleport', arguments: {} }))).toMatch(/"teleport" was blocked .* not in the server's current tool list/);
    await client.callTool({ name: 'move', arguments: { target: { x: 1, y: 2 }, note: 'n' } });
    expect(calls).toEqual([{ tool: 'move', args: { target: { x: 1, y: 2 }, note: 'n' } }]);
    expect(blocked).toEqual([{ toolName: 'teleport', reason: expect.stringContaining('current tool list') }]);
  });

  it('blocks a removed tool as stale after list_changed, then as unknown once listed again', async () => {
    const { client, calls, move, guard } = await setup();
    await client.listTools();
    move.remove(); // the server sends notifications/tools/list_changed
    // Wait until the guard has seen it (delivery is asynchronous).
    for (let waited = 0; waited < 2000 && !guard.check('pick', { app: 'Safari' })?.reason.includes('stale'); waited += 5) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await blockedMessage(client.callTool({ name: 'move', arguments: { target: { x: 1, y: 2 } } }))).toMatch(/changed since it was last fetched \(stale\)/);
    await client.listTools();
    const message = await blockedMessage(client.callTool({ name: 'move', arguments: { target: { x: 1, y: 2 } } }));
    expect(message).toMatch(/not in the server's current tool list/);
    expect(message).not.toMatch(/stale/);
    expect(calls).toEqual([]);
  });

  it('blocks arguments that fail the inputSchema, naming the JSON path and the rule, never the value', async () => {
    const { client, calls, blocked } = await setup();
    await client.listTools();
    expect(await blockedMessage(client.callTool({ name: 'move', arguments: {} }))).toMatch(/\/target must have required property 'target' \(rule "required"\)/);
    expect(await blockedMessage(client.callTool({ name: 'move', arguments: { target: { x: 'SECRET', y: 2 } } }))).toMatch(/\/target\/x must be number \(rule "type"\)/);
    expect(await blockedMessage(client.callTool({ name: 'move', arguments: { target: [1, 2] } }))).toMatch(/\/target must be object/);
    expect(await blockedMessage(client.callTool({ name: 'move', arguments: { target: { x: 1 } } }))).toMatch(/\/target\/y must have required property/);
    expect(blocked.map((b) => b.path)).toEqual(['/target', '/target/x', '/target', '/target/y']);
    expect(JSON.stringify(blocked)).not.toContain('SECRET');
    expect(calls).toEqual([]);
  });

  it('applies the host policy', async () => {
    const { client, calls } = await setup({ policy: (name) => (name === 'delete_all' ? { allow: false, reason: 'needs a confirmation nobody can give' } : { allow: true }) });
    expect(await blockedMessage(client.callTool({ name: 'delete_all', arguments: {} }))).toMatch(/blocked by policy: needs a confirmation nobody can give/);
    await client.callTool({ name: 'pick', arguments: { app: 'Safari' } });
    expect(calls).toEqual([{ tool: 'pick', args: { app: 'Safari' } }]);
  });

  it('checks decoded values when placed under the filter (Client -> filter -> guard -> transport)', async () => {
    const { client, calls } = await setup({}, (guarded) => new PayloadFilteringTransport(guarded, { side: 'client' }));
    await client.listTools();
    await client.callTool({ name: 'pick', arguments: { app: encodeText('Qwen') } }); // a token, decoded before the check
    expect(calls).toEqual([{ tool: 'pick', args: { app: 'Qwen' } }]);
  });
});
