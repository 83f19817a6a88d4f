// ToolCallGuardTransport with the real SDK Client and McpServer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, McpError, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { encodeText } from '../src/index.ts';
import {
  type BlockedCall,
  PayloadFilteringTransport,
  type ToolCallGuardOptions,
  ToolCallGuardTransport,
  TransportWrapper,
} from '../src/mcp/index.ts';
import { guardWithTools, termsIn } from './mcp-guard-helpers.ts';
import { quick } from './mcp-sdk.ts';

/** Records every message the client is given (outermost layer). */
class Spy extends TransportWrapper {
  readonly got: JSONRPCMessage[] = [];
  protected outgoing(m: JSONRPCMessage) {
    return m;
  }
  protected incoming(m: JSONRPCMessage, extra?: MessageExtraInfo) {
    this.got.push(m);
    this.deliver(m, extra);
  }
}

// A hang fails in seconds: every SDK request of these clients times out after 3 s (the SDK's
// default is 60 s), and no test here may take more than 10 s.
vi.setConfig({ testTimeout: 10_000 });

async function setup(options: ToolCallGuardOptions = {}, wrap?: (t: Transport) => Transport) {
  const calls: { tool: string; args: unknown }[] = [];
  const blocked: BlockedCall[] = [];
  const server = new McpServer({ name: 's', version: '1' });
  const handler = (tool: string) => async (args: unknown) => {
    calls.push({ tool, args });
    return { content: [{ type: 'text' as const, text: 'ok' }] };
  };
  const move = server.registerTool(
    'move',
    { inputSchema: { target: z.object({ x: z.number(), y: z.number() }), note: z.string().optional() } },
    handler('move'),
  );
  server.registerTool('pick', { inputSchema: { app: z.enum(['Qwen', 'Safari']) } }, handler('pick'));
  server.registerTool('delete_all', { inputSchema: {} }, handler('delete_all'));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const guarded = new ToolCallGuardTransport(clientSide, { ...options, onblock: (b) => blocked.push(b) });
  const spy = new Spy(wrap ? wrap(guarded) : guarded);
  const client = quick(new Client({ name: 'c', version: '1' }));
  await client.connect(spy);
  return { client, server, calls, blocked, move, handler, got: spy.got };
}

/** The text of a blocked call's result (isError: true), as the model reads it. */
async function blockedText(p: Promise<unknown>): Promise<string> {
  const r = (await p) as { isError?: boolean; content: { type: string; text: string }[] };
  expect(r.isError).toBe(true);
  expect(r.content).toHaveLength(1);
  expect(r.content[0]!.type).toBe('text');
  return r.content[0]!.text;
}

async function blockedError(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(McpError);
  expect((e as McpError).code).toBe(-32602);
  return (e as McpError).message;
}

/** Waits until the client has been told the list changed (delivery is asynchronous). */
async function listChangedSeen(got: JSONRPCMessage[]): Promise<void> {
  for (let waited = 0; waited < 2000; waited += 5) {
    if (got.some((m) => (m as { method?: string }).method === 'notifications/tools/list_changed')) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('no list_changed');
}

describe('ToolCallGuardTransport', () => {
  it('asks the server for its list when a call comes before any list was seen (its own answer never reaches the client)', async () => {
    const { client, calls, got } = await setup();
    await client.callTool({ name: 'move', arguments: { target: { x: 1, y: 2 } } });
    expect(await blockedText(client.callTool({ name: 'teleport', arguments: {} }))).toMatch(
      /"teleport" is not in the server's current tool list/,
    );
    expect(calls).toHaveLength(1);
    expect(got.filter((m) => 'result' in m && 'tools' in (m.result as object))).toEqual([]);
  });

  it('answers an unknown tool with a result the model can read, and lets valid calls reach the server unchanged', async () => {
    const { client, calls, blocked } = await setup();
    await client.listTools();
    expect(await blockedText(client.callTool({ name: 'teleport', arguments: {} }))).toMatch(
      /^MCP tool call "teleport" was blocked before it reached the server: tool "teleport" is not in the server's current tool list$/,
    );
    await client.callTool({ name: 'move', arguments: { target: { x: 1, y: 2 }, note: 'n' } });
    expect(calls).toEqual([{ tool: 'move', args: { target: { x: 1, y: 2 }, note: 'n' } }]);
    expect(blocked).toEqual([{ toolName: 'teleport', rule: 'unknown-tool', reason: expect.stringContaining('current tool list') }]);
  });

  it('answers arguments that fail the inputSchema with the JSON path and the rule, never the value', async () => {
    const { client, calls, blocked, got } = await setup();
    await client.listTools();
    // Sent at once: the first may wait for the schema compiler; none skips the check.
    const texts = await Promise.all([
      blockedText(client.callTool({ name: 'move', arguments: {} })),
      blockedText(client.callTool({ name: 'move', arguments: { target: { x: 'SECRET', y: 2 } } })),
      blockedText(client.callTool({ name: 'move', arguments: { target: [1, 2] } })),
      blockedText(client.callTool({ name: 'move', arguments: { target: { x: 1 } } })),
    ]);
    expect(texts[0]).toMatch(/\/target must have required property 'target' \(rule "required"\)/);
    expect(texts[1]).toMatch(/\/target\/x must be number \(rule "type"\)/);
    expect(texts[2]).toMatch(/\/target must be object/);
    expect(texts[3]).toMatch(/\/target\/y must have required property/);
    expect(blocked.map((b) => b.path)).toEqual(['/target', '/target/x', '/target', '/target/y']);
    expect(JSON.stringify(blocked) + JSON.stringify(got)).not.toContain('SECRET');
    expect(calls).toEqual([]);
  });

  it("reply: 'error' answers JSON-RPC error -32602 instead (the SDK's callTool throws)", async () => {
    const { client, calls } = await setup({
      reply: 'error',
      policy: (name) => (name === 'delete_all' ? { allow: false, reason: 'no' } : { allow: true }),
    });
    await client.listTools();
    expect(await blockedError(client.callTool({ name: 'teleport', arguments: {} }))).toMatch(
      /"teleport" was blocked .* not in the server's current tool list/,
    );
    expect(await blockedError(client.callTool({ name: 'move', arguments: { target: { x: 'SECRET', y: 2 } } }))).toMatch(
      /\/target\/x must be number \(rule "type"\)/,
    );
    expect(await blockedError(client.callTool({ name: 'delete_all', arguments: {} }))).toMatch(/blocked by policy: no/);
    expect(calls).toEqual([]);
  });

  it('a changed tool list strands nothing and lets nothing unknown through: listed tools are checked, others make the guard ask', async () => {
    const { client, server, calls, move, handler, got } = await setup();
    await client.listTools();
    server.registerTool('zoom', { inputSchema: { factor: z.number() } }, handler('zoom'));
    await listChangedSeen(got);
    const ok = await client.callTool({ name: 'pick', arguments: { app: 'Safari' } });
    expect(ok.isError).toBeFalsy();
    await client.callTool({ name: 'zoom', arguments: { factor: 2 } }); // new: the guard asks the server for its list
    // Not in the server's new list either: blocked (a changed list never lets an unknown tool through).
    expect(await blockedText(client.callTool({ name: 'teleport', arguments: {} }))).toMatch(
      /"teleport" is not in the server's current tool list/,
    );
    // Still checked against its last schema while the list is stale:
    expect(await blockedText(client.callTool({ name: 'pick', arguments: { app: 'Chrome' } }))).toMatch(
      /\/app must be equal to one of the allowed values/,
    );
    move.remove();
    // A removed tool still in the last list passes to the server, which answers.
    const gone = await client.callTool({ name: 'move', arguments: { target: { x: 1, y: 2 } } }).then(
      (r) => r,
      (e: unknown) => e,
    );
    expect(gone).not.toBeUndefined();
    expect(calls).toEqual([
      { tool: 'pick', args: { app: 'Safari' } },
      { tool: 'zoom', args: { factor: 2 } },
    ]);
    // Listed again: the guard knows the new list.
    await client.listTools();
    expect(await blockedText(client.callTool({ name: 'move', arguments: { target: { x: 1, y: 2 } } }))).toMatch(
      /"move" is not in the server's current tool list/,
    );
    expect(await blockedText(client.callTool({ name: 'zoom', arguments: { factor: 'big' } }))).toMatch(/\/factor must be number/);
  });

  it('applies the host policy', async () => {
    const { client, calls } = await setup({
      policy: (name) => (name === 'delete_all' ? { allow: false, reason: 'needs a confirmation nobody can give' } : { allow: true }),
    });
    expect(await blockedText(client.callTool({ name: 'delete_all', arguments: {} }))).toMatch(
      /blocked by policy: needs a confirmation nobody can give/,
    );
    await client.callTool({ name: 'pick', arguments: { app: 'Safari' } });
    expect(calls).toEqual([{ tool: 'pick', args: { app: 'Safari' } }]);
  });

  it('checks decoded values under the filter, and the filter encodes its answers (no term reaches the client)', async () => {
    const { client, calls, got } = await setup({}, (guarded) => new PayloadFilteringTransport(guarded, { side: 'client' }));
    await client.listTools();
    await client.callTool({ name: 'pick', arguments: { app: encodeText('Qwen') } }); // a token, decoded before the check
    expect(calls).toEqual([{ tool: 'pick', args: { app: 'Qwen' } }]);
    const text = await blockedText(client.callTool({ name: encodeText('qwen_alibaba_tongyi'), arguments: {} }));
    expect(text).toContain(`tool "${encodeText('qwen_alibaba_tongyi')}" is not in`);
    expect(await blockedText(client.callTool({ name: 'pick', arguments: { app: encodeText('Dashscope') } }))).toMatch(
      /\/app must be equal to one of the allowed values/,
    );
    expect(termsIn(JSON.stringify(got))).toEqual([]);
    expect(calls).toHaveLength(1);
  });
});

describe('ToolCallGuardTransport with a batch (an SDK older than 2025-06-18 could send one)', () => {
  it('checks every request: the blocked ones are answered locally, the rest go on as a batch', async () => {
    const { guarded, got, farGot } = await guardWithTools([
      { name: 't', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
    ]);
    const call = (id: number, name: string, args: unknown) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    await guarded.send([call(2, 't', { n: 'x' }), call(3, 't', { n: 1 }), call(4, 'nope', {})] as unknown as JSONRPCMessage);
    await new Promise((r) => setTimeout(r, 20));
    expect(farGot.slice(1)).toEqual([[call(3, 't', { n: 1 })]]);
    const answers = got.slice(1) as unknown as { id: number; result: { isError: boolean; content: { text: string }[] } }[];
    expect(answers.map((a) => [a.id, a.result.isError])).toEqual([
      [2, true],
      [4, true],
    ]);
    expect(answers[0]!.result.content[0]!.text).toMatch(/\/n must be number/);
  });
});
