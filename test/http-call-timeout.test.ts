// callTimeoutMs on HTTP: createFilteringProxy (proxy --call-timeout), createFilteringFetch and
// connect --call-timeout. A request the upstream leaves unanswered is answered in its POST's
// response (an event in an event stream; a JSON body when no response came at all), under its id
// as written; the upstream is POSTed notifications/cancelled in the same session; a late answer
// never reaches the client; progress keeps a call going up to the max. Real SDK clients, real
// sockets; the upstreams are `serve` around a real child (fixtures/slow-server.mjs, which records
// what it reads; event streams) and the SDK's server in JSON response mode (fixtures/http-upstream.ts).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, it, type TestContext, vi } from 'vitest';
import { runProxy } from '../src/cli/proxy.js';
import { runServe } from '../src/cli/serve.js';
import type { AuditEntry } from '../src/guard/audit.ts';
import { createFilteringFetch, type FetchLike } from '../src/http/index.js';
import { createCodec } from '../src/index.ts';
import { cancelsIn, LIMIT_MS, MAX_MS, NO_ANSWER, progressUpToMax, record, seen, slowServer, until } from './call-timeout-helpers.ts';
import { CLI, ROOT } from './fixtures/cli-session.ts';
import { startUpstream } from './fixtures/http-upstream.ts';
import { RAW_INITIALIZE_PARAMS } from './http-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });
/** What a case closes when it ends (its context's `onTestFinished`): the cases run at once. */
type Finished = TestContext['onTestFinished'];

/**
 * An upstream on a real socket: a POST holding a request gets `respond` (which may never answer);
 * notifications get 202. It records each body POSTed and its session header.
 */
async function rawUpstream(finished: Finished, respond: (res: ServerResponse) => void) {
  const posted: string[] = [];
  const sessions: (string | undefined)[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    posted.push(body);
    sessions.push(req.headers['mcp-session-id'] as string | undefined);
    if (body.includes('notifications/')) return void res.writeHead(202).end();
    respond(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  finished(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, posted, sessions };
}

/** serve around slow-server.mjs (no limit of its own): an upstream that answers on event streams. */
async function slowUpstream(finished: Finished) {
  const file = record();
  const logs: string[] = [];
  const served = await runServe({
    command: [process.execPath, ...slowServer(file)],
    port: 0,
    log: (l) => void logs.push(l),
  });
  finished(() => served.close());
  return { url: served.url, file, logs };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * A session opened straight at the upstream, without a limit (its child starting, on a loaded
 * machine, is not what is timed here): its headers for raw POSTs.
 */
async function session(upstream: string): Promise<Record<string, string>> {
  const init = await fetch(upstream, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: RAW_INITIALIZE_PARAMS }),
  });
  await init.text();
  const headers = { ...HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
  await (await fetch(upstream, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
  return headers;
}

/** The real SDK client in a session opened at `upstream` (so it sends no initialize), talking to `url`. */
async function client_(finished: Finished, upstream: string, url: string, options: { fetch?: FetchLike } = {}) {
  const sessionId = (await session(upstream))['mcp-session-id'];
  const c = new Client({ name: 'host', version: '1.0.0' });
  const errors: Error[] = [];
  c.onerror = (e) => void errors.push(e);
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { sessionId, ...options }));
  finished(() => c.close().catch(() => {}));
  return { client: c, errors, sessionId };
}

async function proxied(
  finished: Finished,
  upstream: string,
  timeout = { callTimeoutMs: LIMIT_MS } as { callTimeoutMs: number; callTimeoutMaxMs?: number },
) {
  const logs: string[] = [];
  const { server, url } = await runProxy({ upstream, port: 0, log: (l) => void logs.push(l), ...timeout });
  finished(() => {
    server.closeAllConnections();
    server.close();
  });
  return { ...(await client_(finished, upstream, url)), url, logs };
}

// Every case has its own upstream, proxy and client, and most of a case is waiting for a limit:
// they run at once.
describe.concurrent('callTimeoutMs on HTTP', () => {
  describe('proxy --call-timeout, an upstream that answers on event streams', () => {
    it('answers a tools/call never answered, cancels it upstream in the session, and goes on', async ({ expect, onTestFinished }) => {
      const up = await slowUpstream(onTestFinished);
      const { client } = await proxied(onTestFinished, up.url);
      expect(await client.callTool({ name: 'never', arguments: {} })).toEqual({
        content: [{ type: 'text', text: NO_ANSWER }],
        isError: true,
      });
      expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'echo' }]);
      await until(() => cancelsIn(up.file).length > 0);
      const call = seen(up.file).find((m) => m.params?.name === 'never')!;
      expect(cancelsIn(up.file).map((m) => m.params)).toEqual([{ requestId: call.id, reason: 'timeout' }]);
    });

    it('answers other requests with error -32001', async ({ expect, onTestFinished }) => {
      const { client } = await proxied(onTestFinished, (await slowUpstream(onTestFinished)).url);
      await expect(client.listResources()).rejects.toMatchObject({ code: -32001, message: expect.stringContaining(NO_ANSWER) });
    });

    it('lets progress keep a call going past the limit, up to the max', async ({ expect, onTestFinished }) => {
      const { client } = await proxied(onTestFinished, (await slowUpstream(onTestFinished)).url, {
        callTimeoutMs: LIMIT_MS,
        callTimeoutMaxMs: MAX_MS,
      });
      await progressUpToMax(client, expect);
    });

    it('in a batch, answers the member that timed out, drops its late answer, passes the other (ids as written)', async ({
      expect,
      onTestFinished,
    }) => {
      const up = await slowUpstream(onTestFinished);
      const { url } = await proxied(onTestFinished, up.url);
      const headers = await session(up.url);
      // `late` is answered at 1.5 limits, past the limit; `progress` at 1.6, kept going by its progress.
      const ID = '9007199254740993';
      const body = `[{"jsonrpc":"2.0","id":${ID},"method":"tools/call","params":{"name":"late","arguments":{}}},{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"t"}}}]`;
      const text = await (await fetch(url, { method: 'POST', headers, body })).text();
      const data = text.split('\n').filter((l) => l.startsWith('data: {') && !l.includes('notifications/progress'));
      expect(data).toEqual([
        `data: {"jsonrpc":"2.0","id":${ID},"result":{"content":[{"type":"text","text":"${NO_ANSWER}"}],"isError":true}}`,
        'data: {"jsonrpc":"2.0","id":"p","result":{"content":[{"type":"text","text":"done"}]}}',
      ]);
      expect(text.match(/notifications\/progress/g)).toHaveLength(15);
      await until(() => cancelsIn(up.file).length > 0);
      expect(readFileSync(up.file, 'utf8')).toContain(
        `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${ID},"reason":"timeout"}}`,
      );
    });
  });

  describe('proxy --call-timeout, an upstream that answers with JSON bodies', () => {
    it('answers with a JSON body when no response came in time, and cancels upstream', async ({ expect, onTestFinished }) => {
      const up = await startUpstream('stateful', { json: true });
      onTestFinished(() => up.close());
      const { client } = await proxied(onTestFinished, up.url);
      expect(await client.callTool({ name: 'slow', arguments: {} })).toEqual({
        content: [{ type: 'text', text: NO_ANSWER }],
        isError: true,
      });
      await until(() => up.hits.some((h) => h.rpc === 'notifications/cancelled'));
      expect((await client.callTool({ name: 'echo', arguments: { text: 'x' } })).content).toEqual([{ type: 'text', text: 'echo: x' }]);
    });

    it('answers a batch whose requests all timed out with a JSON batch, each under its id as written', async ({
      expect,
      onTestFinished,
    }) => {
      // (An upstream that accepts a batch and never answers it: the SDK's server no longer takes batches.)
      const up = await rawUpstream(onTestFinished, () => {});
      const codec = { terms: { ascii: ['answer'] } };
      const { server, url } = await runProxy({ upstream: up.url, port: 0, log: () => {}, callTimeoutMs: LIMIT_MS, ...codec });
      const text = createCodec(codec).encodeText(NO_ANSWER);
      onTestFinished(() => {
        server.closeAllConnections();
        server.close();
      });
      const body =
        '[{"jsonrpc":"2.0","id":18446744073709551617,"method":"tools/call","params":{"name":"slow","arguments":{}}},' +
        '{"jsonrpc":"2.0","id":"b","method":"ping"}]';
      const response = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': 's1' }, body });
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.text()).toBe(
        `[{"jsonrpc":"2.0","id":18446744073709551617,"result":{"content":[{"type":"text","text":"${text}"}],"isError":true}},` +
          `{"jsonrpc":"2.0","id":"b","error":{"code":-32001,"message":"${text}"}}]`,
      );
      await until(() => up.posted.length === 3);
      expect(up.posted.slice(1).sort()).toEqual([
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b","reason":"timeout"}}',
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":18446744073709551617,"reason":"timeout"}}',
      ]);
      // (In the client's session.)
      expect(up.sessions).toEqual(['s1', 's1', 's1']);
    });
  });

  describe('createFilteringFetch({ callTimeoutMs })', () => {
    it('answers in the response the SDK transport reads, and cancels upstream', async ({ expect, onTestFinished }) => {
      const up = await slowUpstream(onTestFinished);
      const audit: AuditEntry[] = [];
      const filtered = createFilteringFetch({ callTimeoutMs: LIMIT_MS, onAudit: (e) => void audit.push(e) });
      const { client, errors, sessionId } = await client_(onTestFinished, up.url, up.url, { fetch: filtered });
      expect(await client.callTool({ name: 'late', arguments: {} })).toEqual({
        content: [{ type: 'text', text: NO_ANSWER }],
        isError: true,
      });
      await until(() => cancelsIn(up.file).length > 0);
      await until(() => up.logs.some((l) => l.includes('answers no request in flight')));
      expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'echo' }]);
      expect(errors.map((e) => e.message)).toEqual([]);
      // (The trail without a guard: the time limit decides too.)
      const call = seen(up.file).find((m) => m.params?.name === 'late')!;
      expect(audit).toEqual([
        {
          time: expect.any(String),
          session: sessionId,
          request: JSON.stringify(call.id),
          tool: 'late',
          decision: 'timed-out',
          rule: 'timeout',
        },
      ]);
    });

    it('drops a late answer from the stream when the upstream answers anyway (batch: the other member still waits)', async ({
      expect,
      onTestFinished,
    }) => {
      const up = await slowUpstream(onTestFinished);
      // An upstream that never hears the cancellation: it sends its late answer on the stream.
      const swallowed: string[] = [];
      const inner = async (input: string | URL | Request, init?: RequestInit) => {
        if (typeof init?.body === 'string' && init.body.includes('notifications/cancelled')) {
          swallowed.push(init.body);
          return new Response(null, { status: 202 });
        }
        return fetch(input, init);
      };
      const filtered = createFilteringFetch({ callTimeoutMs: LIMIT_MS, fetch: inner });
      const headers = await session(up.url);
      const body =
        '[{"jsonrpc":"2.0","id":"l","method":"tools/call","params":{"name":"late","arguments":{}}},' +
        '{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"t"}}}]';
      const text = await (await filtered(up.url, { method: 'POST', headers, body })).text();
      const data = text.split('\n').filter((l) => l.startsWith('data: {') && !l.includes('notifications/progress'));
      expect(data).toEqual([
        `data: {"jsonrpc":"2.0","id":"l","result":{"content":[{"type":"text","text":"${NO_ANSWER}"}],"isError":true}}`,
        'data: {"jsonrpc":"2.0","id":"p","result":{"content":[{"type":"text","text":"done"}]}}',
      ]);
      expect(swallowed).toEqual(['{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l","reason":"timeout"}}']);
    });
  });

  describe('an event stream that ends before its answers', () => {
    const endingUpstream = (finished: Finished, head: string) =>
      rawUpstream(finished, (res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(head));
    const CALL = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{}}}';

    it('without event ids (no resuming it): is held open and answers at the limit', async ({ expect, onTestFinished }) => {
      const up = await endingUpstream(onTestFinished, '');
      // (A term in the answer's text: it is encoded like the upstream's events.)
      const codec = { terms: { ascii: ['answer'] } };
      const filtered = createFilteringFetch({ callTimeoutMs: LIMIT_MS, ...codec });
      const response = await filtered(up.url, { method: 'POST', headers: HEADERS, body: CALL });
      const text = createCodec(codec).encodeText(NO_ANSWER);
      expect(text).not.toBe(NO_ANSWER);
      expect(await response.text()).toBe(
        `event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"${text}"}],"isError":true}}\n\n`,
      );
      await until(() => up.posted.length === 2);
      expect(up.posted[1]).toBe('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"timeout"}}');
    });

    it('with event ids: ends with it (the client resumes it) and cancels nothing', async ({ expect, onTestFinished }) => {
      const up = await endingUpstream(onTestFinished, 'id: 1\ndata: \n\n');
      const response = await createFilteringFetch({ callTimeoutMs: LIMIT_MS })(up.url, { method: 'POST', headers: HEADERS, body: CALL });
      expect(await response.text()).toBe('id: 1\ndata: \n\n');
      await new Promise((r) => setTimeout(r, 1.5 * LIMIT_MS)); // (past the limit: no cancellation may follow)
      expect(up.posted).toEqual([CALL]);
    });
  });

  describe('a batch answered in one event', () => {
    it('keeps the answer still awaited and takes out the late one', async ({ expect, onTestFinished }) => {
      // `a` times out at 1 s; `b`'s progress (at 0.4 and 0.8 s) keeps it to 1.8 s; both answers
      // come at 1.3 s in one event.
      const up = await rawUpstream(onTestFinished, (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const progress = (n: number) =>
          res.write(
            `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":${n}}}\n\n`,
          );
        setTimeout(() => progress(1), 400);
        setTimeout(() => progress(2), 800);
        setTimeout(
          () =>
            res.end('event: message\ndata: [{"jsonrpc":"2.0","id":"a","result":{}},\ndata: {"jsonrpc":"2.0","id":"b","result":{}}]\n\n'),
          1300,
        );
      });
      const body =
        '[{"jsonrpc":"2.0","id":"a","method":"ping"},' +
        '{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"t"}}}]';
      // (A 1 s limit: the margins of this schedule, 300 ms and 500 ms, hold on a loaded machine.)
      const response = await createFilteringFetch({ callTimeoutMs: 1000 })(up.url, { method: 'POST', headers: HEADERS, body });
      const data = (await response.text()).split('\n').filter((l) => l.startsWith('data: ') && !l.includes('progress'));
      expect(data).toEqual([
        `data: {"jsonrpc":"2.0","id":"a","error":{"code":-32001,"message":"no answer from the server within 1 s"}}`,
        'data: [{"jsonrpc":"2.0","id":"b","result":{}}]',
      ]);
    });
  });

  describe('an upstream that answers under the id as it parsed it', () => {
    it('settles the request: no timeout answer, no cancellation', async ({ expect, onTestFinished }) => {
      // ("a\u0041" answered as "aA", and the stream left open.)
      const up = await rawUpstream(onTestFinished, (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: message\ndata: {"jsonrpc":"2.0","id":"aA","result":{}}\n\n');
      });
      const body = '{"jsonrpc":"2.0","id":"a\\u0041","method":"ping"}';
      const response = await createFilteringFetch({ callTimeoutMs: LIMIT_MS })(up.url, { method: 'POST', headers: HEADERS, body });
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      expect(decoder.decode((await reader.read()).value)).toBe('event: message\ndata: {"jsonrpc":"2.0","id":"aA","result":{}}\n\n');
      // Past the limit: nothing follows, and the upstream is told nothing.
      let more = '';
      void reader.read().then((r) => (more = decoder.decode(r.value)));
      await new Promise((r) => setTimeout(r, 1.5 * LIMIT_MS));
      expect(more).toBe('');
      expect(up.posted).toHaveLength(1);
      await reader.cancel();
    });
  });

  describe('an event over 1 MiB', () => {
    it('streams on unread (not held whole) and ends the timing: no second answer, no cancellation', async ({ expect, onTestFinished }) => {
      let finish!: () => void;
      const finished = new Promise<void>((r) => (finish = r));
      const up = await rawUpstream(onTestFinished, (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"${'x'.repeat(1_200_000)}`);
        void finished.then(() => res.write('"}]}}\n\n')); // (and the stream stays open)
      });
      // (A limit long enough for the first MiB to pass on a loaded machine: the event must end
      // the timing by its size, not be answered first by the limit.)
      const limitMs = 2000;
      const started = Date.now();
      const response = await createFilteringFetch({ callTimeoutMs: limitMs })(up.url, {
        method: 'POST',
        headers: HEADERS,
        body: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{}}}',
      });
      const reader = response.body!.getReader();
      let text = '';
      const decoder = new TextDecoder();
      /** Reads on while `more` holds; false if the stream ended first. */
      const readWhile = async (more: () => boolean) => {
        while (more()) {
          const next = await reader.read();
          if (next.done) return false;
          text += decoder.decode(next.value, { stream: true });
        }
        return true;
      };
      // Its first MiB comes before the upstream has sent the rest.
      expect(await readWhile(() => text.length < 1_000_000)).toBe(true);
      expect(text.startsWith('event: message\ndata: {"jsonrpc":"2.0","id":7,')).toBe(true);
      finish();
      expect(await readWhile(() => !text.endsWith('\n\n'))).toBe(true);
      // Past the limit: no answer of the filter's follows, and the upstream is told nothing.
      let more = '';
      void reader.read().then((r) => (more = decoder.decode(r.value)));
      await new Promise((r) => setTimeout(r, started + limitMs + 500 - Date.now()));
      expect(more).toBe('');
      expect(up.posted).toHaveLength(1);
      expect(JSON.parse(text.slice(text.indexOf('data: ') + 6)).id).toBe(7);
      await reader.cancel();
    });
  });

  describe('connect --call-timeout', () => {
    it('answers the host over stdio, and cancels upstream', async ({ expect, onTestFinished }) => {
      // (The SDK's server in-process: its initialize is not held up by a child starting.)
      const up = await startUpstream('stateful', { json: true });
      onTestFinished(() => up.close());
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'connect', up.url, '--call-timeout', '1s'],
        cwd: ROOT,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'host', version: '1.0.0' });
      await client.connect(transport);
      onTestFinished(() => client.close().catch(() => {}));
      expect(await client.callTool({ name: 'slow', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'no answer from the server within 1 s' }],
        isError: true,
      });
      await until(() => up.hits.some((h) => h.rpc === 'notifications/cancelled'));
      expect((await client.callTool({ name: 'echo', arguments: { text: 'x' } })).content).toEqual([{ type: 'text', text: 'echo: x' }]);
    });
  });
});
