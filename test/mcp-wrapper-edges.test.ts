// The wrappers' edges, driven with raw JSON-RPC messages over the SDK's InMemoryTransport.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { IntegrityGuardTransport, PayloadFilteringTransport, ToolCallGuard } from '../src/mcp/index.ts';

// A hang (an answer delivered to the wrong side) fails in seconds, not at the 60 s default.
vi.setConfig({ testTimeout: 5_000 });

const Q = '__mcp_ref_5177656e__';
const colliding = { Qwen: 1, [Q]: 2 };
const tick = () => new Promise((r) => setTimeout(r, 20));
/** Waits (up to 2 s) until `cond` holds: deliveries are asynchronous. */
async function until(cond: () => boolean): Promise<void> {
  for (let waited = 0; !cond() && waited < 2000; waited += 5) await new Promise((r) => setTimeout(r, 5));
}

/** A wrapped end and the raw other end, with what each side received. */
async function pair(wrap: (t: Transport) => Transport) {
  const [near, far] = InMemoryTransport.createLinkedPair();
  const wrapped = wrap(near);
  const got: JSONRPCMessage[] = [];
  const farGot: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  wrapped.onmessage = (m) => void got.push(m);
  wrapped.onerror = (e) => void errors.push(e);
  far.onmessage = (m) => void farGot.push(m);
  await wrapped.start();
  await far.start();
  return { wrapped, far, got, farGot, errors };
}

// ToolCallGuard.check is synchronous once the schema compiler (loaded on first need) is in.
beforeAll(() => ToolCallGuard.ready());

describe('PayloadFilteringTransport edges', () => {
  it('server side: a colliding notification goes to onerror; a colliding response fails its request', async () => {
    const { far, got, errors } = await pair((t) => new PayloadFilteringTransport(t));
    await far.send({ jsonrpc: '2.0', method: 'notifications/x', params: colliding } as JSONRPCMessage);
    await far.send({ jsonrpc: '2.0', id: 5, result: colliding } as JSONRPCMessage);
    await until(() => errors.length > 0 && got.length > 0);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.name).toBe('PayloadKeyCollisionError');
    expect(got).toEqual([
      { jsonrpc: '2.0', id: 5, error: { code: -32602, message: expect.stringContaining('rejected rather than merged') } },
    ]);
  });

  it('client side: sending a message whose keys collide when decoded rejects', async () => {
    const { wrapped, farGot } = await pair((t) => new PayloadFilteringTransport(t, { side: 'client' }));
    await expect(
      wrapped.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: colliding } } as JSONRPCMessage),
    ).rejects.toThrow(/rejected rather than merged/);
    await tick();
    expect(farGot).toEqual([]);
  });

  it('forwards sessionId, protocolVersion and the optional members the inner transport has', async () => {
    const calls: string[] = [];
    const inner = {
      sessionId: 'abc',
      protocolVersion: '2025-06-18',
      start: async () => {},
      send: async () => {},
      close: async () => {},
      setProtocolVersion: (v: string) => void calls.push(`version ${v}`),
      terminateSession: async () => void calls.push('terminate'),
    } as unknown as Transport;
    const wrapped = new PayloadFilteringTransport(inner) as PayloadFilteringTransport & {
      terminateSession?: () => Promise<void>;
      finishAuth?: unknown;
    };
    expect(wrapped.sessionId).toBe('abc');
    expect(wrapped.protocolVersion).toBe('2025-06-18');
    wrapped.setProtocolVersion!('2025-11-25');
    await wrapped.terminateSession!();
    expect(calls).toEqual(['version 2025-11-25', 'terminate']);
    expect(wrapped.finishAuth).toBeUndefined();
  });
});

describe('IntegrityGuardTransport edges', () => {
  it('puts the reports in error.data, without content', async () => {
    const { wrapped, got, farGot } = await pair((t) => new IntegrityGuardTransport(t, { reply: 'error' }));
    await wrapped.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'w', arguments: { content: 'secret\uFFFD' } },
    } as JSONRPCMessage);
    await until(() => got.length > 0);
    expect(farGot).toEqual([]);
    const reply = got[0] as { error: { data: { reports: unknown[] } } };
    expect(reply.error.data.reports).toEqual([
      {
        path: ['content'],
        parameterName: 'content',
        location: 'value',
        replacementCharacterCount: 1,
        loneSurrogateCount: 0,
        characterOffset: 6,
        utf8ByteOffset: 6,
      },
    ]);
    expect(JSON.stringify(reply)).not.toContain('secret');
  });
});

describe('ToolCallGuard edges', () => {
  it('learns a tool list that comes in pages', () => {
    const guard = new ToolCallGuard();
    guard.outgoing({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } as JSONRPCMessage);
    guard.incoming({
      jsonrpc: '2.0',
      id: 1,
      result: { tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'p2' },
    } as JSONRPCMessage);
    // The list is not complete yet: no tool can be judged, so none passes (with no way to ask).
    expect(guard.check('b', {})?.reason).toMatch(/the server's tool list is not known; list the tools/);
    guard.outgoing({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'p2' } } as JSONRPCMessage);
    guard.incoming({ jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'b', inputSchema: { type: 'object' } }] } } as JSONRPCMessage);
    expect(guard.check('a', {})).toBeUndefined();
    expect(guard.check('b', {})).toBeUndefined();
    expect(guard.check('c', {})?.reason).toMatch(/"c" is not in the server's current tool list/);
  });

  it('validates draft 2020-12 schemas too', () => {
    const guard = new ToolCallGuard();
    guard.outgoing({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } as JSONRPCMessage);
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { items: { type: 'array', prefixItems: [{ type: 'number' }] } },
    };
    guard.incoming({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 't', inputSchema: schema }] } } as JSONRPCMessage);
    expect(guard.check('t', { items: [1, 'x'] })).toBeUndefined();
    expect(guard.check('t', { items: ['x'] })).toMatchObject({ path: '/items/0' });
  });
});
