// `serve` and `proxy` started alike for the access tests, each in front of a real MCP server
// (serve: the SDK's stdio server test/fixtures/env-child.mjs behind the stdin spy; proxy: the
// SDK's Streamable HTTP server), with what that server received, so that a test can show what
// never reached it, on both commands with the same lines.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, vi } from 'vitest';
import { startUpstream } from './fixtures/http-upstream.js';
import { type Closer, cleanup, listening } from './http-cli-helpers.ts';

export const COMMANDS = ['serve', 'proxy'] as const;

const CONNECT_TIMEOUT = { timeout: 15_000 };
export type Command = (typeof COMMANDS)[number];

/** The stdio server `serve` runs (without the spy: its argv and environment are serve's doing only). */
export const ENV_CHILD = ['node', 'test/fixtures/env-child.mjs'];

export interface Behind {
  url: string;
  p: import('node:child_process').ChildProcess;
  stderr: () => string;
  /** Everything the server behind got: the bytes serve's children read, or the requests and Authorization headers the upstream got. */
  received: () => string;
  /** How much reached the server behind (bytes read by serve's children, requests at the upstream): unchanged means nothing did. */
  reached: () => number;
  /**
   * Once the last SDK client to connect has sent its own messages after connecting (proxy: its
   * GET stream; serve: notifications/initialized), so that nothing of it comes late, on a server
   * several cases share too.
   */
  settled: () => Promise<void>;
  /** The upstream's URL (proxy) or undefined. */
  upstream?: string;
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-access-commands-'));
let n = 0;

/** A new path in this run's scratch folder. */
export const scratchPath = (name: string) => join(dir, `${name}-${n++}`);

/** Starts `command` with `args` (serve: and its child) on a free port, `env` added; `close` takes their end (the test's, by default). */
export async function behind(
  command: Command,
  args: string[],
  env: Record<string, string> = {},
  close: Closer = cleanup.push,
): Promise<Behind> {
  if (command === 'proxy') {
    const up = await startUpstream('stateful');
    close(() => up.close());
    const run = await listening(['proxy', '--port', '0', '--upstream', up.url, ...args], env, close);
    return {
      ...run,
      upstream: up.url,
      received: () => JSON.stringify({ hits: up.hits, authorizations: up.authorizations, calls: up.calls }),
      reached: () => up.hits.length,
      settled: () =>
        vi.waitFor(
          () => expect(up.hits.slice(up.hits.findLastIndex((h) => h.rpc === 'initialize')).some((h) => h.method === 'GET')).toBe(true),
          { timeout: 5_000 },
        ),
    };
  }
  const spy = scratchPath('stdin');
  const run = await listening(
    ['serve', '--port', '0', ...args, '--', 'node', 'test/fixtures/stdin-spy.mjs', spy, ...ENV_CHILD],
    env,
    close,
  );
  const received = () => (existsSync(spy) ? readFileSync(spy, 'utf8') : '');
  // (the SDK client's notifications/initialized goes out after connect() resolves: wait for it)
  const settled = () =>
    vi
      .waitFor(() => expect(received().slice(received().lastIndexOf('"method":"initialize"'))).toContain('"notifications/initialized"'), {
        timeout: 5_000,
      })
      .then(() => {});
  return { ...run, received, reached: () => received().length, settled };
}

/** The real SDK client, connected to `url` (with `Authorization: Bearer token`, or `options`); `close` takes its end. */
export async function sdkClient(
  url: string,
  auth?: string | StreamableHTTPClientTransportOptions,
  close: Closer = cleanup.push,
): Promise<Client> {
  const c = new Client({ name: 'host', version: '1.0.0' });
  const options = typeof auth === 'string' ? { requestInit: { headers: { authorization: `Bearer ${auth}` } } } : auth;
  // (connecting starts serve's child: seconds on a loaded host, where a call then takes milliseconds)
  await c.connect(new StreamableHTTPClientTransport(new URL(url), options), CONNECT_TIMEOUT);
  close(() => c.close());
  return c;
}

/** A tool both servers have, to show a session works: its name and arguments. */
export const TOOL_OF: Record<Command, { name: string; arguments: Record<string, unknown> }> = {
  serve: { name: 'has_env', arguments: { name: 'HOME' } },
  proxy: { name: 'echo', arguments: { text: 'hello' } },
};

/**
 * A request whose body is begun and never finished (chunked: its headers and a first piece):
 * resolves with the answer's status and headers, which must come without the rest of the body,
 * and whether the server then closed the connection (rather than wait to read the rest).
 */
export function unfinishedPost(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; closed: boolean }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        res.resume();
        const answer = { status: res.statusCode!, headers: res.headers };
        // (the server's end of the connection, within a second of its answer, or not)
        const waited = setTimeout(() => done(false), 1_000);
        const done = (closed: boolean) => {
          clearTimeout(waited);
          resolve({ ...answer, closed });
          req.destroy();
        };
        req.socket!.once('end', () => done(true));
        req.socket!.once('close', () => done(true));
      },
    );
    req.on('error', (e) => reject(e));
    // (an answer that waits for the body never comes: fail in seconds, not at the test's timeout)
    req.setTimeout(5_000, () => {
      reject(new Error('no answer while the body was unfinished'));
      req.destroy();
    });
    req.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":'); // (and never the rest)
  });
}
