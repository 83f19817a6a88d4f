// openUpstream hands node:http its head as a list of fields, with the Host and Authorization
// node:http would add (node-upstream.ts fieldList): the upstream must get the bytes it got when
// the fields went as an object through setHeader, node:http's own way (the reference here),
// whatever the client's fields, the method, the body and the URL (IPv6, userinfo, port).
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openUpstream } from '../src/cli/node-upstream.js';
import { Fields } from '../src/http/proxy-headers.js';

/** A raw server: each request's bytes (head and body, by its Content-Length), answered with an empty 200. */
async function rawServer(host: string) {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let got = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      for (;;) {
        const end = got.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = got.subarray(0, end + 4).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (got.length < end + 4 + length) return;
        seen.push(got.subarray(0, end + 4 + length).toString('latin1'));
        got = got.subarray(end + 4 + length);
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
      }
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** node:http's own way, as openUpstream sent heads before: the fields as an object, Host and Authorization added by ClientRequest. */
function reference(url: URL, headers: Fields, method: string, body: Uint8Array | undefined, agent: Agent): Promise<void> {
  const sent: Record<string, string> = {};
  headers.forEach((value, name) => {
    sent[name] = value;
  });
  if (body) sent['content-length'] = String(body.byteLength);
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { protocol, hostname, port, path, ...(auth === undefined ? {} : { auth }), method, headers: sent, agent },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const drain = (opened: Awaited<ReturnType<typeof openUpstream>>) =>
  new Promise<void>((resolve, reject) => opened.source.start({ data: () => {}, end: resolve, error: reject }));

const field = fc.tuple(
  fc.constantFrom(
    'accept',
    'content-type',
    'mcp-session-id',
    'set-cookie',
    'host',
    'authorization',
    'x-a',
    '1x',
    '7',
    'cookie',
    'user-agent',
  ),
  fc.string({ unit: fc.constantFrom('v', ' ', ',', '=', ';', 'é', '/'), minLength: 1, maxLength: 8 }).map((v) => `v${v}v`),
);

describe('openUpstream: the head it sends', () => {
  let v4: Awaited<ReturnType<typeof rawServer>>;
  let v6: Awaited<ReturnType<typeof rawServer>>;
  beforeAll(async () => {
    v4 = await rawServer('127.0.0.1');
    v6 = await rawServer('::1');
  });
  afterAll(() => {
    v4.close();
    v6.close();
  });

  it("is node:http's own for any fields, method, body and URL", async () => {
    const agent = new Agent({ keepAlive: true });
    await fc.assert(
      fc.asyncProperty(
        fc.array(field, { maxLength: 6 }),
        fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        fc.option(fc.uint8Array({ maxLength: 5 }), { nil: undefined }),
        fc.constantFrom('v4', 'v4-auth', 'v6', 'v6-auth-query'),
        async (fields, method, body, where) => {
          const server = where.startsWith('v6') ? v6 : v4;
          const host = where.startsWith('v6') ? '[::1]' : '127.0.0.1';
          const auth = where.includes('auth') ? 'us%20er:p%40ss@' : '';
          const url = new URL(`http://${auth}${host}:${server.port}/pre/mcp${where.endsWith('query') ? '?a=1' : ''}`);
          const headers = new Fields();
          for (const [name, value] of fields) headers.append(name, value);
          server.seen.length = 0;
          await reference(url, headers, method, body, agent);
          await drain(await openUpstream(url, headers, new AbortController().signal, method, body));
          expect(server.seen).toHaveLength(2);
          expect(server.seen[1]).toBe(server.seen[0]);
        },
      ),
      { numRuns: 150 },
    );
    agent.destroy();
  });

  it("is node:http's own with a Content-Length among the fields (upstreamHeaders may set one): the body's, once", async () => {
    const agent = new Agent({ keepAlive: true });
    const url = new URL(`http://127.0.0.1:${v4.port}/mcp`);
    for (const [method, given] of [
      ['POST', '5'],
      ['DELETE', '5'],
      ['GET', '0'],
    ] as const) {
      const headers = new Fields();
      headers.append('content-length', given);
      headers.append('accept', 'application/json');
      const body = method === 'GET' ? undefined : new Uint8Array(5);
      v4.seen.length = 0;
      await reference(url, headers, method, body, agent);
      await drain(await openUpstream(url, headers, new AbortController().signal, method, body));
      expect(v4.seen).toHaveLength(2);
      expect(v4.seen[1]).toBe(v4.seen[0]);
    }
    agent.destroy();
  });
});
