// The tool guard's schema cache: a server re-sends its tool list (new objects, mostly the same
// schemas) at every list_changed; equal schemas compile once, the cache stays bounded, and a
// schema id reused with new content is not a conflict.
import { describe, expect, it } from 'vitest';
import { schemaCacheStats } from '../src/guard/schema.ts';
import { ToolCallGuard } from '../src/mcp/index.ts';

const schemaOf = (n: number, id?: string) => ({
  ...(id ? { $id: id } : {}),
  type: 'object',
  properties: { [`p${n}`]: { type: 'string', maxLength: n + 1 } },
  required: [`p${n}`],
});

let nextId = 0;
function list(guard: ToolCallGuard, tools: { name: string; inputSchema: Record<string, unknown> }[]) {
  const id = ++nextId;
  guard.outgoing({ jsonrpc: '2.0', id, method: 'tools/list' });
  guard.incoming({ jsonrpc: '2.0', id, result: { tools } });
}

describe('the tool guard schema cache', () => {
  it('compiles equal schemas once however often the list is re-sent as new objects', async () => {
    await ToolCallGuard.ready();
    const guard = new ToolCallGuard();
    const before = schemaCacheStats().compilations;
    for (let round = 0; round < 200; round++) {
      list(
        guard,
        [0, 1, 2].map((n) => ({ name: `t${n}`, inputSchema: schemaOf(n) })),
      );
      expect(guard.check('t1', { p1: 'ab' })).toBeUndefined();
      expect(guard.check('t2', { p1: 'ab' })?.path).toBe('/p2');
    }
    expect(schemaCacheStats().compilations - before).toBe(2);
  });

  it('stays bounded by its limit, and an evicted schema still checks when it comes back', async () => {
    await ToolCallGuard.ready();
    const guard = new ToolCallGuard();
    const { max } = schemaCacheStats();
    for (let n = 0; n < max + 50; n++) {
      list(guard, [{ name: 't', inputSchema: schemaOf(1000 + n) }]);
      expect(guard.check('t', {})?.path).toBe(`/p${1000 + n}`);
    }
    expect(schemaCacheStats().cached).toBeLessThanOrEqual(max);
    list(guard, [{ name: 't', inputSchema: schemaOf(1000) }]);
    expect(guard.check('t', { p1000: 'x'.repeat(1002) })?.reason).toContain('maxLength');
  });

  it('takes a schema $id that comes back with new content (ajv would refuse a second schema by one id)', async () => {
    await ToolCallGuard.ready();
    const guard = new ToolCallGuard();
    for (let n = 0; n < 5; n++) {
      list(guard, [{ name: 't', inputSchema: schemaOf(2000 + n, 'urn:tool:t') }]);
      expect(guard.check('t', {})?.path).toBe(`/p${2000 + n}`);
    }
  });
});
