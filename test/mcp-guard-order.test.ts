// While the schema compiler loads (first need), a call never skips validation, and what is
// sent after it waits behind it: the inner transport gets messages in the order they were sent.
// This file never loads the compiler before its checks (each test file has its own modules).
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { schemaCompilerLoaded } from '../src/guard/schema.ts';
import { guardWithTools } from './mcp-guard-helpers.ts';

const call = (id: number, n: unknown) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: { n } } }) as JSONRPCMessage;

describe('ToolCallGuardTransport while ajv loads', () => {
  it('validates the first calls and keeps the order of everything sent', async () => {
    const { guarded, got, farGot } = await guardWithTools([
      { name: 't', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
    ]);
    expect(schemaCompilerLoaded()).toBe(false); // (else this test would prove nothing)
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } } as JSONRPCMessage;
    await Promise.all([
      guarded.send(call(2, 'x')),
      guarded.send(call(3, 1)),
      guarded.send(note),
      guarded.send(call(4, 'y')),
      guarded.send(call(5, 2)),
    ]);
    expect(schemaCompilerLoaded()).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(farGot.slice(1)).toEqual([call(3, 1), note, call(5, 2)]);
    expect(got.slice(1).map((m) => [(m as { id: number }).id, (m as unknown as { result: { isError: boolean } }).result.isError])).toEqual([
      [2, true],
      [4, true],
    ]);
  });
});
