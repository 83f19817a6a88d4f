// A serve session alone: a ServeSession on a fake child (in-memory stdin and stdout), driven
// through post/get/close as the handler drives it, its event streams read as a host reads them.
// What reaches the child must be the host's bytes; what reaches the host, the child's encoded
// (held to encodeText), on the stream the routing rules name (serve-session.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostMessage } from '../src/cli/host-message.ts';
import { SERVE_HOLD_BYTES, ServeSession, type SessionOptions } from '../src/cli/serve-session.ts';
import { CallGuard } from '../src/http/call-guard.ts';
import { createCodec, encodeText } from '../src/index.ts';
import { rawIds } from '../src/jsonrpc/raw-id.ts';
import { FakeChild, SseEvents, until } from './fake-child.ts';

const codec = createCodec();
const utf8 = new TextEncoder();
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  while (cleanup.length) await cleanup.pop()!();
});

function session(options: Partial<SessionOptions> = {}) {
  const child = new FakeChild();
  const logs: string[] = [];
  const ended: string[] = [];
  const s = new ServeSession({
    command: ['fake'],
    codec,
    codecOptions: {},
    maxMessageBytes: 1 << 20,
    log: (l) => void logs.push(l),
    onEnd: (why) => void ended.push(why),
    startChild: () => child.asChild,
    ...options,
  });
  cleanup.push(() => s.close());
  return { s, child, logs, ended };
}

/** A host message as the handler makes one: its bytes, its value, its id as written. */
function host(text: string): HostMessage {
  return { bytes: utf8.encode(text), value: JSON.parse(text), rawId: rawIds(text)[0]?.text };
}
const call = (id: string, name = 'echo', extra = '') =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":{"text":"Qwen"}${extra}}}`;

function post(s: ServeSession, texts: string[], version = '2025-06-18'): SseEvents {
  const response = s.post(texts.map(host), version, {});
  expect(response.status).toBe(200);
  return new SseEvents(response.body!);
}

describe('ServeSession', () => {
  it("passes the host's bytes to the child and its answer back encoded, on the request's stream, which then ends", async () => {
    const { s, child } = session();
    // (An id past 2^53: parsed, it would be written 12345678901234567000.)
    const request = call('12345678901234567890');
    const stream = post(s, [request]);
    await until(() => child.lines.length === 1, 'the request at the child');
    expect(child.lines).toEqual([request]);
    const answer = '{"jsonrpc":"2.0","id":12345678901234567890,"result":{"content":[{"type":"text","text":"Qwen 阿里"}]}}';
    child.say(answer);
    await stream.untilEnd();
    expect(stream.events.map((e) => e.data)).toEqual([answer.replace('Qwen 阿里', encodeText('Qwen 阿里'))]);
    expect([...s.inFlight]).toEqual([]);
  });

  it('sends progress to the request that asked for it, anything else to the latest request in flight', async () => {
    const { s, child } = session();
    const a = post(s, [call('1', 'slow', ',"_meta":{"progressToken":"a"}')]);
    const b = post(s, [call('2')]);
    await until(() => child.lines.length === 2, 'both requests at the child');
    child.say('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":1}}');
    child.say('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}');
    child.say('{"jsonrpc":"2.0","id":2,"result":{}}');
    child.say('{"jsonrpc":"2.0","id":1,"result":{}}');
    await a.untilEnd();
    await b.untilEnd();
    expect(a.messages.map((m) => m.method ?? m.id)).toEqual(['notifications/progress', 1]);
    expect(b.messages.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 2]);
  });

  it('keeps what the child says outside any request for the GET stream, and says so once', async () => {
    const { s, child, logs } = session();
    const said = [
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":1}}',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":2}}',
    ];
    for (const line of said) child.say(line);
    await until(() => logs.some((l) => l.includes('wait for the host to open its GET stream')), 'the note');
    const got = s.get(null, {});
    expect(got).toBeInstanceOf(Response);
    const stream = new SseEvents((got as Response).body!);
    await stream.untilCount(2);
    expect(stream.events.map((e) => e.data)).toEqual(said);
    expect(logs.filter((l) => l.includes('GET stream'))).toHaveLength(1);
    expect(s.get(null, {})).toEqual({ status: 409, message: 'Conflict: Only one SSE stream is allowed per session' });
  });

  it('answers each request in flight when the child exits (a call as isError, others -32603), under its id as written, and ends', async () => {
    const { s, child, ended } = session();
    const stream = post(s, [call('7'), '{"jsonrpc":"2.0","id":"r","method":"resources/list"}']);
    await until(() => child.lines.length === 2, 'the requests at the child');
    child.exit(3);
    await stream.untilEnd();
    const reason = 'Not answered: the server exited with code 3; the session has ended';
    expect(stream.messages).toEqual([
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: reason }], isError: true } },
      { jsonrpc: '2.0', id: 'r', error: { code: -32603, message: reason } },
    ]);
    expect(ended).toEqual(['the server exited with code 3']);
  });

  it('on close, answers what is in flight and stops the child: SIGTERM, then SIGKILL 3 s later unless it exits', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stubborn = session();
    const stream = post(stubborn.s, [call('1')]);
    stubborn.s.close('the session has ended (DELETE)');
    expect(stubborn.child.signals).toEqual(['SIGTERM']);
    vi.advanceTimersByTime(3000);
    expect(stubborn.child.signals).toEqual(['SIGTERM', 'SIGKILL']);
    const polite = session();
    polite.s.close();
    polite.child.emit('exit', null, 'SIGTERM');
    vi.advanceTimersByTime(3000);
    expect(polite.child.signals).toEqual(['SIGTERM']);
    vi.useRealTimers();
    await stream.untilEnd();
    expect(stream.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: 'Not answered: the session has ended (DELETE)' }], isError: true },
      },
    ]);
  });

  it('resumes a stream after the event the host saw (Last-Event-ID), with what came while it was away', async () => {
    const { s, child } = session();
    const first = post(s, [call('1')], '2025-11-25');
    await until(() => first.events.length === 1, 'the priming event');
    const primed = first.events[0]!;
    expect(primed).toMatchObject({ data: '' });
    await first.leave();
    child.say('{"jsonrpc":"2.0","id":1,"result":{"n":1}}');
    await until(() => s.inFlight.length === 0, 'the answer');
    const resumed = s.get(primed.id!, {});
    expect(resumed).toBeInstanceOf(Response);
    const again = new SseEvents((resumed as Response).body!);
    await again.untilEnd();
    expect(again.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: { n: 1 } }]);
    expect(s.get('nonsense', {})).toEqual({ status: 400, message: 'Invalid event ID format' });
  });

  it('forgets a request the host cancels: its stream ends, and a late answer is dropped with a note', async () => {
    const { s, child, logs } = session();
    const stream = post(s, [call('5')]);
    expect(s.post([host('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}')], '2025-06-18', {}).status).toBe(
      202,
    );
    await stream.untilEnd();
    child.say('{"jsonrpc":"2.0","id":5,"result":{}}');
    await until(() => logs.some((l) => l.includes('answers no request in flight')), 'the note');
    expect(stream.messages).toEqual([]);
    expect(child.lines.map((l) => JSON.parse(l).method)).toEqual(['tools/call', 'notifications/cancelled']);
  });

  it('skips a line from the child that is not JSON, with a note naming its place; the session goes on', async () => {
    const { s, child, logs } = session();
    const stream = post(s, [call('1')]);
    child.say('a banner, not JSON');
    child.say('{"jsonrpc":"2.0","id":1,"result":{}}');
    await stream.untilEnd();
    expect(stream.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect(logs.find((l) => l.includes('skipped'))).toMatch(/skipped message 1 \(.* at byte 0; blank lines not counted\)/);
    expect(logs.join('\n')).not.toContain('banner');
  });

  it('with a guard, answers a damaged call on its stream and never passes it; the next message goes on', async () => {
    const { s, child } = session({ guard: new CallGuard('all') });
    const damaged = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{"text":"x\uFFFD"}}}';
    const stream = post(s, [damaged, call('2')]);
    // (It knows no tool list yet: it asks the child for one, and the answer stays with it.)
    const asked = () => child.lines.map((l) => JSON.parse(l)).find((m) => m.method === 'tools/list');
    await until(() => asked() !== undefined, 'the guard asking for the tool list');
    child.say(JSON.stringify({ jsonrpc: '2.0', id: asked().id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } }));
    await until(() => child.lines.some((l) => JSON.parse(l).id === 2), 'the next call at the child');
    expect(stream.messages).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ isError: true }) })]);
    expect(child.lines.map((l) => JSON.parse(l).id)).not.toContain(1);
  });

  // Backpressure is waited on as an event (the child's stdin takes a write; the host reads), not
  // polled: on a clock that never moves (timers faked, never advanced), each wait ends as soon as
  // what it waits for happens. A 20 ms poll never ends there.
  it('a host body waits while the child has not taken SERVE_HOLD_BYTES, and goes on once it does', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { s, child } = session();
    child.stdin.pause(); // (the child reads nothing)
    expect(s.post([host(bigNote(SERVE_HOLD_BYTES + 1024))], '2025-06-18', {}).status).toBe(202);
    expect(child.stdin.writableLength).toBeGreaterThan(SERVE_HOLD_BYTES);
    let ready = false;
    void s.writable().then(() => (ready = true));
    await turns(() => ready, 50);
    expect(ready).toBe(false);
    child.stdin.resume();
    await turns(() => ready);
    expect(ready).toBe(true);
  });

  it("the child's output waits while the host has not read SERVE_HOLD_BYTES, and goes on once it reads", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { s, child } = session();
    const response = s.post([host(call('1'))], '2025-06-18', {});
    await turns(() => child.lines.length === 1);
    const piece = bigNote(1024 * 1024);
    for (let i = 0; i * 1024 * 1024 <= SERVE_HOLD_BYTES; i++) child.say(piece);
    child.say('{"jsonrpc":"2.0","id":1,"result":{}}');
    await turns(() => s.heldSince !== undefined);
    expect(s.inFlight.length).toBe(1); // (the answer waits in the child's output, unread)
    const reader = response.body!.getReader();
    let text = '';
    let done = false;
    void (async () => {
      for (let next = await reader.read(); !next.done; next = await reader.read()) text += new TextDecoder().decode(next.value);
      done = true;
    })();
    await turns(() => done, 100_000);
    expect(done).toBe(true);
    expect(text.endsWith('data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n')).toBe(true);
  });

  it("the child's output goes on once the host read a stream that ended holding SERVE_HOLD_BYTES", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { s, child } = session();
    const first = s.post([host(call('1', 'echo', ',"_meta":{"progressToken":"t"}'))], '2025-06-18', {});
    const second = new SseEvents(s.post([host(call('2'))], '2025-06-18', {}).body!); // (read all along)
    await turns(() => child.lines.length === 2);
    // Progress for call 1 up to the bound; then its answer, past it: its stream ends unread.
    const progress = (size: number) =>
      `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"message":"${'x'.repeat(size)}"}}`;
    const piece = 1 << 19;
    for (let i = 0; (i + 1) * piece < SERVE_HOLD_BYTES; i++) child.say(progress(piece));
    await turns(() => s.waiting() >= SERVE_HOLD_BYTES - piece);
    child.say(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${'x'.repeat(piece)}"}]}}`);
    await turns(() => s.heldSince !== undefined);
    expect(s.heldSince).toBeDefined();
    expect(s.inFlight.length).toBe(1); // (call 1 answered, its stream ended holding what the host has not read)
    child.say('{"jsonrpc":"2.0","id":2,"result":{}}');
    const firstEvents = new SseEvents(first.body!);
    await turns(() => firstEvents.ended, 100_000);
    expect(firstEvents.ended).toBe(true);
    await turns(() => second.ended, 100_000);
    expect(second.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });
});

/** A notification of about `size` bytes (one line). */
function bigNote(size: number): string {
  return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${'x'.repeat(size)}"}}`;
}

/** Waits turns of the event loop (no timer) until `check` holds, or `max` turns. */
async function turns(check: () => boolean, max = 10_000): Promise<void> {
  for (let i = 0; i < max && !check(); i++) await new Promise((r) => setImmediate(r));
}
