// A tools/call without an id MCP allows (a notification, `"id": null`, an id of another type) is
// dropped by the guard's judgement (guard/drop.ts): never sent on, never answered, told to the
// trail. Over generated messages and batches, what ToolCallGuard (the SDK wrapper's) and the
// HTTP screen (serve, proxy, connect, the fetch) send on, answer and drop is exactly what a small
// reference says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../src/guard/audit.js';
import { DROPPED } from '../src/guard/drop.js';
import { ToolCallGuard } from '../src/guard/tool.js';
import { CallGuard, screen } from '../src/http/call-guard.js';
import type { Message } from '../src/jsonrpc/message.js';

const LIST = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };

/** What becomes of one message, by the rule written out plainly. */
function reference(m: Record<string, unknown>): 'send' | 'answer' | 'drop' {
  if (m.method !== 'tools/call') return 'send';
  const id = m.id;
  if (typeof id !== 'string' && typeof id !== 'number') return 'drop';
  return (m.params as { name: string }).name === 'echo' ? 'send' : 'answer';
}

const idField = fc.oneof(
  fc.constant({}),
  fc.constant({ id: null }),
  fc.record({ id: fc.oneof(fc.integer(), fc.string({ maxLength: 4 })) }),
  fc.record({ id: fc.oneof(fc.boolean(), fc.constant({}), fc.constant([1])) }),
);
const message = fc
  .tuple(
    idField,
    fc.constantFrom('tools/call', 'tools/list', 'ping', 'notifications/initialized', 'notifications/cancelled'),
    fc.constantFrom('echo', 'delete_all'),
  )
  .map(([id, method, name]) => ({ jsonrpc: '2.0', ...id, method, params: { name, arguments: { text: 'SECRET' } } }));
const body = fc.oneof(
  message.map((m) => ({ batch: false, messages: [m] })),
  fc.array(message, { minLength: 1, maxLength: 6 }).map((messages) => ({ batch: true, messages })),
);

async function toolGuard(trail: AuditEntry[]) {
  const guard = new ToolCallGuard({ onAudit: (e) => trail.push(e) });
  await ToolCallGuard.ready();
  guard.outgoing({ jsonrpc: '2.0', id: 'l', method: 'tools/list' } as Message);
  guard.incoming({ jsonrpc: '2.0', id: 'l', result: LIST } as Message);
  return guard;
}

async function callGuard(trail: AuditEntry[]) {
  const guard = new CallGuard('all', () => {}, { onAudit: (e) => trail.push(e) });
  await screen(guard, { jsonrpc: '2.0', id: 'l', method: 'tools/list' });
  guard.learn({ jsonrpc: '2.0', id: 'l', result: LIST });
  return guard;
}

const dropEntries = (messages: Record<string, unknown>[]) =>
  messages
    .filter((m) => reference(m) === 'drop')
    .map((m) => ({ tool: (m.params as { name: string }).name, decision: 'blocked', rule: 'malformed' }));

describe('a tools/call without an id is dropped', () => {
  it('ToolCallGuard.outgoing: sends on, answers and drops as the reference says; the trail names each drop', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 8 }), async (messages) => {
        const trail: AuditEntry[] = [];
        const guard = await toolGuard(trail);
        for (const m of messages) {
          const out = await guard.outgoing(m as unknown as Message);
          const kind = out === undefined ? 'send' : out === DROPPED ? 'drop' : 'answer';
          expect(kind).toBe(reference(m));
        }
        const drops = trail.filter((e) => e.rule === 'malformed').map(({ time, ...e }) => e);
        expect(drops).toEqual(dropEntries(messages));
        expect(JSON.stringify(trail)).not.toContain('SECRET');
      }),
      { numRuns: 200 },
    );
  });

  it('the HTTP screen (serve, proxy, connect, the fetch): per batch, exactly the reference passes and is answered', async () => {
    await fc.assert(
      fc.asyncProperty(body, async ({ batch, messages }) => {
        const trail: AuditEntry[] = [];
        const guard = await callGuard(trail);
        const s = await screen(guard, batch ? messages : messages[0], undefined, [], 'S1');
        const kinds = messages.map(reference);
        const where = (k: string) => kinds.flatMap((x, i) => (x === k ? [i] : []));
        expect(s.passed).toEqual(where('send'));
        expect(s.answered).toEqual(where('answer'));
        expect(s.dropped).toBe(where('drop').length);
        const drops = trail.filter((e) => e.rule === 'malformed').map(({ time, ...e }) => e);
        expect(drops).toEqual(dropEntries(messages).map((e) => ({ session: 'S1', ...e })));
      }),
      { numRuns: 200 },
    );
  });
});
