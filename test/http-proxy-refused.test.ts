// proxy, on real sockets: an upstream answer the encoder refuses is never a silent reset. Before
// any byte went out, the client gets 502 with an encoded JSON-RPC error for its request; in an
// event stream already under way, the stream ends cleanly after the events that passed, with an
// error for the request (its answer was refused, or would have come after: the host must not wait). Either
// way one log line says so, without payload.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringFetch } from '../src/http/index.js';
import { decodeMessage } from '../src/index.js';
import { answerInitialize } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** A proxy in front of an upstream answering every POST with `type` and `body`; its log lines. */
async function proxyTo(type: string, body: string) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const logs: string[] = [];
  const proxy = await runProxy({
    upstream: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    port: 0,
    log: (l) => logs.push(l),
  });
  cleanup.push(() => {
    for (const s of [server, proxy.server]) {
      s.closeAllConnections();
      s.close();
    }
  });
  const post = () =>
    fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}',
    });
  return { post, logs };
}

describe('proxy: a response the encoder refuses', () => {
  it('JSON that is not JSON, before any byte: 502 with an encoded JSON-RPC error for the request, and a log line', async () => {
    const { post, logs } = await proxyTo('application/json', '<html>Qwen: Internal Server Error</html>');
    const res = await post();
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(text).not.toMatch(/qwen/i);
    expect(decodeMessage(JSON.parse(text))).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });
    expect(logs.filter((l) => /upstream response refused/.test(l))).toHaveLength(1);
    expect(logs.join('\n')).not.toMatch(/qwen|html/i);
  });

  it.each([
    ['an event whose data is not JSON', 'data: Qwen ping'],
    ['an event whose JSON is cut short', 'data: {"jsonrpc":"2.0","method":"x","params":{"text":"Qwen"'],
  ])(
    'an event stream with %s after a good event: the good event, then an error for the request and a clean end, and a log line',
    async (_, bad) => {
      const good = 'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ok"}}\n\n';
      const answer = 'data: {"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n\n'; // (after the refused event: never reaches the host)
      const { post, logs } = await proxyTo('text/event-stream', `${good}${bad}\n\n${answer}`);
      const res = await post();
      expect(res.status).toBe(200);
      const text = await res.text(); // (a reset would make text() throw)
      // The good event whole; of the refused one at most an encoded start, ended by a blank line
      // so that its data does not parse; then the request's error, so the host does not wait.
      expect(text.startsWith(good)).toBe(true);
      const rest = text
        .slice(good.length)
        .split('\n\n')
        .filter((e) => e.trim());
      const last = rest.at(-1)!.match(/^event: message\ndata: (.*)$/)!;
      expect(decodeMessage(JSON.parse(last[1]!))).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });
      for (const spoiled of rest.slice(0, -1)) expect(() => JSON.parse(spoiled.replace(/^data: /, ''))).toThrow();
      expect(rest.length).toBeLessThanOrEqual(2);
      expect(text).not.toMatch(/qwen|"result"/i);
      expect(logs.filter((l) => /upstream response refused/.test(l))).toHaveLength(1);
      expect(logs.join('\n')).not.toMatch(/qwen|ping/i);
    },
  );
});

describe('proxy and createFilteringFetch: a body the decoder refuses', () => {
  // Invalid UTF-8 (or too deep, or a type conflict): the host got 400 with id null (the fetch
  // wrapper threw), and a response in it (the host's answer to the server's own request) was
  // never sent on: the server waited for it forever. Now, as wrap: requests answered under their
  // ids, responses sent to the server as that error.
  const withBad = (json: string) => {
    const at = json.indexOf('AB') + 1;
    return Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from([0xff]), Buffer.from(json.slice(at))]);
  };
  async function recordingUpstream() {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        seen.push(Buffer.concat(parts).toString('utf8'));
        res.writeHead(202).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
  }
  const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  it('proxy: a response goes to the server as -32700 under its id; a request is answered under its id', async () => {
    const upstream = await recordingUpstream();
    const logs: string[] = [];
    const proxy = await runProxy({ upstream: upstream.url, port: 0, log: (l) => logs.push(l) });
    cleanup.push(() => {
      proxy.server.closeAllConnections();
      proxy.server.close();
    });
    const send = (body: Buffer) => fetch(proxy.url, { method: 'POST', headers: HEADERS, body: new Uint8Array(body) });
    const answer = await send(withBad(JSON.stringify({ jsonrpc: '2.0', id: 's1', result: { t: 'AB' } })));
    await answer.text();
    expect(upstream.seen.map((b) => JSON.parse(b))).toMatchObject([{ id: 's1', error: { code: -32700 } }]);
    const call = await send(
      withBad(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', arguments: { t: 'AB' } } })),
    );
    expect(decodeMessage(await call.json())).toMatchObject({ id: 7, error: { code: -32700 } });
    expect(upstream.seen).toHaveLength(1);
    expect(logs.join('\n')).not.toContain('AB');
  });

  it('proxy: a body that does not parse gets 400 -32700 (Parse error), as the SDK server, serve and connect answer; JSON nested too deep -32600', async () => {
    // (It said -32600 (Invalid Request) for all of them.)
    const upstream = await recordingUpstream();
    const proxy = await runProxy({ upstream: upstream.url, port: 0, log: () => {} });
    cleanup.push(() => {
      proxy.server.closeAllConnections();
      proxy.server.close();
    });
    const send = (body: string) => fetch(proxy.url, { method: 'POST', headers: HEADERS, body });
    for (const body of [
      'not json',
      '{"jsonrpc":"2.0","id":1,"method":"x"',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"\\q"}}',
      '{"t":"\u0001"}',
    ]) {
      const res = await send(body);
      expect([res.status, await res.json()]).toMatchObject([400, { id: null, error: { code: -32700 } }]);
    }
    const deep = `{"jsonrpc":"2.0","id":4,"method":"x","params":{"a":${'['.repeat(70_000)}${']'.repeat(70_000)}}}`;
    expect(await (await send(deep)).json()).toMatchObject({ id: 4, error: { code: -32600 } });
    expect(upstream.seen).toEqual([]);
  });

  it('createFilteringFetch: a response refused for a type conflict goes to the server as -32600 under its id', async () => {
    const upstream = await recordingUpstream();
    const fetchFiltered = createFilteringFetch();
    const conflict = JSON.stringify({ jsonrpc: '2.0', id: 's2', result: { content: [{ type: 'image' }] } }).replace(
      '"image"',
      '"image","type":"text"',
    );
    const res = await fetchFiltered(upstream.url, { method: 'POST', headers: HEADERS, body: conflict });
    await res.body?.cancel();
    expect(upstream.seen.map((b) => JSON.parse(b))).toMatchObject([{ id: 's2', error: { code: -32600 } }]);
  });
});

describe('proxy and createFilteringFetch: the real SDK client and an answer the encoder refuses mid-stream', () => {
  it.each(['proxy', 'filtering fetch'] as const)(
    "through the %s, the call is rejected with the filter's error at once, not at the client's timeout",
    async (via) => {
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      // An upstream whose answer to every call holds a raw control character (not JSON).
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          if (req.method !== 'POST') return void res.writeHead(405).end();
          const m = JSON.parse(body);
          if (m.method === 'initialize') return answerInitialize(res, m);
          if (m.id === undefined) return void res.writeHead(202).end();
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`data: {"jsonrpc":"2.0","id":${m.id},"result":{"content":[{"type":"text","text":"Qwen\u0001"}]}}\n\n`);
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const streamErrors: unknown[] = [];
      const proxy = via === 'proxy' ? await runProxy({ upstream, port: 0, log: () => {} }) : undefined;
      const client = new Client({ name: 'host', version: '1.0.0' });
      client.onerror = () => {}; // (the spoiled event's data does not parse: the client says so, and goes on)
      cleanup.push(() => {
        void client.close();
        for (const s of proxy ? [server, proxy.server] : [server]) {
          s.closeAllConnections();
          s.close();
        }
      });
      const transport = proxy
        ? new StreamableHTTPClientTransport(new URL(proxy.url))
        : new StreamableHTTPClientTransport(new URL(upstream), {
            fetch: createFilteringFetch({ onStreamError: (e) => void streamErrors.push(e) }),
          });
      await client.connect(transport);
      const error = await client.callTool({ name: 'x', arguments: {} }, undefined, { timeout: 10_000 }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(
        /^MCP error -32000: The upstream MCP server sent an event that cannot be passed on \(control character in a JSON string in message 1 at byte \d+\)/,
      );
      expect(error?.message).not.toMatch(/timed out|qwen/i);
      if (via === 'filtering fetch') expect(streamErrors).toHaveLength(1);
    },
  );
});

describe('createFilteringFetch: the errors ending a refused event stream, larger than maxMessageBytes', () => {
  it('a batch whose errors are longer than the bound still gets them, and a clean end', async () => {
    // The errors are this code's own bytes: the bound (made for what arrives) does not apply.
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('data: {"jsonrpc":"2.0","id":0,"result":{"t":"x\u0001"}}\n\n');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const batch = JSON.stringify(Array.from({ length: 8 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'a' })));
    const fetchFiltered = createFilteringFetch({ maxMessageBytes: 400, onStreamError: () => {} });
    const res = await fetchFiltered(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: batch,
    });
    const text = await res.text(); // (an error here: the stream was reset and no error went out)
    const last = text
      .split('\n\n')
      .filter((e) => e.trim())
      .at(-1)!
      .match(/^event: message\ndata: (.*)$/)!;
    const replies = decodeMessage(JSON.parse(last[1]!)) as { id: number; error: { code: number } }[];
    expect(replies.map((r) => [r.id, r.error.code])).toEqual(Array.from({ length: 8 }, (_, i) => [i, -32000]));
  });
});

describe('settle', () => {
  it('an ending that fails still ends the stream cleanly, and is told', async () => {
    const { settle } = await import('../src/http/settle.js');
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (pulls++ === 0) c.enqueue(new TextEncoder().encode('data: 1\n\n'));
          else throw new Error('refused');
        },
      },
      { highWaterMark: 0 },
    );
    const told: string[] = [];
    const settled = await settle(
      body,
      false,
      (e) => void told.push((e as Error).message),
      async () => {
        throw new RangeError('no room for the errors');
      },
    );
    expect(await new Response(settled as ReadableStream<Uint8Array>).text()).toBe('data: 1\n\n');
    expect(told).toEqual(['refused', 'no room for the errors']);
  });
});
