// WASM memory full (streams in the middle of messages hold it all) is the process's limit, not a
// fault of the request: the proxy answers the request that meets it with 503, a JSON-RPC error
// and Retry-After, before forwarding anything (it was a 500 with no body, after the upstream
// had taken the request), and goes on serving once memory is given back. The CLI's server does
// the same for any handler (serve).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/cli/node-http.ts';
import { runProxy } from '../src/cli/proxy.ts';
import { allocate, free, heapStats } from '../src/core/memory.ts';
import { WasmMemoryFullError } from '../src/errors.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import type { ByteTransformer } from '../src/stream/index.ts';
import { bytes } from './stream-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const TOKEN = '__mcp_ref_7177656e__'; // 'qwen'

/** Fills WASM memory: untouched address space up to a few blocks short of 4 GiB, then streams in the middle of a message. */
function fillMemory(): { held: ByteTransformer[]; filler: [number, number] } {
  const size = 2 ** 32 - heapStats().top - 12 * 1024 * 1024;
  const filler: [number, number] = [allocate(size), size];
  const held: ByteTransformer[] = [];
  try {
    for (let i = 0; i < 100; i++) {
      const t = byteTransformer('encode', {}, () => {}, { lines: false });
      t.push(bytes('{"jsonrpc":"2.0","id":1,"result":{"text":"qw'));
      held.push(t);
    }
  } catch (e) {
    if (!(e instanceof WasmMemoryFullError)) throw e;
    return { held, filler };
  }
  throw new Error('memory did not fill');
}

/** A 503 as the proxy gives it: under `id`, the request's (null: no body read, none to read). */
async function expect503(response: Response, id: unknown = null): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(response.headers.get('content-type')).toBe('application/json');
  const body = (await response.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect(body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32000 } });
  expect(body.error.message).toMatch(/WASM memory is full/);
}

describe('WASM memory full', () => {
  it('the proxy answers 503 with Retry-After, forwards nothing, and serves again once memory is back', async () => {
    let posts = 0;
    const upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return void res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"qwen"}}\n\n');
        }
        posts++;
        const { id } = JSON.parse(body) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"jsonrpc":"2.0","id":${id},"result":{"text":"qwen"}}`);
      });
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const proxy = await runProxy({ upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`, port: 0, log: () => {} });
    cleanup.push(() => {
      for (const s of [upstream, proxy.server]) {
        s.closeAllConnections();
        s.close();
      }
    });
    const call = (id: number) =>
      fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo"}}`,
      });
    const ok = await call(1);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe(`{"jsonrpc":"2.0","id":1,"result":{"text":"${TOKEN}"}}`);
    // A client's event stream, open and idle (it holds no WASM memory).
    const events = await fetch(proxy.url, { headers: { accept: 'text/event-stream' } });
    const reader = events.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(TOKEN);

    const { held, filler } = fillMemory();
    await expect503(await call(2), 2);
    await expect503(await fetch(proxy.url, { headers: { accept: 'text/event-stream' } }));
    // A body read: each request answered under its id as written (a batch for a batch).
    const ids = ['12345678901234567890', '"1"', '1.0'];
    const batch = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `[${ids.map((id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo"}}`).join(',{"jsonrpc":"2.0","method":"notifications/x"},')}]`,
    });
    expect(batch.status).toBe(503);
    expect(batch.headers.get('connection')).toBe('close');
    const text = await batch.text();
    expect(text.startsWith('[')).toBe(true);
    expect([...text.matchAll(/"id":([^,]+),"error":\{"code":-32000,/g)].map((m) => m[1])).toEqual(ids);
    expect(text).not.toMatch(/null|notifications/);
    expect(posts).toBe(1); // (nothing forwarded whose answer could not be passed on)

    // The streams that hold memory go on; once they end, calls pass again.
    for (const t of held) t.push(bytes('en"}}\n'));
    free(...filler);
    const again = await call(3);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(`{"jsonrpc":"2.0","id":3,"result":{"text":"${TOKEN}"}}`);
    await reader.cancel();
  });

  it("the CLI's server answers a handler's WasmMemoryFullError with 503 (serve), other errors with 500", async () => {
    let fail: Error = new WasmMemoryFullError('mcp-payload-codec: WASM memory is full');
    const { server, url } = await listen(
      async () => {
        throw fail;
      },
      '127.0.0.1',
      0,
      () => {},
    );
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    await expect503(await fetch(`${url}/mcp`, { method: 'POST', body: '{}' }));
    fail = new Error('a bug');
    expect((await fetch(`${url}/mcp`, { method: 'POST', body: '{}' })).status).toBe(500);
  });
});
