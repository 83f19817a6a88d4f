// Each transport acts on the verdict (src/guard/verdict.ts) and decides nothing itself: with the
// verdict forced, a call the checks would pass is answered with the verdict's text and never sent
// on, and a call they would block (a tool nobody listed) goes on. One case per path: the SDK
// wrapper (ToolCallGuardTransport), the HTTP pieces' guard (CallGuard, as proxy, serve,
// createFilteringFetch and createFilteringProxy screen a body) and wrap's (WrapGuard).
import { describe, expect, it, vi } from 'vitest';
import { WrapGuard } from '../src/cli/guard.ts';
import { type Reply, replyLine } from '../src/cli/replies.ts';
import { blockVerdict, type Verdict } from '../src/guard/verdict.ts';
import { CallGuard, screen } from '../src/http/call-guard.ts';
import { createCodec } from '../src/index.ts';
import { guardWithTools } from './mcp-guard-helpers.ts';
import { until } from './until.ts';

const FORCED = 'the verdict said so';
/** The verdicts forced, by tool name: 'fine' (listed, no schema) blocked, 'ghost' (never listed) allowed. */
const forced = (m: unknown): Verdict | undefined => {
  const o = m as { id?: unknown; method?: unknown; params?: { name?: unknown } };
  if (o.method !== 'tools/call' || o.id === undefined) return undefined;
  if (o.params?.name === 'fine') return blockVerdict({ toolName: 'fine', rule: 'policy', reason: FORCED });
  if (o.params?.name === 'ghost') return { kind: 'allow', tool: 'ghost' };
  return undefined;
};
vi.mock('../src/guard/verdict.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/guard/verdict.ts')>();
  return { ...real, callVerdict: (...a: Parameters<typeof real.callVerdict>) => forced(a[0]) ?? real.callVerdict(...a) };
});

const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }) as const;
const textOf = (m: unknown) => (m as { result?: { content?: { text?: string }[] } }).result?.content?.[0]?.text;
const ids = (ms: unknown[]) => ms.map((m) => (m as { id?: unknown }).id);

describe('every path applies the verdict', () => {
  it('the SDK wrapper', async () => {
    const { guarded, got, farGot } = await guardWithTools([{ name: 'fine' }]);
    await guarded.send(call(2, 'fine'));
    await guarded.send(call(3, 'ghost'));
    await until(() => farGot.length + got.length >= 3);
    expect(ids(farGot)).toEqual([1, 3]);
    expect(ids(got.slice(1))).toEqual([2]);
    expect(textOf(got[1])).toContain(FORCED);
  });

  it('the HTTP guard', async () => {
    const guard = new CallGuard('all');
    guard.answer({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    guard.learn({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'fine' }] } });
    const s = await screen(guard, [call(2, 'fine'), call(3, 'ghost')]);
    expect(ids(s.rest)).toEqual([3]);
    expect(ids(s.answers)).toEqual([2]);
    expect(textOf(s.answers[0])).toContain(FORCED);
  });

  it('wrap', () => {
    const codec = createCodec();
    const toServer: string[] = [];
    const toClient: string[] = [];
    const guard = new WrapGuard(codec, {
      toServer: (b) => toServer.push(Buffer.from(b).toString()),
      toClient: (b) => toClient.push(Buffer.from(b).toString()),
      reply: (r: Reply) => toClient.push(Buffer.from(replyLine(codec, r)).toString()),
      log: () => {},
      fail: (e) => {
        throw e;
      },
      busy: () => {},
    });
    const line = (m: unknown) => new TextEncoder().encode(`${JSON.stringify(m)}\n`);
    guard.fromClient(line({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
    guard.toClient(line({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'fine' }] } }));
    const before = toServer.length;
    guard.fromClient(line(call(2, 'fine')));
    guard.fromClient(line(call(3, 'ghost')));
    const sent = toServer
      .slice(before)
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const answered = toClient
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .slice(1);
    expect(ids(sent)).toEqual([3]);
    expect(ids(answered)).toEqual([2]);
    expect(textOf(answered[0])).toContain(FORCED);
  });
});
