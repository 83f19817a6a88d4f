// serve against a child that misbehaves with its own process: one that reads nothing of its
// stdin (the host's messages must not pile up in serve), one that ignores SIGTERM (a session's
// end must still end it); a host's cancellation under an id past 2^53; calls in flight when a
// session ends on DELETE or at shutdown (answered at once, as when the child exits). Real
// children, real sockets, the SDK client where it is the one that would wait. A host that
// keeps requests in flight without bound (each cancellation and answer cost a scan of them all).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, it, type TestContext, vi } from 'vitest';
import { MAX_IN_FLIGHT, runServe, SERVE_HOLD_BYTES } from '../src/cli/serve.js';
import { connectHost, RAW_INITIALIZE_PARAMS } from './http-helpers.ts';
import { until } from './until.ts';

vi.setConfig({ testTimeout: 30_000 });
/** What a case closes when it ends (its context's `onTestFinished`): the cases run at once. */
type Finished = TestContext['onTestFinished'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

async function start(finished: Finished, mode: 'deaf' | 'stubborn') {
  const pidFile = join(tmpdir(), `serve-review-${process.pid}-${mode}-${Date.now()}`);
  finished(() => rmSync(pidFile, { force: true }));
  const logs: string[] = [];
  const served = await runServe({
    command: [process.execPath, 'test/fixtures/serve-stubborn-child.mjs', mode, pidFile],
    port: 0,
    log: (l) => void logs.push(l),
  });
  finished(() => served.close());
  // (The child never answers: the initialize stream stays open; its headers carry the session.)
  const aborter = new AbortController();
  finished(() => aborter.abort());
  const init = await fetch(served.url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: RAW_INITIALIZE_PARAMS }),
    signal: aborter.signal,
  });
  const session = init.headers.get('mcp-session-id')!;
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
  const pid = Number(readFileSync(pidFile, 'utf8'));
  finished(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  });
  return { ...served, session, pid, logs };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Every case has its own serve and child, and most of a case waits on them: they run at once.
describe.concurrent('serve, misbehaving children and hosts', () => {
  describe('serve, a child that reads nothing of its stdin', () => {
    it('holds back the host beyond SERVE_HOLD_BYTES instead of buffering what the child does not take', async ({
      expect,
      onTestFinished,
    }) => {
      const { url, session } = await start(onTestFinished, 'deaf');
      const MIB = 1 << 20;
      const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/note', params: { text: 'x'.repeat(MIB) } });
      // Before the fix every one of these got 202 at once, 48 MiB held in serve for a child that
      // takes none of it (and more for as long as the host goes on).
      let accepted = 0;
      for (let k = 0; k < 48; k++) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { ...HEADERS, 'mcp-session-id': session },
          body: note,
          signal: AbortSignal.timeout(2000),
        }).catch(() => undefined);
        if (!res) break;
        expect(res.status).toBe(202);
        accepted++;
      }
      expect(accepted * MIB).toBeLessThanOrEqual(SERVE_HOLD_BYTES + 2 * MIB);
    });
  });

  describe('serve, a child that ignores SIGTERM', () => {
    it('is killed once its session has ended (DELETE), as wrap kills one', async ({ expect, onTestFinished }) => {
      const { url, session, pid } = await start(onTestFinished, 'stubborn');
      const res = await fetch(url, { method: 'DELETE', headers: { ...HEADERS, 'mcp-session-id': session } });
      expect(res.status).toBe(200);
      // (wrap: SIGTERM, SIGKILL 3 s later.) Waited for up to 8 s.
      for (let k = 0; k < 400 && alive(pid); k++) await sleep(20);
      expect(alive(pid)).toBe(false);
    });
  });

  /** A raw session at `url`: initialized (its answer read), and a POST helper that names it. */
  async function rawSession(url: string) {
    const post = (body: string, session?: string, signal?: AbortSignal) =>
      fetch(url, { method: 'POST', headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) }, body, signal });
    const init = await post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: RAW_INITIALIZE_PARAMS }));
    await init.text();
    const session = init.headers.get('mcp-session-id')!;
    return { post: (body: string, signal?: AbortSignal) => post(body, session, signal), session };
  }

  /** A raw session with a child that records what it reads and answers nothing but initialize. */
  async function recordingSession(finished: Finished, name: string) {
    const record = join(tmpdir(), `serve-review-${name}-${process.pid}-${Date.now()}`);
    writeFileSync(record, '');
    finished(() => rmSync(record, { force: true }));
    const served = await runServe({ command: [process.execPath, 'test/fixtures/serve-record-child.mjs', record], port: 0, log: () => {} });
    finished(() => served.close());
    return { ...(await rawSession(served.url)), record };
  }

  describe('serve, a cancellation under an id past 2^53', () => {
    it('ends the stream of the request it names as written, not one whose id parses the same', async ({ expect, onTestFinished }) => {
      const { post } = await recordingSession(onTestFinished, 'cancel');
      // (The child answers nothing but initialize: both calls stay in flight.)
      const first = await post('{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/call","params":{"name":"a"}}');
      const second = await post('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"b"}}');
      let firstEnded = false;
      void first.text().then(
        () => (firstEnded = true),
        () => (firstEnded = true),
      );
      const cancel = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}';
      expect((await post(cancel)).status).toBe(202);
      // Before the fix the first call (…992) was taken for the cancelled one: its stream ended
      // unanswered, and the second's stayed open for ever.
      await second.text();
      await sleep(200);
      expect(firstEnded).toBe(false);
    }, 10_000);
  });

  describe('serve, a session that ends with calls in flight', () => {
    const SDK_SERVER = [process.execPath, 'test/fixtures/http-stdio-server.mjs'];

    it('answers them at shutdown (the SDK client gets an isError result, not its timeout)', async ({ expect, onTestFinished }) => {
      const served = await runServe({ command: SDK_SERVER, port: 0, log: () => {} });
      onTestFinished(() => served.close());
      const { client } = await connectHost(served.url);
      onTestFinished(() => client.close());
      let started!: () => void;
      const first = new Promise<void>((r) => (started = r));
      client.setNotificationHandler(LoggingMessageNotificationSchema, () => started());
      // (Before the fix this call waited for its timeout: McpError -32001, Request timed out.)
      const call = client.callTool({ name: 'slow', arguments: {} }, undefined, { timeout: 15_000 });
      await first;
      await served.close();
      const result = (await call) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toContain('shutdown');
    });

    it('answers them on DELETE, under their ids as written', async ({ expect, onTestFinished }) => {
      const served = await runServe({ command: SDK_SERVER, port: 0, log: () => {} });
      onTestFinished(() => served.close());
      const { post, session } = await rawSession(served.url);
      await (await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).text();
      const slow = await post('{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":{"name":"slow","arguments":{}}}');
      const ping = await post(
        '[{"jsonrpc":"2.0","id":"p","method":"ping"},{"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":{"name":"slow","arguments":{}}}]',
      );
      await sleep(200);
      const deleted = await fetch(served.url, { method: 'DELETE', headers: { ...HEADERS, 'mcp-session-id': session } });
      expect(deleted.status).toBe(200);
      // Before the fix the stream ended with no answer (a client waits for its timeout).
      const text = await slow.text();
      expect(text).toContain('"id":12345678901234567890');
      expect(text).toContain('"isError":true');
      const batch = await ping.text();
      expect(batch).toMatch(/"id":"p"[^\n]*"result":\{\}|"result":\{\}[^\n]*"id":"p"/); // (the ping was answered by the child)
      expect(batch).toMatch(/"id":1\.0[^\n]*"isError":true|"isError":true[^\n]*"id":1\.0/);
    });
  });

  describe('serve, requests in flight', () => {
    it('are bounded per session: beyond MAX_IN_FLIGHT a request is answered -32000 at once, not forwarded', async ({
      expect,
      onTestFinished,
    }) => {
      const { post, record } = await recordingSession(onTestFinished, 'inflight');
      // (The child answers nothing but initialize: every ping stays in flight; the host leaves each stream.)
      const pings = (from: number) =>
        `[${Array.from({ length: 100 }, (_, k) => `{"jsonrpc":"2.0","id":${from + k},"method":"ping"}`).join(',')}]`;
      for (let from = 1; from <= MAX_IN_FLIGHT; from += 100) {
        const aborter = new AbortController();
        await post(pings(from), aborter.signal);
        aborter.abort();
      }
      // Before the fix these were forwarded too (in flight without bound); the stream stayed open.
      const over = await (await post(pings(MAX_IN_FLIGHT + 1))).text();
      const answers = over.split('\n').filter((l) => l.startsWith('data: '));
      expect(answers).toHaveLength(100);
      for (const [k, line] of answers.entries()) expect(line).toMatch(new RegExp(`"id":${MAX_IN_FLIGHT + 1 + k}[,}].*"code":-32000`));
      const seen = () =>
        readFileSync(record, 'utf8')
          .split('\n')
          .filter((l) => l.includes('"ping"')).length;
      await until(() => seen() >= MAX_IN_FLIGHT);
      await sleep(100);
      expect(seen()).toBe(MAX_IN_FLIGHT);
    });
  });
});
