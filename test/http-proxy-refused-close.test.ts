// A request the proxy refuses before reading its body (a Host or Origin it does not answer to:
// 403) is answered at once, its body dropped and the connection closed, as a 413 is: kept open,
// Node read whatever the client went on sending, up to its 300 s request limit. On real sockets,
// through the CLI's server (no Web objects) and through createFilteringProxy behind `listen`.
// A request with no body (a bodiless DELETE, a POST of Content-Length: 0) keeps its connection:
// closed, a request pipelined behind it was lost. The access layer's refusals and `serve`'s own
// (its handler behind `listen`, sessions never reached) follow the same rule.
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { runProxy } from '../src/cli/proxy.js';
import { ServeHandler } from '../src/cli/serve-handler.js';
import { ServeSessions } from '../src/cli/serve-sessions.js';
import { createFilteringProxy } from '../src/http/index.js';
import { createCodec } from '../src/index.js';
import { onLoopback } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** An upstream that must not be reached. */
async function upstream(reached: string[]): Promise<string> {
  const server = createServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.writeHead(500).end();
  });
  return onLoopback(server, cleanup);
}

async function direct(up: string): Promise<string> {
  const { server, url } = await runProxy({ upstream: up, port: 0, log: () => {} });
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return url;
}

async function web(up: string): Promise<string> {
  const { server, url } = await listen(createFilteringProxy({ upstream: up }), '127.0.0.1', 0, () => {});
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `${url}/mcp`;
}

const MIB = 1024 * 1024;

/** How the body's length is told: a Content-Length, or one chunk of that length. */
const FRAMINGS = {
  length: { field: `Content-Length: ${MIB}`, start: '' },
  chunked: { field: 'Transfer-Encoding: chunked', start: `${MIB.toString(16)}\r\n` },
};

/** A raw connection to `url`'s server; what it has been sent so far, as text. */
async function opened(url: string) {
  const { hostname, port, pathname } = new URL(url);
  const s = connect(Number(port), hostname);
  await once(s, 'connect');
  s.on('error', () => {});
  let seen = '';
  s.setEncoding('utf8');
  s.on('data', (d: string) => (seen += d));
  return { s, text: () => seen, pathname };
}

/**
 * POSTs a head declaring 1 MiB and sends a sixteenth of it; resolves with the answer's head and
 * whether the server ended the connection (with the body still unsent).
 */
async function partlySent(url: string, extra: string[], framing = FRAMINGS.length): Promise<{ head: string; ended: boolean }> {
  const { s, text, pathname } = await opened(url);
  const ended = once(s, 'end').then(() => true);
  s.write([`POST ${pathname} HTTP/1.1`, 'Content-Type: application/json', framing.field, ...extra, '', ''].join('\r\n'));
  s.write(framing.start + 'x'.repeat(64 * 1024));
  while (!text().includes('\r\n\r\n')) await once(s, 'data');
  const head = text().slice(0, text().indexOf('\r\n\r\n')).toLowerCase();
  if (!/\r\nconnection: close/.test(head)) {
    s.destroy(); // (kept open: the server would wait for the rest; failed here, not by a timeout)
    return { head, ended: false };
  }
  const result = { head, ended: await ended };
  s.destroy();
  return result;
}

/**
 * Writes `head` (a request with no body) and a GET pipelined behind it, both from `host` (by
 * default one the server refuses); resolves with the status lines answered before the server
 * ends or answers both.
 */
async function pipelined(url: string, head: readonly string[], host = 'evil.example'): Promise<string[]> {
  const { s, text, pathname } = await opened(url);
  let ended = false;
  s.once('end', () => (ended = true));
  const next = [`GET ${pathname} HTTP/1.1`, `Host: ${host}`, '', ''];
  s.write([...head.map((line) => line.replace('PATH', pathname)), `Host: ${host}`, '', '', ...next].join('\r\n'));
  const statuses = () => text().match(/^HTTP\/1\.1 \d{3}/gm) ?? [];
  while (!ended && statuses().length < 2) await Promise.race([once(s, 'data'), once(s, 'end')]);
  s.destroy();
  return statuses();
}

/** Requests with no body, for `pipelined`. */
const BODILESS = [
  ['a bodiless DELETE', ['DELETE PATH HTTP/1.1']],
  ['a POST of Content-Length: 0', ['POST PATH HTTP/1.1', 'Content-Type: application/json', 'Content-Length: 0']],
] as const;

describe.each([
  ['the CLI server', direct],
  ['createFilteringProxy', web],
])('a 403 before the body is read (%s)', (_, serve) => {
  it.each([
    ['a Host it does not answer to', ['Host: evil.example']],
    ['an Origin it does not allow', ['Host: 127.0.0.1', 'Origin: https://evil.example']],
  ])('%s: answered 403, the body dropped, the connection closed', async (__, extra) => {
    const reached: string[] = [];
    const url = await serve(await upstream(reached));
    const { head, ended } = await partlySent(url, extra);
    expect(head.split('\r\n')[0]).toBe('http/1.1 403 forbidden');
    expect(head).toMatch(/\r\nconnection: close(\r\n|$)/);
    expect(ended).toBe(true);
    expect(reached).toEqual([]);
  });

  it('a chunked body (no Content-Length): answered 403, the connection closed', async () => {
    const url = await serve(await upstream([]));
    const { head, ended } = await partlySent(url, ['Host: evil.example'], FRAMINGS.chunked);
    expect(head.split('\r\n')[0]).toBe('http/1.1 403 forbidden');
    expect(ended).toBe(true);
  });

  it.each(BODILESS)('%s: answered 403, the connection kept for the request pipelined behind it', async (__, head) => {
    const reached: string[] = [];
    const url = await serve(await upstream(reached));
    expect(await pipelined(url, head)).toEqual(['HTTP/1.1 403', 'HTTP/1.1 403']);
    expect(reached).toEqual([]);
  });

  it('a GET (no body to drop) keeps its connection', async () => {
    const reached: string[] = [];
    const url = await serve(await upstream(reached));
    const agent = new Agent({ keepAlive: true });
    cleanup.push(() => agent.destroy());
    const { status, connection } = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = request(url, { headers: { host: 'evil.example' }, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
    expect(connection).toBe('keep-alive');
    expect(reached).toEqual([]);
  });
});

describe("the access layer's refusals (createFilteringProxy with authorize)", () => {
  /** A proxy whose authorizer refuses every request (401); what it saw. */
  async function refusing(): Promise<string> {
    const authorize = () => new Response('sign in first', { status: 401 });
    const { server, url } = await listen(createFilteringProxy({ upstream: await upstream([]), authorize }), '127.0.0.1', 0, () => {});
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    return `${url}/mcp`;
  }

  it('a body follows: answered 401, the connection closed', async () => {
    const url = await refusing();
    for (const framing of [FRAMINGS.length, FRAMINGS.chunked]) {
      const { head, ended } = await partlySent(url, [`Host: ${new URL(url).host}`], framing);
      expect(head.split('\r\n')[0]).toBe('http/1.1 401 unauthorized');
      expect(ended).toBe(true);
    }
  });

  it.each(BODILESS)('%s: answered 401, the connection kept for the request pipelined behind it', async (__, head) => {
    const url = await refusing();
    expect(await pipelined(url, head, new URL(url).host)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 401']);
  });
});

describe("serve's own refusals before the body (its handler behind listen)", () => {
  /** serve's handler over a session table that must never make a session. */
  async function served(): Promise<string> {
    const sessions = new ServeSessions({
      maxSessions: 1,
      idleMs: 60_000,
      log: () => {},
      create: () => {
        throw new Error('no session may be made');
      },
    });
    const versions = { supported: ['2025-06-18'], fallback: '2025-03-26' };
    const handler = new ServeHandler({
      sessions,
      codec: createCodec(),
      codecOptions: {},
      maxMessageBytes: 4 * MIB,
      versions,
      log: () => {},
    });
    const { server, url } = await listen(handler.entry(undefined), '127.0.0.1', 0, () => {});
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    return `${url}/mcp`;
  }

  it.each([
    ['a Host it does not answer to: 403', ['Host: evil.example'], 'http/1.1 403 forbidden'],
    ['no Accept for both types: 406', ['Host: 127.0.0.1', 'Accept: application/json'], 'http/1.1 406 not acceptable'],
  ])('%s, a body following: the connection closed', async (__, extra, status) => {
    const url = await served();
    for (const framing of [FRAMINGS.length, FRAMINGS.chunked]) {
      const { head, ended } = await partlySent(url, extra, framing);
      expect(head.split('\r\n')[0]).toBe(status);
      expect(ended).toBe(true);
    }
  });

  it.each(BODILESS)('%s from a Host it does not answer to: 403, the request pipelined behind it answered', async (__, head) => {
    expect(await pipelined(await served(), head)).toEqual(['HTTP/1.1 403', 'HTTP/1.1 403']);
  });
});
