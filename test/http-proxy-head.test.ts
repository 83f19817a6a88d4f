// When `proxy`'s answer head goes to the client (cli/node-http.ts): with the body's first bytes,
// in one write, as a bare pass-through sends it, though the upstream flushed its head before its
// event; alone only if no bytes come within the wait (an event stream's head is never held
// until its first event). Real sockets; the client reads the raw bytes, so what arrives first
// is what was written first: the upstream sends its event only once the client has had bytes
// (or after a deadline), so a head written alone always arrives alone.

import { createServer } from 'node:http';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { listen, type ServeOptions } from '../src/cli/node-http.ts';
import { openUpstream } from '../src/cli/node-upstream.ts';
import { createFilteringProxy } from '../src/http/proxy.ts';
import { closer, onLoopback } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const EVENT = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
/** The client got its first bytes: the upstream may send its event. */
let release = () => {};

/** An upstream that flushes its head, then sends its event once released (or after `deadlineMs`). */
async function upstream(deadlineMs: number): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      const send = () => {
        clearTimeout(deadline);
        if (!res.writableEnded) res.end(EVENT);
      };
      const deadline = setTimeout(send, deadlineMs);
      release = send;
    });
  });
  return onLoopback(server, cleanup);
}

/** POSTs a call through a proxy served with `options` (its upstream's deadline `deadlineMs`); resolves with the raw chunks the client read, in order. */
async function chunksThrough(options: ServeOptions, deadlineMs: number): Promise<string[]> {
  const up = await upstream(deadlineMs);
  const handler = createFilteringProxy({ upstream: up, openStream: openUpstream });
  const { server, url } = await listen(handler, '127.0.0.1', 0, () => {}, options);
  cleanup.push(closer(server));
  const { port } = new URL(url);
  const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}';
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: string[] = [];
    socket.on('data', (d) => {
      chunks.push(d.toString('latin1'));
      release();
    });
    socket.on('close', () => resolve(chunks)); // (connection: close: the proxy ends it after the answer)
    socket.on('error', reject);
    socket.write(
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

describe('proxy: the head of an answer', () => {
  it('goes with the first event, in one write, when the upstream flushed its head before it', async () => {
    const chunks = await chunksThrough({ headWaitMs: 60_000 }, 200);
    expect(chunks[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(chunks[0]).toContain('data: {"jsonrpc":"2.0","id":1,"result":{}}');
  });

  it('goes alone when no event comes within the wait, before the event', async () => {
    const chunks = await chunksThrough({}, 10_000); // (the head is due after 20 ms)
    expect(chunks[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(chunks[0]).not.toContain('data:');
    expect(chunks.join('')).toContain('data: {"jsonrpc":"2.0","id":1,"result":{}}');
  });
});
