// ToolCallGuard's trail for other transports: every tools/call it judges reaches onAudit, the
// rule taken from the verdict (policy, schema, unknown-tool, outside-roots), the argument's JSON
// pointer where the block names one, and never an argument's value.
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../src/guard/audit.js';
import { ToolCallGuard } from '../src/guard/tool.js';
import type { Message } from '../src/jsonrpc/message.js';

const call = (id: number | string, name: string, args: Record<string, unknown>) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) as Message;

describe('ToolCallGuard onAudit', () => {
  it('hands each verdict to onAudit with the rule from the guard, allowed calls included', async () => {
    const trail: AuditEntry[] = [];
    const guard = new ToolCallGuard({
      roots: ['/srv/work'],
      policy: (name) => (name === 'rm' ? { allow: false, reason: 'never' } : { allow: true }),
      onAudit: (e) => trail.push(e),
    });
    await ToolCallGuard.ready();
    guard.outgoing({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } as Message);
    guard.incoming({
      jsonrpc: '2.0',
      id: 1,
      result: {
        tools: [
          { name: 'rm', inputSchema: { type: 'object' } },
          { name: 'read', inputSchema: { type: 'object', properties: { path: { type: 'string' }, n: { type: 'number' } } } },
        ],
      },
    } as Message);
    guard.outgoing(call('a', 'rm', { path: 'SECRET-1' }));
    guard.outgoing(call(2, 'read', { n: 'SECRET-2' }));
    guard.outgoing(call(3, 'read', { path: '/etc/SECRET-3' }));
    guard.outgoing(call(4, 'nope', { x: 'SECRET-4' }));
    guard.outgoing(call(5, 'read', { path: 'SECRET-5' }));
    expect(trail.map(({ time, ...e }) => e)).toEqual([
      { request: '"a"', tool: 'rm', decision: 'blocked', rule: 'policy' },
      { request: '2', tool: 'read', decision: 'blocked', rule: 'schema', paths: ['/n'] },
      { request: '3', tool: 'read', decision: 'blocked', rule: 'outside-roots', paths: ['/path'] },
      { request: '4', tool: 'nope', decision: 'blocked', rule: 'unknown-tool' },
      { request: '5', tool: 'read', decision: 'allowed' },
    ]);
    expect(JSON.stringify(trail)).not.toMatch(/SECRET/);
  });

  it('blocks a call whose arguments are no object (schema), where the roots would not see its paths', async () => {
    // (an array's strings have no parameter name, so `/etc/passwd` in one is no path by the rule;
    // a tool whose inputSchema leaves out `type: "object"` would let the array by)
    const trail: AuditEntry[] = [];
    const guard = new ToolCallGuard({ roots: ['/srv/work'], onAudit: (e) => trail.push(e) });
    await ToolCallGuard.ready();
    guard.outgoing({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } as Message);
    guard.incoming({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'read', inputSchema: {} }] } } as Message);
    const raw = (id: number, args: unknown) =>
      ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read', arguments: args } }) as Message;
    for (const [id, args] of [
      [2, ['/etc/SECRET']],
      [3, '/etc/SECRET'],
      [4, 7],
    ] as const)
      expect(guard.outgoing(raw(id, args))).toMatchObject({ id, result: { isError: true } });
    expect(guard.outgoing(raw(5, undefined))).toBeUndefined();
    expect(guard.outgoing(raw(6, { path: 'inside' }))).toBeUndefined();
    expect(trail.map(({ time, ...e }) => e)).toEqual([
      { request: '2', tool: 'read', decision: 'blocked', rule: 'schema' },
      { request: '3', tool: 'read', decision: 'blocked', rule: 'schema' },
      { request: '4', tool: 'read', decision: 'blocked', rule: 'schema' },
      { request: '5', tool: 'read', decision: 'allowed' },
      { request: '6', tool: 'read', decision: 'allowed' },
    ]);
  });
});
