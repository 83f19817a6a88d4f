// What the guards of many sessions keep is bounded in sessions and in the bytes of their lists;
// the least recently used go first, and a forgotten session gets a guard that knows no list
// (so it asks or blocks: test/http-guard-churn.test.ts).
import { describe, expect, it } from 'vitest';
import { SessionGuards } from '../src/http/session-guards.js';

/** `guard` learns a list of `n` tools with descriptions of `size` characters, as a host's tools/list passing. */
function learnList(guards: SessionGuards, session: string, n: number, size: number): void {
  const guard = guards.get(session);
  guard.answer({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const tools = Array.from({ length: n }, (_, i) => ({ name: `t${i}`, description: 'd'.repeat(size), inputSchema: { type: 'object' } }));
  guard.learn({ jsonrpc: '2.0', id: 1, result: { tools } });
  guards.keep(session, guard);
}

describe('SessionGuards', () => {
  it('keeps the lists within the byte bound, the least recently used forgotten first', () => {
    const guards = new SessionGuards('tools', () => {}, 1000, 20_000);
    for (let i = 0; i < 40; i++) {
      guards.issued(`s${i}`);
      learnList(guards, `s${i}`, 4, 1000); // about 4 KB a list
      expect(guards.listBytes).toBeLessThanOrEqual(20_000);
    }
    expect(guards.size).toBeGreaterThan(0);
    expect(guards.get('s39').knowsList).toBe(true);
    expect(guards.get('s0').knowsList).toBe(false); // forgotten: a new guard, no list
  });

  it('keeps at most its number of sessions; one in use stays', () => {
    const guards = new SessionGuards('tools', () => {}, 8);
    learnList(guards, 'live', 1, 10);
    for (let i = 0; i < 100; i++) {
      guards.issued(`s${i}`);
      if (i % 4 === 0) expect(guards.get('live').knowsList).toBe(true); // (used: most recent)
      expect(guards.size).toBeLessThanOrEqual(8);
    }
  });
});
