// ToolCallGuardTransport and a tools/call that has no id (a notification, or `"id": null`): the
// real SDK server never receives it, nothing is answered, onAudit and onblock name it (rule
// malformed, no request), and a request beside it in a batch goes on. IntegrityGuardTransport
// drops one too and tells `ondrop`. See guard/drop.ts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AuditEntry } from '../src/guard/audit.js';
import {
  type BlockedCall,
  DROPPED,
  type DroppedCall,
  IntegrityGuardTransport,
  ToolCallGuard,
  ToolCallGuardTransport,
} from '../src/mcp/index.ts';

const note = (name: string, id?: { id: null }) =>
  ({ jsonrpc: '2.0', ...id, method: 'tools/call', params: { name, arguments: { all: 'SECRET' } } }) as JSONRPCMessage;

describe('ToolCallGuardTransport drops a tools/call without an id', () => {
  it('the real SDK server never receives one; the trail names each; a request in a batch with one goes on', async () => {
    const ran: string[] = [];
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('delete_all', { inputSchema: { all: z.string() } }, async () => {
      ran.push('delete_all');
      return { content: [{ type: 'text', text: 'deleted' }] };
    });
    const [near, far] = InMemoryTransport.createLinkedPair();
    await server.connect(far);
    const serverGot: JSONRPCMessage[] = [];
    const dispatch = far.onmessage!;
    far.onmessage = (m, extra) => {
      serverGot.push(m);
      dispatch(m, extra);
    };
    const audit: AuditEntry[] = [];
    const blocked: BlockedCall[] = [];
    const guarded = new ToolCallGuardTransport(near, { onAudit: (e) => audit.push(e), onblock: (b) => blocked.push(b) });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(guarded);
    await client.listTools();

    await client.notification({ method: 'tools/call', params: { name: 'delete_all', arguments: { all: 'SECRET' } } });
    await guarded.send(note('delete_all', { id: null }));
    // (the SDK's Protocol sends no batches: one is written to the transport as a host could)
    const answers: JSONRPCMessage[] = [];
    const before = far.onmessage;
    far.onmessage = (m, extra) => {
      if (Array.isArray(m))
        for (const one of m as JSONRPCMessage[]) void far.send({ jsonrpc: '2.0', id: (one as { id: number }).id, result: {} });
      before(m, extra);
    };
    const hear = guarded.onmessage!;
    guarded.onmessage = (m, extra) => {
      answers.push(m);
      hear(m, extra);
    };
    await guarded.send([{ jsonrpc: '2.0', id: 'p', method: 'ping' }, note('delete_all')] as unknown as JSONRPCMessage);
    await guarded.send([note('delete_all'), note('delete_all')] as unknown as JSONRPCMessage);
    await client.ping(); // (everything before it has reached the server)

    expect(ran).toEqual([]);
    const calls = serverGot.flat().filter((m) => (m as { method?: string }).method === 'tools/call');
    expect(calls).toEqual([]);
    expect(serverGot).toContainEqual([{ jsonrpc: '2.0', id: 'p', method: 'ping' }]);
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    const drop = { tool: 'delete_all', decision: 'blocked', rule: 'malformed' };
    expect(audit.map(({ time, ...e }) => e)).toEqual([drop, drop, drop, drop, drop]);
    expect(blocked.map((b) => [b.toolName, b.rule])).toEqual(Array(5).fill(['delete_all', 'malformed']));
    expect(JSON.stringify([audit, blocked])).not.toContain('SECRET');
    await client.close();
  });

  it('IntegrityGuardTransport drops one too, alone or in a batch, on either side', async () => {
    const [near, far] = InMemoryTransport.createLinkedPair();
    const farGot: JSONRPCMessage[] = [];
    far.onmessage = (m) => void farGot.push(m);
    const dropped: [string, DroppedCall][] = [];
    const client = new IntegrityGuardTransport(near, { ondrop: (d) => void dropped.push(['client', d]) });
    const delivered: JSONRPCMessage[] = [];
    const server = new IntegrityGuardTransport(far, { side: 'server', ondrop: (d) => void dropped.push(['server', d]) });
    server.onmessage = (m) => void delivered.push(m);
    await client.start();
    await server.start();
    const ping = { jsonrpc: '2.0', id: 'p', method: 'ping' } as JSONRPCMessage;
    await client.send(note('delete_all'));
    await client.send([ping, note('delete_all', { id: null })] as unknown as JSONRPCMessage);
    await client.send(ping);
    // (from the client side unchecked: the server side's own check)
    await near.send(note('delete_all'));
    await near.send([ping, note('delete_all')] as unknown as JSONRPCMessage);
    await near.send(ping);
    expect(farGot).toEqual([[ping], ping, note('delete_all'), [ping, note('delete_all')], ping]);
    expect(delivered).toEqual([[ping], ping, [ping], ping]);
    // (each drop told, typed: its tool and why, never its arguments)
    expect(dropped.map(([side, d]) => [side, d.toolName, d.reason.split(':')[0]])).toEqual([
      ['client', 'delete_all', 'it has no id (sent as a notification)'],
      ['client', 'delete_all', 'its id is null'],
      ['server', 'delete_all', 'it has no id (sent as a notification)'],
      ['server', 'delete_all', 'it has no id (sent as a notification)'],
    ]);
    expect(JSON.stringify(dropped)).not.toContain('SECRET');
  });

  it('the entry exports what a caller of ToolCallGuard needs to tell a drop: DROPPED', async () => {
    const guard = new ToolCallGuard();
    expect(guard.outgoing(note('delete_all') as never)).toBe(DROPPED);
  });
});
