// --guard learns a tool list sent as an event stream however the upstream cut it into reads:
// every cut of the answer, and random multi-cuts of list answers and list changes, through
// createFilteringFetch and createFilteringProxy; then the proxy and connect on real sockets,
// with the answer written in two writes apart in time. A schema-invalid call must be blocked.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { runConnect } from '../src/cli/connect.js';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringFetch, createFilteringProxy, type FetchLike } from '../src/http/index.js';
import { runs } from './arbitraries.js';
import { closer, onLoopback } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const tools = {
  tools: [
    {
      name: 'move',
      description: 'Moves, for Qwen users',
      inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false },
    },
  ],
};
const listEvent = (id: unknown, eol = '\n', result: unknown = tools) =>
  `event: message${eol}data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}${eol}${eol}`;
const badCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'move', arguments: { x: 'not a number' } } };

/** Cuts `bytes` at `cuts` (positions, any order, repeats allowed). */
function cutAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.slice(from, c));
    from = c;
  }
  return out.filter((p) => p.length);
}

const streamOf = (pieces: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of pieces) controller.enqueue(p);
      controller.close();
    },
  });

/** An upstream fetch: tools/list answered as an event stream in `pieces(id)`; records the calls that reach it. */
function upstream(pieces: (id: unknown) => Uint8Array[]) {
  const reached: string[] = [];
  const fetch: FetchLike = async (input, init) => {
    const body = JSON.parse(await new Request(input, init).text()) as { id?: unknown; method?: string };
    if (body.method === 'tools/list') {
      return new Response(streamOf(pieces(body.id)), { headers: { 'content-type': 'text/event-stream' } });
    }
    reached.push(body.method ?? '');
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: 'reached' }] } }), {
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch, reached };
}

type Way = 'fetch' | 'proxy';
/** A poster through `way` with the guard on, in front of `inner`. */
function through(way: Way, inner: FetchLike): (body: unknown) => Promise<Response> {
  if (way === 'fetch') {
    const f = createFilteringFetch({ fetch: inner, guard: 'all' });
    return (body) => f('http://up.test/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  }
  const handler = createFilteringProxy({ upstream: 'http://up.test/mcp', fetch: inner, guard: 'all' });
  return (body) =>
    handler(
      new Request('http://localhost/mcp', { method: 'POST', headers: { ...HEADERS, host: 'localhost' }, body: JSON.stringify(body) }),
    );
}

/** Lists (the answer cut as `pieces` says), then sends the bad call: whether it reached the upstream. */
async function badCallReached(way: Way, pieces: (id: unknown) => Uint8Array[]): Promise<boolean> {
  const up = upstream(pieces);
  const post = through(way, up.fetch);
  await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).text();
  const answer = (await (await post(badCall)).json()) as { result?: { isError?: boolean } };
  const reached = up.reached.includes('tools/call');
  if (!reached) expect(answer.result?.isError).toBe(true);
  return reached;
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe.each<Way>(['fetch', 'proxy'])('--guard through %s: a tools/list answer cut anywhere', (way) => {
  it('the answer whole: the bad call is blocked (control)', async () => {
    expect(await badCallReached(way, (id) => [bytes(listEvent(id))])).toBe(false);
  });

  it('every cut of the answer in two: the bad call is blocked', async () => {
    const length = bytes(listEvent(1)).length;
    for (let cut = 1; cut < length; cut++) {
      expect({ cut, reached: await badCallReached(way, (id) => cutAt(bytes(listEvent(id)), [cut])) }).toEqual({ cut, reached: false });
    }
  });

  it('random cuts of CRLF/CR/LF answers after other events: blocked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        async (eol, cuts, before) => {
          const text = (id: unknown) =>
            (before
              ? `: comment${eol}event: message${eol}data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}${eol}${eol}`
              : '') + listEvent(id, eol);
          const reached = await badCallReached(way, (id) => {
            const b = bytes(text(id));
            return cutAt(
              b,
              cuts.map((c) => c % b.length),
            );
          });
          expect(reached).toBe(false);
        },
      ),
      runs(40),
    );
  });

  it('a list_changed notification cut anywhere is seen: a tool not in the last list makes the guard ask for the new one, and passes', async () => {
    // (Missed, the change would leave the guard blocking a tool the server has just added.)
    const changed = bytes('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n');
    const newList = { tools: [...tools.tools, { name: 'jump', inputSchema: { type: 'object' } }] };
    for (let cut = 1; cut < changed.length; cut++) {
      let lists = 0;
      const up = upstream((id) =>
        lists++ === 0 ? [bytes(listEvent(id)), ...cutAt(changed, [cut])] : [bytes(listEvent(id, '\n', newList))],
      );
      const post = through(way, up.fetch);
      await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).text();
      const answer = (await (await post({ ...badCall, params: { name: 'jump', arguments: {} } })).json()) as {
        result?: { content?: { text: string }[] };
      };
      expect({ cut, text: answer.result?.content?.[0]?.text, reached: up.reached }).toEqual({
        cut,
        text: 'reached',
        reached: ['tools/call'],
      });
    }
  });
});

/** A real upstream that writes the tools/list answer in two writes 50 ms apart. */
async function splitUpstream() {
  const reached: string[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const c of req) text += c;
    const body = (text ? JSON.parse(text) : {}) as { id?: unknown; method?: string };
    if (req.method !== 'POST') return void res.writeHead(405).end();
    if (body.method === 'tools/list') {
      const event = listEvent(body.id);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event.slice(0, 40));
      await new Promise((r) => setTimeout(r, 50));
      return void res.end(event.slice(40));
    }
    if (body.method === 'tools/call') reached.push('tools/call');
    if (body.id === undefined) return void res.writeHead(202).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: body.method === 'initialize' ? {} : { content: [] } }));
  });
  return { url: await onLoopback(server, cleanup), reached };
}

describe('--guard on real sockets, the list answer in two writes', () => {
  it('proxy: the bad call is blocked', async () => {
    const up = await splitUpstream();
    const { server, url } = await runProxy({ upstream: up.url, port: 0, guard: 'all', log: () => {} });
    cleanup.push(closer(server));
    const post = (body: unknown) => fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
    await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).text();
    const answer = (await (await post(badCall)).json()) as { result?: { isError?: boolean } };
    expect(answer.result?.isError).toBe(true);
    expect(up.reached).toEqual([]);
  });

  it('connect: the bad call is blocked', async () => {
    const up = await splitUpstream();
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: { id?: unknown; result?: { isError?: boolean } }[] = [];
    let got: () => void = () => {};
    let buffered = '';
    output.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
        got();
      }
    });
    const answered = (id: number) =>
      new Promise<void>((resolve) => {
        got = () => lines.some((l) => l.id === id) && resolve();
        got();
      });
    const done = runConnect({ url: up.url, input, output, guard: 'all', log: () => {} });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`);
    await answered(1);
    input.write(`${JSON.stringify(badCall)}\n`);
    await answered(2);
    input.end();
    await done;
    expect(lines.find((l) => l.id === 2)?.result?.isError).toBe(true);
    expect(up.reached).toEqual([]);
  });
});
