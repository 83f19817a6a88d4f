// proxy, on real sockets: a request body that arrives in many reads, small ones (a byte each)
// among large ones, goes upstream as it was sent; small reads are copied together as they come
// (cli/node-http.ts), so a body trickled a byte a read holds about its own size, not a Buffer
// and a view per byte. Past maxMessageBytes it is refused (413) however it is cut.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runProxy } from '../src/cli/proxy.js';
import { onLoopback } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function proxyWith(maxMessageBytes: number) {
  const received: string[] = [];
  const upstream = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      received.push(Buffer.concat(parts).toString());
      res.writeHead(202).end();
    });
  });
  const proxy = await runProxy({ upstream: await onLoopback(upstream, cleanup), port: 0, log: () => {}, maxMessageBytes });
  cleanup.push(() => {
    proxy.server.closeAllConnections();
    proxy.server.close();
  });
  return { port: Number(new URL(proxy.url).port), received };
}

/** POSTs `body` chunked, one chunk per write in the given sizes, each written alone; the status line. */
async function trickle(port: number, body: string, sizes: number[]): Promise<string> {
  const s = connect(port, '127.0.0.1');
  s.setNoDelay(true);
  await once(s, 'connect');
  let answer = '';
  s.on('data', (d) => (answer += d));
  s.on('error', () => {});
  const closed = once(s, 'close');
  s.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n`,
  );
  let at = 0;
  for (let k = 0; at < body.length && !s.destroyed; k++) {
    const part = body.slice(at, at + sizes[k % sizes.length]!);
    at += part.length;
    s.write(`${part.length.toString(16)}\r\n${part}\r\n`);
    await new Promise((r) => setImmediate(r));
  }
  if (!s.destroyed) s.write('0\r\n\r\n'); // (not ended: a client's half-close aborts its request)
  await closed;
  return answer.split('\r\n')[0]!;
}

const message = (n: number) => {
  const head = '{"jsonrpc":"2.0","method":"notifications/x","params":{"t":"';
  const text = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
  return `${head}${text}"}}`;
};

describe('proxy: a request body in many reads', () => {
  it('goes upstream byte for byte, small reads among large ones, across the blocks they are copied into', async () => {
    const { port, received } = await proxyWith(1024 * 1024);
    const body = message(60_000);
    const status = await trickle(port, body, [1, 1, 3, 5000, 1, 2, 7, 20_000, ...Array(300).fill(1), 4095, 4096, 17]);
    expect(status).toBe('HTTP/1.1 202 Accepted');
    expect(received).toEqual([body]);
  }, 20_000);

  it('a body of one small read, then of small reads only: the same', async () => {
    const { port, received } = await proxyWith(1024 * 1024);
    const small = message(10);
    const many = message(40_000);
    expect(await trickle(port, small, [small.length])).toBe('HTTP/1.1 202 Accepted');
    expect(await trickle(port, many, [3, 1, 2000, 1])).toBe('HTTP/1.1 202 Accepted');
    expect(received).toEqual([small, many]);
  }, 20_000);

  it('past maxMessageBytes in small reads: 413, nothing goes upstream', async () => {
    const { port, received } = await proxyWith(1000);
    expect(await trickle(port, message(1100), [1, 2, 3])).toBe('HTTP/1.1 413 Payload Too Large');
    expect(received).toEqual([]);
  }, 20_000);
});
