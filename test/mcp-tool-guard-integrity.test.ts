// ToolCallGuardTransport({ integrity: true }): the tool guard checks U+FFFD itself, first, as wrap
// and the HTTP guard do (guard/verdict.ts). Without it, the SDK's U+FFFD check is the
// IntegrityGuardTransport below, which the tool guard cannot see: a damaged call the confirm rule
// names is asked about, and the trail says `confirmed`, before the layer below blocks it.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../src/guard/audit.ts';
import { IntegrityGuardTransport, ToolCallGuardTransport } from '../src/mcp/index.ts';
import { until } from './until.ts';

const TOOLS = [{ name: 'write', inputSchema: { type: 'object', properties: { content: { type: 'string' } } } }];

async function session(integrity: boolean) {
  const [near, far] = InMemoryTransport.createLinkedPair();
  const farGot: JSONRPCMessage[] = [];
  far.onmessage = (m) => void farGot.push(m);
  await far.start();
  const askUser = vi.fn(async () => true);
  const trail: AuditEntry[] = [];
  const guarded = new ToolCallGuardTransport(new IntegrityGuardTransport(near), {
    confirm: ['write'],
    askUser,
    onAudit: (e) => void trail.push(e),
    ...(integrity ? { integrity } : {}),
  });
  const got: JSONRPCMessage[] = [];
  guarded.onmessage = (m) => void got.push(m);
  await guarded.start();
  await guarded.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  await far.send({ jsonrpc: '2.0', id: 1, result: { tools: TOOLS } } as JSONRPCMessage);
  await guarded.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write', arguments: { content: 'a\uFFFD' } } });
  await until(() => got.length === 2);
  return { farGot, got, askUser, trail };
}

describe('ToolCallGuardTransport({ integrity: true })', () => {
  it('blocks a damaged call before asking anyone; the trail says damaged', async () => {
    const { farGot, got, askUser, trail } = await session(true);
    expect(askUser).not.toHaveBeenCalled();
    expect(trail.map(({ time, ...e }) => e)).toEqual([
      { request: '2', tool: 'write', decision: 'blocked', rule: 'damaged', paths: ['/content'] },
    ]);
    expect((got[1] as { result?: { isError?: boolean } }).result?.isError).toBe(true);
    expect(farGot.map((m) => (m as { id?: unknown }).id)).toEqual([1]);
  });

  it('without it the layer below blocks the call after the user was asked (why the option exists)', async () => {
    const { farGot, askUser, trail } = await session(false);
    expect(askUser).toHaveBeenCalledOnce();
    expect(trail.map((e) => e.decision)).toEqual(['confirmed']);
    expect(farGot.map((m) => (m as { id?: unknown }).id)).toEqual([1]);
  });
});
