import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { BoundedEventStore } from '../src/cli/event-store.js';
import { runServe, type ServeCommandOptions } from '../src/cli/serve.js';
import { encodeText } from '../src/index.js';
import {
  connectHost,
  expectEncodedListAndEcho,
  expectFirstEventBeforeEnd,
  expectProgressBeforeResult,
  postInitialize,
  type Seen,
  TIMEOUT,
  textOf,
} from './http-helpers.ts';
import { until } from './until.ts';

vi.setConfig({ testTimeout: 20_000 }); // (a hang fails fast)
const SERVER = [process.execPath, 'test/fixtures/http-stdio-server.mjs'];
const cleanup: (() => Promise<unknown> | undefined)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function serve(options: Partial<ServeCommandOptions> = {}) {
  const logs: string[] = [];
  const served = await runServe({ command: SERVER, port: 0, log: (l) => void logs.push(l), ...options });
  cleanup.push(() => served.close());
  return { ...served, logs };
}

/** A host on the SDK's Streamable HTTP client transport, recording log messages; closed after the test. */
async function connect(url: string) {
  const session = await connectHost(url);
  cleanup.push(() => session.client.close().catch(() => {}));
  return session;
}

/**
 * One serve and one session for the cases that neither configure serve nor count on a fresh
 * child (a child's start is most of a case's cost): started by the first that asks, its log
 * messages cleared for each.
 */
let shared: Promise<{ url: string; client: Client; seen: Seen[] }> | undefined;
const closeShared: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closeShared.reverse()) await close().catch(() => {});
});
async function oneSession() {
  shared ??= (async () => {
    const served = await runServe({ command: SERVER, port: 0, log: () => {} });
    closeShared.push(() => served.close());
    const session = await connectHost(served.url);
    closeShared.push(() => session.client.close());
    return { url: served.url, ...session };
  })();
  const session = await shared;
  session.seen.length = 0;
  return session;
}

describe('serve', () => {
  it('lists and results arrive encoded, arguments decoded, notifications before the result', async () => {
    const { client, seen } = await oneSession();
    // (Had the server got the token instead of the text, its echo would encode differently.)
    await expectEncodedListAndEcho(client, 'Qwen 阿里');
    await expectProgressBeforeResult(client, seen, 2);
  });

  it('answers a colliding request -32602 without it reaching the server', async () => {
    const { client } = await oneSession();
    const calls = async () => textOf(await client.callTool({ name: 'calls', arguments: {} }, undefined, TIMEOUT));
    const before = await calls();
    await expect(
      client.callTool({ name: 'echo', arguments: { text: 'x', Qwen: 1, [encodeText('Qwen')]: 2 } }, undefined, TIMEOUT),
    ).rejects.toMatchObject({ code: -32602 });
    expect(await calls()).toBe(before);
  });

  it('passes the first event of a slow call before its result', async () => {
    const { client, seen } = await oneSession();
    // (The call waits for `release`, which is sent only once its first event arrived.)
    await expectFirstEventBeforeEnd(client, seen, () => client.callTool({ name: 'release', arguments: {} }, undefined, TIMEOUT));
    expect(seen).toEqual([{ kind: 'log', text: encodeText('Qwen started') }]);
  });

  it('sends what the server says outside any request on the GET stream', async () => {
    const { client, seen } = await oneSession();
    // (The client opens its GET stream on its own schedule: ask until a message comes that way,
    // again after 100 ms without one, for 10 s at most.)
    for (const deadline = Date.now() + 10_000; !seen.length; ) {
      expect(Date.now(), 'no message on the GET stream within 10 s').toBeLessThan(deadline);
      await client.callTool({ name: 'notify_later', arguments: {} }, undefined, TIMEOUT);
      await until(() => seen.length > 0, 100).catch(() => {});
    }
    expect(seen[0]).toEqual({ kind: 'log', text: encodeText('Qwen later') });
  });

  it('answers 403 to a foreign Origin', async () => {
    const { url } = await oneSession();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example' },
      body: '{}',
    });
    expect(res.status).toBe(403);
  });

  it('gives each session its own child, ends one on DELETE, and refuses sessions beyond --max-sessions', async () => {
    const { url, logs } = await serve({ maxSessions: 2 });
    const a = await connect(url);
    const b = await connect(url);
    await a.client.callTool({ name: 'echo', arguments: { text: 'a' } }, undefined, TIMEOUT);
    expect(textOf(await b.client.callTool({ name: 'calls', arguments: {} }, undefined, TIMEOUT))).toBe('0'); // (b's child saw nothing)
    await expect(connect(url)).rejects.toThrow(/Too many sessions \(2\)/);
    const id = a.transport.sessionId!;
    await a.transport.terminateSession();
    expect(logs).toContain('session ended (DELETE); 1 open');
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    await connect(url); // (room again)
  });

  it('ends a session after --session-idle without a request', async () => {
    // (A request in flight keeps its session: the initialize below, however long the child
    // takes to start, is not cut off; the host sends nothing after it.)
    const { url, logs } = await serve({ sessionIdleMs: 200 });
    const init = await postInitialize(url);
    expect(init.status).toBe(200);
    await init.text();
    await until(() => logs.some((l) => l.startsWith('session ended (idle)')));
  });

  it('with --guard, asks the child for its tool list to judge a call made before any list; the answer stays with serve', async () => {
    const { url } = await serve({ guard: 'all' });
    const { client } = await connect(url);
    const errors: Error[] = [];
    client.onerror = (e) => void errors.push(e); // (an answer to an id the host never sent would land here)
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'Qwen' } }, undefined, TIMEOUT))).toBe(encodeText('echo: Qwen'));
    const unknown = await client.callTool({ name: 'qwen_tool', arguments: {} }, undefined, TIMEOUT);
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/was blocked before it reached the server/);
    expect(textOf(await client.callTool({ name: 'calls', arguments: {} }, undefined, TIMEOUT))).toBe('1'); // (only the echo reached it)
    expect(errors).toEqual([]);
  });
});

/** What a host resuming after event `id` gets: the stream and its messages after it (throws when it cannot resume). */
function replay(store: BoundedEventStore, id: string) {
  const after = store.eventsAfter(id);
  if (!after) throw new Error('that event is no longer stored');
  return { streamId: after.streamId, sent: after.events.map(([, message]) => message) };
}

describe('BoundedEventStore', () => {
  it('replays the events of one stream after an id, and forgets all but the last N', async () => {
    const store = new BoundedEventStore(3);
    const m = (n: number) => JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { n } });
    const a1 = await store.storeEvent('a', m(1));
    await store.storeEvent('b', m(2));
    await store.storeEvent('a', m(3));
    expect(replay(store, a1)).toEqual({ streamId: 'a', sent: [m(3)] });
    await store.storeEvent('a', m(4)); // (a1 drops out)
    expect(await store.getStreamIdForEventId(a1)).toBeUndefined();
    expect(() => replay(store, a1)).toThrow(/no longer stored/);
  });

  it('also forgets the oldest events once they hold more than its byte bound', async () => {
    const big = (n: number) => JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { text: 'x'.repeat(1000), n } });
    const store = new BoundedEventStore(1000, 2500);
    const ids: string[] = [];
    for (let n = 0; n < 4; n++) ids.push(await store.storeEvent('a', big(n)));
    // ids[0]: what followed it (ids[1]) is no longer held. ids[1] was let go too, but all after
    // it is held: a client that saw it resumes after it.
    expect(await store.getStreamIdForEventId(ids[0]!)).toBeUndefined();
    expect(() => replay(store, ids[0]!)).toThrow(/no longer stored/);
    expect(await store.getStreamIdForEventId(ids[1]!)).toBe('a');
    expect(await store.getStreamIdForEventId(ids[2]!)).toBe('a');
    expect(replay(store, ids[2]!)).toEqual({ streamId: 'a', sent: [big(3)] });
  });

  it('a client that saw a large event resumes from it after the next one is stored (the answer after it is not lost)', async () => {
    const store = new BoundedEventStore(1000, 100);
    const log = await store.storeEvent('a', JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { text: 'x'.repeat(1000) } }));
    // (the host's connection drops here, having seen the log; the answer comes)
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} });
    await store.storeEvent('a', answer);
    expect(await store.getStreamIdForEventId(log)).toBe('a');
    expect(replay(store, log)).toEqual({ streamId: 'a', sent: [answer] });
  });

  it('keeps the newest event even when it alone is larger than its byte bound (a client resumes from it)', async () => {
    const store = new BoundedEventStore(1000, 100);
    const small = await store.storeEvent('a', JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { n: 1 } }));
    const large = await store.storeEvent('a', JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { text: 'x'.repeat(1000) } }));
    expect(await store.getStreamIdForEventId(small)).toBe('a'); // (its message went; all after it is held)
    expect(await store.getStreamIdForEventId(large)).toBe('a');
    expect(replay(store, large)).toEqual({ streamId: 'a', sent: [] });
    // The next event lets its message go; its id stays, so resuming after it still works, and
    // resuming from before it is refused (its message is gone).
    const next = await store.storeEvent('a', JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { n: 3 } }));
    expect(await store.getStreamIdForEventId(large)).toBe('a');
    expect(await store.getStreamIdForEventId(small)).toBeUndefined();
    expect(await store.getStreamIdForEventId(next)).toBe('a');
  });
});
