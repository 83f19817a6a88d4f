// proxy, on real sockets: an upstream answer the encoder refuses is never a silent reset. Before
// any byte went out, the client gets 502 with an encoded JSON-RPC error for its request; in an
// event stream already under way, the stream ends cleanly after the events that passed. Either
// way one log line says so, without payload.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringFetch } from '../src/http/index.js';
import { decodeMessage } from '../src/index.js';

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
    'an event stream with %s after a good event: the good event, then a clean end before any other whole event, and a log line',
    async (_, bad) => {
      const good = 'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ok"}}\n\n';
      const { post, logs } = await proxyTo('text/event-stream', `${good}${bad}\n\n`);
      const res = await post();
      expect(res.status).toBe(200);
      const text = await res.text(); // (a reset would make text() throw)
      // The good event whole; of the refused one at most an encoded start, never a whole event.
      expect(text.startsWith(good)).toBe(true);
      expect(text.slice(good.length)).not.toMatch(/\n\n|\r\r|\r\n\r\n|qwen/i);
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
