// `proxy` sends its endpoint's requests over node:http (cli/node-upstream.ts), where fetch had
// undici's time limits. An upstream that keeps silent past --upstream-timeout must not hold the
// client: before its response head, or before the first byte of a JSON answer, the client gets
// 502 with an error under its request's id as written; an event stream that stalls ends at its
// last whole event. Over real sockets, with a 300 ms limit; without the limits each request
// here waits forever (the client gives up after 5 s, and the test fails).
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamOpener } from '../src/cli/node-upstream.js';
import { runProxy } from '../src/cli/proxy.js';
import { onLoopback } from './http-helpers.ts';

const LIMIT_MS = 300;
const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** What the upstream does with a request, by the tool name it calls (a GET: 'get'). */
const SILENT: Record<string, (res: ServerResponse) => void> = {
  // (never answers)
  head: () => {},
  // (the head of a JSON answer, then nothing)
  body: (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
  },
  // (an event stream: one whole event, the start of the next, then nothing)
  get: (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"qwen"}}\n\n');
    res.write('event: message\ndata: {"jsonrpc":"2.0",');
  },
};

let url: string;
let upstream: string;
const logs: string[] = [];
beforeAll(async () => {
  upstream = await onLoopback(
    createServer(async (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'GET') return SILENT.get!(res);
      let text = '';
      for await (const c of req) text += c;
      SILENT[(JSON.parse(text) as { params: { name: string } }).params.name]!(res);
    }),
    cleanup,
  );
  const proxy = await runProxy({ upstream, log: (l) => void logs.push(l), upstreamTimeoutMs: LIMIT_MS });
  cleanup.push(() => {
    proxy.server.closeAllConnections();
    proxy.server.close();
  });
  url = proxy.url;
});

/** Sends a request as an SDK client does (giving up after 5 s); resolves with what it got and how the body ended. */
function send(method: string, body?: string): Promise<{ status: number; text: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const req = request(url, { method, headers, agent: false, signal: AbortSignal.timeout(5_000) }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d));
      res.on('close', () => resolve({ status: res.statusCode!, text, complete: res.complete }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A tools/call of `name`, its id written as `1.50` (answered under that spelling). */
const call = (name: string) => `{"jsonrpc":"2.0","id":1.50,"method":"tools/call","params":{"name":"${name}","arguments":{}}}`;

describe('proxy: an upstream that keeps silent', () => {
  it.each([
    ['before its response head', 'head', 'UND_ERR_HEADERS_TIMEOUT'],
    ['after the head of a JSON answer', 'body', 'UND_ERR_BODY_TIMEOUT'],
  ])('%s: 502, an error under the id as written', async (_, name, code) => {
    const got = await send('POST', call(name));
    expect(got.status).toBe(502);
    expect(got.text).toMatch(/^\{"jsonrpc":"2\.0","id":1\.50,"error":\{"code":-32000,/);
    expect(logs.join('\n')).toMatch(
      code === 'UND_ERR_HEADERS_TIMEOUT'
        ? /upstream unreachable \(UND_ERR_HEADERS_TIMEOUT\) \(502\)/
        : /POST upstream response refused: Error: no more of the upstream body/,
    );
  });

  it('inside an event stream: the stream ends after its last whole event', async () => {
    const got = await send('GET');
    expect(got.status).toBe(200);
    expect(got.complete).toBe(true);
    expect(got.text).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"__mcp_ref_7177656e__"}}\n\n',
    );
  });
});

describe('openUpstream', () => {
  it('rejects as fetch does when no head comes in time (TypeError, cause.code as undici names it)', async () => {
    const opened = await upstreamOpener({ headersMs: LIMIT_MS, bodyIdleMs: LIMIT_MS })(
      new URL(upstream),
      new Headers({ 'content-type': 'application/json' }),
      new AbortController().signal,
      'POST',
      new TextEncoder().encode(call('head')),
    ).then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    );
    expect(opened).toBeInstanceOf(TypeError);
    expect(opened?.cause?.code).toBe('UND_ERR_HEADERS_TIMEOUT');
  });
});
