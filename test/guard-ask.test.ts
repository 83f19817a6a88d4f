// ToolCallGuard asks for the list it lacks (ListTools, given by a transport) and never lets a
// tool it cannot judge through: pages, cursors that repeat, an asking that fails, calls that
// wait for one asking together, a change announced while asking.
import { describe, expect, it } from 'vitest';
import { type ListTools, ToolCallGuard } from '../src/guard/tool.js';
import type { Message } from '../src/jsonrpc/message.js';

const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }) as Message;
const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as Message;

/** The text of a blocked call's answer, or 'passed'. */
async function verdict(guard: ToolCallGuard, name: string, ask?: ListTools): Promise<string> {
  const a = (await guard.outgoing(call(1, name), ask)) as { result?: { content: { text: string }[] } } | undefined;
  return a ? a.result!.content[0]!.text : 'passed';
}

/** A server's pages: `pages[cursor ?? '']` (a missing page rejects), counting the askings. */
function server(pages: Record<string, { tools: unknown[]; nextCursor?: string }>) {
  const asked: (string | undefined)[] = [];
  const ask: ListTools = async (cursor) => {
    asked.push(cursor);
    await new Promise((r) => setTimeout(r, 1));
    const page = pages[cursor ?? ''];
    if (!page) throw new Error('the server answered HTTP 500');
    return page;
  };
  return { ask, asked };
}

describe('ToolCallGuard asking for its list', () => {
  it('asks for every page once for calls that wait together, then judges each', async () => {
    const { ask, asked } = server({ '': { tools: [tool('a')], nextCursor: 'p2' }, p2: { tools: [tool('b')] } });
    const guard = new ToolCallGuard();
    const got = await Promise.all(['a', 'b', 'c', 'a'].map((n) => verdict(guard, n, ask)));
    expect(got.map((t) => (t === 'passed' ? t : t.replace(/^.*: /, '')))).toEqual([
      'passed',
      'passed',
      'tool "c" is not in the server\'s current tool list',
      'passed',
    ]);
    expect(asked).toEqual([undefined, 'p2']);
    expect(await verdict(guard, 'b', ask)).toBe('passed');
    expect(asked).toHaveLength(2); // known now: not asked again
  });

  it('blocks with the reason when asking fails, when cursors repeat, and when it cannot ask', async () => {
    expect(await verdict(new ToolCallGuard(), 'a', server({}).ask)).toMatch(
      /the server's tool list is not known, and asking the server for it failed: the server answered HTTP 500$/,
    );
    const loop = server({ '': { tools: [tool('a')], nextCursor: 'x' }, x: { tools: [], nextCursor: 'x' } });
    expect(await verdict(new ToolCallGuard(), 'a', loop.ask)).toMatch(/its tools\/list cursors repeat \(page 2\)$/);
    expect(await verdict(new ToolCallGuard(), 'a')).toMatch(
      /the server's tool list is not known; list the tools \(tools\/list\), then call again$/,
    );
  });

  it('after list_changed, a listed tool is judged by its last schema, an unlisted one makes it ask again', async () => {
    const pages = { '': { tools: [tool('a')] } as { tools: unknown[] } };
    const { ask, asked } = server(pages);
    const guard = new ToolCallGuard();
    expect(await verdict(guard, 'a', ask)).toBe('passed');
    guard.incoming(changed);
    pages[''] = { tools: [tool('a'), tool('new')] };
    expect(await verdict(guard, 'a', ask)).toBe('passed'); // (no asking: the last list holds it)
    expect(asked).toHaveLength(1);
    expect(await verdict(guard, 'new', ask)).toBe('passed');
    expect(await verdict(guard, 'made_up', ask)).toMatch(/"made_up" is not in the server's current tool list/);
    expect(asked).toHaveLength(2);
    guard.incoming(changed);
    expect(await verdict(guard, 'made_up')).toMatch(/the server's tool list changed and was not listed again/);
  });

  it('a change announced while asking leaves the list stale: the next unknown tool asks again', async () => {
    const guard = new ToolCallGuard();
    let asked = 0;
    const ask: ListTools = async () => {
      asked++;
      if (asked === 1) guard.incoming(changed);
      return { tools: [tool(`t${asked}`)] };
    };
    expect(await verdict(guard, 't1', ask)).toBe('passed');
    expect(await verdict(guard, 't2', ask)).toBe('passed');
    expect(asked).toBe(2);
  });
});
