// serve against hosts and servers that misbehave: a host that cancels or abandons a request,
// a host that reads nothing, a server that prints lines that are not JSON. Real children, real sockets.
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext, vi } from 'vitest';
import { PENDING_MESSAGES, runServe, SERVE_HOLD_BYTES, type ServeCommandOptions } from '../src/cli/serve.js';
import { decodeText, encodeText } from '../src/index.js';
import { connectHost, TIMEOUT, textOf } from './http-helpers.ts';
import { until } from './until.ts';

/** The errors a recording child was sent, as [id, code]. */
const errorsIn = (record: string) =>
  readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number } })
    .filter((m) => m.error)
    .map((m) => [m.id, m.error!.code]);

vi.setConfig({ testTimeout: 20_000 }); // (a hang fails fast)
const SDK_SERVER = [process.execPath, 'test/fixtures/http-stdio-server.mjs'];
const RAW_SERVER = [process.execPath, 'test/fixtures/serve-raw-child.mjs'];
/** What a case closes when it ends (its context's `onTestFinished`): the cases run at once. */
type Finished = TestContext['onTestFinished'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function serve(finished: Finished, options: Partial<ServeCommandOptions>) {
  const logs: string[] = [];
  const served = await runServe({ command: SDK_SERVER, port: 0, log: (l) => void logs.push(l), ...options });
  finished(() => served.close());
  return { ...served, logs };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const post = (url: string, body: unknown, session?: string, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    signal,
    headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) },
    body: JSON.stringify(body),
  });
const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

/** A raw host: initialized, its session id. */
async function initialize(url: string): Promise<string> {
  const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
  const res = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params });
  await res.text();
  const session = res.headers.get('mcp-session-id')!;
  await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
  return session;
}

/** Everything a response body brings, as it comes; `has` waits until it holds `text`. */
function collect(res: Response) {
  let got = '';
  const decoder = new TextDecoder();
  void (async () => {
    for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) got += decoder.decode(piece, { stream: true });
  })().catch(() => {});
  return {
    has: async (text: string) => {
      await until(() => got.includes(text));
    },
  };
}

/** Starts `slow` (id 7) and waits for its first event; then the host cancels it, or just leaves. */
async function leaveSlowCall(url: string, session: string, how: 'cancelled' | 'abandoned') {
  const aborter = new AbortController();
  await collect(await post(url, call(7, 'slow'), session, aborter.signal)).has(encodeText('Qwen started'));
  if (how === 'cancelled') {
    await (await post(url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }, session)).text();
  }
  aborter.abort();
}

// Every case has its own serve and child, and most of a case waits on them: they run at once.
describe.concurrent('serve, robust', () => {
  describe('serve, a host that leaves a request', () => {
    it('still ends the session for idleness once the host cancelled its only call', async ({ onTestFinished }) => {
      const { url, logs } = await serve(onTestFinished, { sessionIdleMs: 3000 }); // (long enough that a busy host does not lose the session between its requests)
      const session = await initialize(url);
      await leaveSlowCall(url, session, 'cancelled');
      // (The child's handler ends now; the SDK server sends no answer to a cancelled request.)
      await (await post(url, call(9, 'release'), session)).text();
      await until(() => logs.some((l) => l.startsWith('session ended (idle)')));
    });

    it.for(['cancelled', 'abandoned'] as const)(
      'sends what the server says outside any request on the GET stream once a call was %s',
      async (how, { expect, onTestFinished }) => {
        const { url, logs } = await serve(onTestFinished, {});
        const session = await initialize(url);
        await leaveSlowCall(url, session, how);
        // No GET stream yet: the message cannot be delivered now. With the abandoned call still in
        // flight it stays on that call's stream (replayed if the host resumes it); with no call in
        // flight it waits for a GET stream, and a line says so.
        await (await post(url, call(8, 'notify_later'), session)).text();
        if (how === 'cancelled') await until(() => logs.some((l) => l.includes('wait for the host to open its GET stream')));
        const get = collect(await fetch(url, { headers: { ...HEADERS, accept: 'text/event-stream', 'mcp-session-id': session } }));
        await (await post(url, call(10, 'notify_later'), session)).text();
        await get.has(encodeText('Qwen later'));
        expect(logs.join('\n')).not.toMatch(/Qwen/); // (no payload in the log)
      },
    );
  });

  describe('serve, a server that prints lines that are not JSON', () => {
    it('skips them with a note naming the message, and the session goes on', async ({ expect, onTestFinished }) => {
      const { url, logs } = await serve(onTestFinished, { command: [...RAW_SERVER, 'noisy'] });
      const { client } = await connectHost(url);
      onTestFinished(() => client.close().catch(() => {}));
      for (const text of ['a', 'b']) {
        const result = await client.callTool({ name: 'say', arguments: { text } }, undefined, TIMEOUT);
        expect(textOf(result)).toBe(encodeText(`Qwen said ${text}`));
      }
      const skipped = logs.filter((l) => /^from the server: skipped message \d+ \(invalid JSON at byte 0; .*the session goes on$/.test(l));
      expect(skipped).toHaveLength(3); // the banner and one line per call
      expect(logs.join('\n')).not.toMatch(/Qwen|Starting/);
      expect(logs.some((l) => l.startsWith('session ended'))).toBe(false);
    });
  });

  const MIB = 48; // the flood server writes this many 1 MiB messages for one call
  // 48 MiB through serve's codec and a socket: about 4 s quiet, 28 s when other work holds the
  // cores (load 14 on 2): these cases get vitest's usual limit, not this file's 20 s.
  const FLOOD_MS = 60_000;

  /** A flood server behind serve, and a host that sent it a call and reads none of the answer (yet). */
  async function flooded(finished: Finished, options: Partial<ServeCommandOptions> = {}) {
    const record = join(tmpdir(), `serve-flood-${randomUUID()}`);
    const written = () => Number(readFileSync(record, { encoding: 'utf8', flag: 'a+' }) || 0);
    finished(() => rmSync(record, { force: true }));
    const served = await serve(finished, { command: [...RAW_SERVER, 'flood', String(MIB), record], ...options });
    const session = await initialize(served.url);
    const target = new URL(served.url);
    const res = await new Promise<http.IncomingMessage>((resolve) => {
      const headers = { ...HEADERS, 'mcp-session-id': session };
      http
        .request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers }, resolve)
        .end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'say', arguments: { text: 'x' } } }));
    });
    res.pause();
    finished(() => void res.destroy());
    // Until the server is held back (its count stands still), or has written everything.
    let last = -1;
    while (written() !== last && written() < MIB) {
      last = written();
      await sleep(700);
    }
    return { ...served, res, written };
  }

  describe('serve, a host that reads nothing', { timeout: FLOOD_MS }, () => {
    it('stops reading the server beyond what it holds for the host, and loses nothing once the host reads', async ({
      expect,
      onTestFinished,
    }) => {
      const { res, written } = await flooded(onTestFinished);
      // What serve holds, plus the pipe's, the socket's and the (paused) client's buffers.
      expect(written()).toBeLessThan(SERVE_HOLD_BYTES / 2 ** 20 + 16);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => void chunks.push(c));
      res.resume();
      await new Promise((r) => res.once('end', r));
      const body = Buffer.concat(chunks).toString();
      expect(body.split('"method":"notifications/message"').length - 1).toBe(MIB);
      expect(body).toContain(encodeText('Qwen said x'));
      expect(written()).toBe(MIB);
    });

    it('ends the session once the host has read nothing for --session-idle', async ({ expect, onTestFinished }) => {
      const { logs, written } = await flooded(onTestFinished, { sessionIdleMs: 1500 });
      expect(written()).toBeLessThan(MIB);
      // (serve may still be taking the flood in up to what it holds; then it idles 1.5-3 s.)
      await until(() => logs.includes('session ended (idle: the host reads nothing); 0 open'), FLOOD_MS / 2);
    });
  });

  describe('serve, a host whose answers to the server collide once decoded', () => {
    // (Keys that decode alike: `Qwen` and its token.) A batch of responses failed before: serve
    // answered the host 400 and the server, told nothing, waited for its answers forever.
    const COLLIDING = { action: 'accept', content: { Qwen: 'a', __mcp_ref_5177656e__: 'b' } };
    for (const batch of [false, true]) {
      it(`gives the server an error under each id (${batch ? 'a batch of responses' : 'one response'})`, async ({
        expect,
        onTestFinished,
      }) => {
        const record = join(tmpdir(), `serve-record-${process.pid}-${batch}.txt`);
        writeFileSync(record, '');
        onTestFinished(() => rmSync(record, { force: true }));
        const { url } = await serve(onTestFinished, { command: [process.execPath, 'test/fixtures/serve-record-child.mjs', record] });
        const session = await initialize(url);
        const answers = [
          { jsonrpc: '2.0', id: 's1', result: COLLIDING },
          { jsonrpc: '2.0', id: 's2', result: { action: 'decline' } },
        ];
        const res = await post(url, batch ? answers : answers[0], session);
        await res.text();
        expect(res.status).toBe(202);
        const told = () => errorsIn(record);
        const want = batch
          ? [
              ['s1', -32602],
              ['s2', -32602],
            ]
          : [['s1', -32602]];
        await until(() => told().length >= want.length);
        expect(told()).toEqual(want);
      });
    }
  });

  describe('serve, a host body that is not UTF-8', () => {
    // It was decoded with U+FFFD in place of the bad bytes and handed to the server, silently
    // (wrap, connect and the HTTP proxy refuse such a message). Now: its requests are answered
    // -32700, its responses reach the server as that error, nothing of it is delivered.
    const raw = (url: string, body: Buffer, session: string) =>
      fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session }, body: new Uint8Array(body) });
    const badText = (json: string) => {
      const at = json.indexOf('AB') + 1;
      return Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from([0xff]), Buffer.from(json.slice(at))]);
    };
    it('answers its request -32700 under its id and tells the server about its response', async ({ expect, onTestFinished }) => {
      const record = join(tmpdir(), `serve-record-${process.pid}-utf8.txt`);
      writeFileSync(record, '');
      onTestFinished(() => rmSync(record, { force: true }));
      const { url, logs } = await serve(onTestFinished, { command: [process.execPath, 'test/fixtures/serve-record-child.mjs', record] });
      const session = await initialize(url);
      const answer = await raw(url, badText(JSON.stringify({ jsonrpc: '2.0', id: 's1', result: { t: 'AB' } })), session);
      await answer.text();
      const seen = () =>
        readFileSync(record, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number }; method?: string });
      await until(() => seen().some((m) => m.id === 's1'));
      expect(readFileSync(record, 'utf8')).not.toContain('\uFFFD');
      expect(seen().map((m) => [m.id, m.error?.code ?? m.method])).toEqual([
        [0, 'initialize'],
        [undefined, 'notifications/initialized'],
        ['s1', -32700],
      ]);
      // (The recording server answers no call: only serve can answer this one.)
      const call = badText(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'w', arguments: { t: 'AB' } } }));
      const res = await raw(url, call, session);
      expect(await res.json()).toMatchObject({ id: 3, error: { code: -32700 } });
      expect(seen()).toHaveLength(3);
      // A batch of both: the host gets a batch answer, the server its error.
      const both = [
        { jsonrpc: '2.0', id: 4, method: 'ping', params: { t: 'AB' } },
        { jsonrpc: '2.0', id: 's2', result: {} },
      ];
      const batch = await raw(url, badText(JSON.stringify(both)), session);
      expect(await batch.json()).toMatchObject([{ id: 4, error: { code: -32700 } }]);
      await until(() => seen().length >= 4);
      expect(seen()[3]).toMatchObject({ id: 's2', error: { code: -32700 } });
      expect(logs.join('\n')).not.toContain('AB');
    });
  });

  describe('serve, a host body that does not parse', () => {
    it('gets 400 -32700 (Parse error) and reaches no one; JSON that is no JSON-RPC message gets 400 -32600', async ({
      expect,
      onTestFinished,
    }) => {
      const record = join(tmpdir(), `serve-record-${process.pid}-parse.txt`);
      writeFileSync(record, '');
      onTestFinished(() => rmSync(record, { force: true }));
      const { url } = await serve(onTestFinished, { command: [process.execPath, 'test/fixtures/serve-record-child.mjs', record] });
      const session = await initialize(url);
      const send = (body: string) => fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session }, body });
      for (const body of ['not json', '{"jsonrpc":"2.0","id":1,"method":"x"', '']) {
        const res = await send(body);
        expect([res.status, await res.json()]).toMatchObject([400, { id: null, error: { code: -32700 } }]);
      }
      for (const body of ['[]', '{"id":1,"method":"x"}', '[{"jsonrpc":"2.0","method":"x"},5]']) {
        const res = await send(body);
        expect([res.status, await res.json()]).toMatchObject([400, { id: null, error: { code: -32600 } }]);
      }
      // A notification last: once the child has it, it would have had any of the above before it.
      expect((await send('{"jsonrpc":"2.0","method":"notifications/marker"}')).status).toBe(202);
      const seen = () => readFileSync(record, 'utf8').split('\n').filter(Boolean);
      await until(() => seen().length >= 3);
      expect(seen().map((l) => JSON.parse(l).method)).toEqual(['initialize', 'notifications/initialized', 'notifications/marker']);
    });
  });

  describe('serve, a server line that is not UTF-8', () => {
    // wrap's case, mirrored in serve: the server's answer to a host's call held a bad byte and was
    // skipped with a note; the host's call stayed open (the session kept alive by it) until the
    // host gave up. A request from the server likewise waited forever.
    const CHILD = `
const { appendFileSync } = require('node:fs');
const record = process.argv[1];
const bad = (json) => { const at = json.indexOf('AB') + 1; return Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from([0xff]), Buffer.from(json.slice(at) + '\\n')]); };
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  appendFileSync(record, line + '\\n');
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    const result = { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: 'bad', version: '1' } };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
  } else if (m.method === 'tools/call') {
    process.stdout.write(bad(JSON.stringify({ jsonrpc: '2.0', id: 'srv-9', method: 'roots/list', params: { t: 'AB' } })));
    process.stdout.write(bad(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'AB' }] } })));
  }
});`;
    it("answers the host's call -32700 and the server's request too", async ({ expect, onTestFinished }) => {
      const record = join(tmpdir(), `serve-record-${process.pid}-bad-child.txt`);
      writeFileSync(record, '');
      onTestFinished(() => rmSync(record, { force: true }));
      const { url, logs } = await serve(onTestFinished, { command: [process.execPath, '-e', CHILD, record] });
      const session = await initialize(url);
      const res = await post(url, call(3, 'x'), session);
      const text = await Promise.race([res.text(), sleep(5000).then(() => 'no answer in 5 s')]);
      expect(text).toMatch(
        /"id":3,"error":\{"code":-32700,"message":"message \d+ from the server was refused \(invalid UTF-8 at byte \d+\) and not forwarded"/,
      );
      const told = () => errorsIn(record);
      await until(() => told().length > 0);
      expect(told()).toEqual([['srv-9', -32700]]);
      expect(logs.join('\n')).not.toContain('AB');
    });
  });

  describe('serve, what the server sends before the host opened any stream', () => {
    // Right after initialization (no request in flight, no GET stream yet) the server sends
    // PENDING_MESSAGES + 1 log messages, then a request of its own. The SDK transport dropped them
    // all (it keeps nothing for a GET stream not open). Now they wait, bounded; past the bound a
    // message is dropped with a line naming it, and the request is answered so the server does not wait.
    const CHILD = `
const { appendFileSync } = require('node:fs');
const [record, count] = process.argv.slice(1);
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  appendFileSync(record, line + '\\n');
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    const result = { protocolVersion: m.params.protocolVersion, capabilities: { logging: {} }, serverInfo: { name: 'early', version: '1' } };
    send({ jsonrpc: '2.0', id: m.id, result });
  } else if (m.method === 'notifications/initialized') {
    for (let i = 1; i <= Number(count); i++) send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'Qwen ' + i } });
    send({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' });
  } else if (m.method === 'ping') send({ jsonrpc: '2.0', id: m.id, result: {} });
});`;
    const start = async (finished: Finished, count: number) => {
      const record = join(tmpdir(), `serve-record-${process.pid}-early-${count}.txt`);
      writeFileSync(record, '');
      finished(() => rmSync(record, { force: true }));
      const served = await serve(finished, { command: [process.execPath, '-e', CHILD, record, String(count)] });
      const session = await initialize(served.url);
      return { ...served, session, record };
    };
    const data = (text: string) => [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]!));

    it('waits for the GET stream, up to its bound; past it, a line on stderr and an error for the request', async ({
      expect,
      onTestFinished,
    }) => {
      const { url, logs, session, record } = await start(onTestFinished, PENDING_MESSAGES + 1);
      await until(() => logs.some((l) => l.includes('not delivered')));
      const get = await fetch(url, { headers: { ...HEADERS, accept: 'text/event-stream', 'mcp-session-id': session } });
      const reader = get.body!.getReader();
      let text = '';
      while (!text.includes(`"${encodeText(`Qwen ${PENDING_MESSAGES}`)}"`)) text += new TextDecoder().decode((await reader.read()).value);
      void reader.cancel();
      expect(data(text).map((m) => decodeText(m.params.data))).toEqual(Array.from({ length: PENDING_MESSAGES }, (_, i) => `Qwen ${i + 1}`));
      // (Numbered as the encoder numbers the server's messages: its answer to initialize is 1.)
      expect(logs.filter((l) => l.includes('not delivered'))).toEqual([
        expect.stringMatching(
          new RegExp(
            `^from the server: message ${PENDING_MESSAGES + 2} \\(a notification, \\d+ bytes\\) not delivered: the host has no stream open and ${PENDING_MESSAGES} messages \\(\\d+ characters\\) already wait for one$`,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            `^from the server: message ${PENDING_MESSAGES + 3} \\(a request, \\d+ bytes\\) not delivered: .* \\(the server answered\\)$`,
          ),
        ),
      ]);
      await until(() => errorsIn(record).length > 0);
      expect(errorsIn(record)).toEqual([['srv-1', -32000]]);
      expect(logs.join('\n')).not.toMatch(/Qwen/);
    });

    it('is not lost to a stream the host resumes that has nothing more to send', async ({ expect, onTestFinished }) => {
      const record = join(tmpdir(), `serve-record-${process.pid}-early-resume.txt`);
      writeFileSync(record, '');
      onTestFinished(() => rmSync(record, { force: true }));
      const { url, logs } = await serve(onTestFinished, { command: [process.execPath, '-e', CHILD, record, '2'] });
      const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
      const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params });
      const eventId = (await init.text()).match(/^id: (.+)$/m)![1]!;
      const session = init.headers.get('mcp-session-id')!;
      await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
      await until(() => logs.some((l) => l.includes('wait for the host to open its GET stream')));
      const get = (h: Record<string, string>) =>
        fetch(url, { headers: { ...HEADERS, accept: 'text/event-stream', 'mcp-session-id': session, ...h } });
      // Resuming the answered initialize stream: nothing after that event, and it ends.
      expect(data(await (await get({ 'last-event-id': eventId })).text())).toEqual([]);
      const reader = (await get({})).body!.getReader();
      let text = '';
      while (!text.includes('roots/list')) text += new TextDecoder().decode((await reader.read()).value);
      void reader.cancel();
      expect(data(text).map((m) => m.method)).toEqual(['notifications/message', 'notifications/message', 'roots/list']);
    });

    it('or goes out on the next response stream the host opens, before its answer', async ({ expect, onTestFinished }) => {
      const { url, logs, session } = await start(onTestFinished, 2);
      // (The server has sent them; nothing was open to take them.)
      await until(() => logs.some((l) => l.includes('wait for the host to open its GET stream')));
      const text = await (await post(url, { jsonrpc: '2.0', id: 5, method: 'ping' }, session)).text();
      expect(data(text).map((m) => m.method ?? m.id)).toEqual(['notifications/message', 'notifications/message', 'roots/list', 5]);
    });
  });
});
