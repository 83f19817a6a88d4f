// serve's request handler alone: a ServeHandler over a session table of fake sessions, driven
// by Request objects. It must answer as the SDK's Streamable HTTP server transport answers
// (status, JSON-RPC code), hand a session each message as the host wrote it (decoded: the terms
// back, the rest byte for byte, each id as written), and never reach a session it refuses for.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostMessage } from '../src/cli/host-message.ts';
import { type HandlerSession, ServeHandler } from '../src/cli/serve-handler.ts';
import { ServeSessions } from '../src/cli/serve-sessions.ts';
import { createCodec, encodeText } from '../src/index.ts';
import { runs } from './arbitraries.ts';

const codec = createCodec();
const text = new TextDecoder();
const URL_ = 'http://127.0.0.1:8080/mcp';
const BOTH = 'application/json, text/event-stream';
const VERSIONS = { supported: ['2025-06-18', '2025-11-25'], fallback: '2025-03-26' };
const MAX = 4096;

class FakeSession implements HandlerSession {
  static made = 0;
  readonly id = `session-${++FakeSession.made}`;
  readonly inFlight: unknown[] = [];
  heldSince: number | undefined;
  ended = false;
  readonly posts: { messages: HostMessage[]; version: string }[] = [];
  readonly toChild: string[] = [];
  readonly closed: string[] = [];
  post(messages: HostMessage[], version: string, headers: Record<string, string>): Response {
    this.posts.push({ messages, version });
    return new Response(null, { status: 202, headers });
  }
  get(lastEventId: string | null, headers: Record<string, string>) {
    return lastEventId === 'unknown' ? { status: 400, message: 'Invalid event ID format' } : new Response('', { status: 200, headers });
  }
  async writable(): Promise<void> {}
  ownAnswerUnread(): boolean {
    return false;
  }
  toChildLines(lines: string[]): void {
    this.toChild.push(...lines);
  }
  /** The messages of POSTs refused before the guard, handed over for it to drop its calls. */
  readonly handedToGuard: unknown[] = [];
  refused(values: readonly unknown[]): void {
    this.handedToGuard.push(...values);
  }
  close(why: string): void {
    this.ended = true;
    this.closed.push(why);
  }
}

function serve(maxSessions = 2, maxMessageBytes = MAX) {
  const made: FakeSession[] = [];
  const logs: string[] = [];
  const log = (l: string) => void logs.push(l);
  const sessions = new ServeSessions<FakeSession>({
    maxSessions,
    idleMs: 60_000,
    log,
    create: () => {
      const s = new FakeSession();
      made.push(s);
      return s;
    },
  });
  const handler = new ServeHandler({ sessions, codec, codecOptions: {}, maxMessageBytes, versions: VERSIONS, log });
  return { handler, made, logs, sessions };
}

function request(method: string, body?: string, headers: Record<string, string> = {}): Request {
  const post: Record<string, string> =
    method === 'POST' ? { accept: BOTH, 'content-type': 'application/json' } : { accept: 'text/event-stream' };
  return new Request(URL_, { method, body: body ?? null, headers: { ...post, ...headers } });
}

/** The status and the JSON-RPC error of an answer. */
async function refusal(response: Response) {
  const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
  return { status: response.status, id: body.id, code: body.error.code, message: body.error.message };
}

const initialize = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}';

async function started(h: ServeHandler, made: FakeSession[]) {
  const response = await h.handle(request('POST', initialize));
  expect(response.status).toBe(202);
  return made.at(-1)!;
}

describe('ServeHandler', () => {
  // What a refused body hands its session's guard (to drop and tell each call with `"id": null`)
  // is bounded as a body the guard reads is: a batch past MAX_BATCH (100) hands nothing; one
  // body of 1 MiB had made 20,000 log lines and trail entries.
  it('hands the guard the calls of a refused batch of up to 100 messages, none of a larger one', async () => {
    const { handler, made } = serve(2, 64 * 1024);
    const s = await started(handler, made);
    const headers = { 'mcp-session-id': s.id };
    const nullCall = '{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"x"}}';
    for (const n of [100, 101]) {
      const response = await handler.handle(request('POST', `[${Array(n).fill(nullCall).join(',')}]`, headers));
      expect(response.status).toBe(400);
    }
    expect(s.handedToGuard.length).toBe(100);
  });

  it('refuses a Host or an Origin it does not answer to (403), and the access layer never sees such a request', async () => {
    const { handler } = serve();
    for (const headers of [{ host: 'evil.example' }, { origin: 'http://evil.example' }] as Record<string, string>[])
      expect(await refusal(await handler.handle(request('POST', initialize, headers)))).toMatchObject({
        status: 403,
        code: -32000,
        message: 'Forbidden: Host or Origin not allowed',
      });
    const asked: string[] = [];
    const entry = handler.entry({
      authorize: (r) => {
        asked.push(r.url);
        return new Response(null, { status: 401 });
      },
    });
    expect((await entry(request('POST', initialize, { origin: 'http://evil.example' }))).status).toBe(403);
    expect((await entry(request('POST', initialize))).status).toBe(401);
    expect(asked).toEqual([URL_]);
  });

  it('routes as the SDK does: 404 off /mcp, 405 for other methods, 406 without an event stream, 400 without a session, 404 for an unknown one', async () => {
    const { handler } = serve();
    expect((await handler.handle(new Request('http://127.0.0.1:8080/other'))).status).toBe(404);
    const put = await handler.handle(request('PUT'));
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
    expect(await refusal(put)).toMatchObject({ status: 405, code: -32000 });
    expect(await refusal(await handler.handle(request('GET', undefined, { accept: 'application/json' })))).toMatchObject({ status: 406 });
    expect(await refusal(await handler.handle(request('GET')))).toMatchObject({ status: 400, code: -32000 });
    for (const method of ['GET', 'DELETE', 'POST'])
      expect(
        await refusal(
          await handler.handle(
            request(method, method === 'POST' ? '{"jsonrpc":"2.0","method":"x"}' : undefined, { 'mcp-session-id': 'nope' }),
          ),
        ),
      ).toMatchObject({
        status: 404,
        code: -32001,
        message: 'Session not found',
      });
  });

  it('refuses a POST by its headers and body: 406, 415, 413, 400 (parse error, not JSON-RPC, batch over 100, no session)', async () => {
    const { handler, made } = serve();
    const post = async (body: string, headers: Record<string, string> = {}) =>
      refusal(await handler.handle(request('POST', body, headers)));
    expect(await post(initialize, { accept: 'application/json' })).toMatchObject({ status: 406, code: -32000 });
    expect(await post(initialize, { 'content-type': 'text/plain' })).toMatchObject({ status: 415, code: -32000 });
    expect(await post(' '.repeat(MAX + 1))).toMatchObject({ status: 413, code: -32600 });
    expect(await post('{"jsonrpc":"2.0",')).toMatchObject({ status: 400, code: -32700 });
    expect(await post('{"jsonrpc":"1.0","method":"initialize","id":1}')).toMatchObject({ status: 400, code: -32600 });
    const notification = '{"jsonrpc":"2.0","method":"n"}';
    expect(await post(`[${Array(101).fill(notification).join(',')}]`)).toMatchObject({ status: 400, code: -32600 });
    expect(await post(notification)).toMatchObject({
      status: 400,
      code: -32000,
      message: 'Bad Request: no session (send initialize first)',
    });
    expect(await post(`[${initialize},${initialize}]`)).toMatchObject({ status: 400, code: -32600 });
    expect(made).toEqual([]);
  });

  it('starts a session at initialize, then passes its messages with the version asked; refuses a second initialize and an unknown version', async () => {
    const { handler, made, sessions } = serve();
    const s = await started(handler, made);
    expect(s.posts[0]!.version).toBe('2025-11-25');
    expect(sessions.get(s.id)).toBe(s);
    const headers = { 'mcp-session-id': s.id };
    expect((await handler.handle(request('POST', '{"jsonrpc":"2.0","method":"n"}', headers))).headers.get('mcp-session-id')).toBe(s.id);
    expect(s.posts[1]!.version).toBe(VERSIONS.fallback);
    await handler.handle(request('POST', '{"jsonrpc":"2.0","method":"n"}', { ...headers, 'mcp-protocol-version': '2025-06-18' }));
    expect(s.posts[2]!.version).toBe('2025-06-18');
    expect(await refusal(await handler.handle(request('POST', initialize, headers)))).toMatchObject({ status: 400, code: -32600 });
    const odd = { ...headers, 'mcp-protocol-version': '1999-01-01' };
    expect(await refusal(await handler.handle(request('POST', '{"jsonrpc":"2.0","method":"n"}', odd)))).toMatchObject({
      status: 400,
      code: -32000,
    });
    expect(await refusal(await handler.handle(request('GET', undefined, odd)))).toMatchObject({ status: 400, code: -32000 });
    expect(s.posts).toHaveLength(3);
  });

  it('gives a GET its stream or the refusal, ends a session on DELETE, and refuses sessions beyond the bound (503)', async () => {
    const { handler, made } = serve(2);
    const a = await started(handler, made);
    await started(handler, made);
    const full = await handler.handle(request('POST', initialize));
    expect(full.headers.get('retry-after')).toBe('5');
    expect(await refusal(full)).toMatchObject({ status: 503, code: -32000, message: 'Too many sessions (2)' });
    const headers = { 'mcp-session-id': a.id };
    expect((await handler.handle(request('GET', undefined, headers))).headers.get('mcp-session-id')).toBe(a.id);
    expect(await refusal(await handler.handle(request('GET', undefined, { ...headers, 'last-event-id': 'unknown' })))).toMatchObject({
      status: 400,
      message: 'Invalid event ID format',
    });
    expect((await handler.handle(request('DELETE', undefined, headers))).status).toBe(200);
    expect(a.closed).toEqual(['the session has ended (DELETE)']);
    expect((await handler.handle(request('DELETE', undefined, headers))).status).toBe(404);
    await started(handler, made); // (room again)
    expect(made).toHaveLength(3);
  });

  it('answers a colliding request itself, and tells the child of a colliding response, never passing either on', async () => {
    const { handler, made } = serve();
    const s = await started(handler, made);
    const headers = { 'mcp-session-id': s.id };
    const collide = `{"Qwen":1,"${encodeText('Qwen')}":2}`;
    const asked = await handler.handle(
      request('POST', `{"jsonrpc":"2.0","id":12345678901234567890,"method":"m","params":${collide}}`, headers),
    );
    expect(asked.status).toBe(200);
    const answer = await asked.text();
    expect(answer).toContain('"id":12345678901234567890'); // (as written)
    expect(JSON.parse(answer)).toMatchObject({ error: { code: -32602 } });
    const answered = await handler.handle(request('POST', `{"jsonrpc":"2.0","id":"s1","result":${collide}}`, headers));
    expect(answered.status).toBe(202);
    expect(s.toChild.map((l) => JSON.parse(l))).toMatchObject([{ id: 's1', error: { code: -32602 } }]);
    expect(s.posts).toHaveLength(1);
  });

  it('hands the session each message of a batch as the host wrote it, decoded, with its id as written', async () => {
    const id = fc.oneof(
      fc.integer({ min: -1000, max: 1000 }).map(String),
      fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }).map(String),
      fc.stringMatching(/^[a-z0-9]{0,6}$/).map((s) => JSON.stringify(s)),
      fc.constantFrom('1.0', '1e2', '-0', '"\\u0061"'), // (spellings a parse does not give back)
    );
    const element = fc.record({ id: fc.option(id, { nil: undefined }), term: fc.boolean(), space: fc.constantFrom('', ' ') });
    const separator = fc.constantFrom(',', ', ', ',\n  ', ' ,');
    await fc.assert(
      fc.asyncProperty(fc.array(element, { minLength: 1, maxLength: 6 }), separator, async (elements, sep) => {
        const { handler, made } = serve();
        const s = await started(handler, made);
        const written = elements.map(({ id, term, space }) => {
          const word = term ? encodeText('Qwen') : 'plain';
          const idPart = id === undefined ? '' : `"id":${space}${id},`;
          return `{"jsonrpc":"2.0",${idPart}"method":"m","params":{"text":${space}"${word} x"}}`;
        });
        await handler.handle(request('POST', `[${written.join(sep)}]`, { 'mcp-session-id': s.id }));
        const got = s.posts[1]!.messages;
        expect(got.map((m) => text.decode(m.bytes))).toEqual(written.map((w) => w.replace(encodeText('Qwen'), 'Qwen')));
        expect(got.map((m) => m.rawId)).toEqual(elements.map((e) => e.id));
      }),
      runs(40),
    );
  });
});

describe('ServeSessions', () => {
  afterEach(() => void vi.useRealTimers());

  it('ends a session idle that long; one still answering goes on, unless its host has read nothing for as long', () => {
    vi.useFakeTimers();
    const logs: string[] = [];
    const sessions = new ServeSessions<FakeSession>({
      maxSessions: 4,
      idleMs: 1000,
      log: (l) => void logs.push(l),
      create: () => new FakeSession(),
    });
    const [idle, touched, busy, stuck] = [sessions.start(), sessions.start(), sessions.start(), sessions.start()];
    busy.inFlight.push(1);
    stuck.inFlight.push(1);
    stuck.heldSince = Date.now();
    vi.advanceTimersByTime(500);
    sessions.touch(touched);
    vi.advanceTimersByTime(500);
    expect([idle, touched, busy, stuck].map((s) => s.closed)).toEqual([
      ['the session has ended (idle)'],
      [],
      [],
      ['the session has ended (idle: the host reads nothing)'],
    ]);
    busy.inFlight.length = 0;
    vi.advanceTimersByTime(1000);
    expect([touched, busy].map((s) => s.closed)).toEqual([['the session has ended (idle)'], ['the session has ended (idle)']]);
    expect(sessions.size).toBe(0);
    expect(logs.at(-1)).toBe('session ended (idle); 0 open');
  });
});
