// A successful GET on the endpoint is read as an event stream whatever its type (the SDK's client
// reads it so: http-get-framing.test.ts). An upstream that answers it with a JSON body, not
// events, sends one "event" that never ends: it must be bounded by maxMessageBytes as a POST's
// JSON answer is, not passed however long. Past the size an event goes on unheld (1 MiB), it
// used to pass unbounded (3 MiB under a 1.5 MiB bound). The bound is per event: a JSON-typed
// stream of whole events, more than the bound in all, passes. Through proxy's node:http relay
// and through the fetch path, over real sockets.
import { createServer, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringProxy } from '../src/http/index.js';
import { closer, onLoopback } from './http-helpers.ts';

const MAX = 1.5 * 1024 * 1024;
const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const message = (size: number) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(size) } });
/** The upstream's GET answers (application/json), by the query: one JSON message of 3 MiB, or 20 events of 100 KiB. */
const BODIES: Record<string, string> = {
  json: message(3 * 1024 * 1024),
  events: Array.from({ length: 20 }, () => `data: ${message(100 * 1024)}\n\n`).join(''),
};

const urls: Record<string, string> = {};
const logs: Record<string, string[]> = { node: [], fetched: [] };
beforeAll(async () => {
  const upstream = await onLoopback(
    createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(BODIES[new URL(req.url!, 'http://x').searchParams.get('body')!]);
    }),
    cleanup,
  );
  const a = await runProxy({ upstream, maxMessageBytes: MAX, log: (l) => void logs.node!.push(l) });
  cleanup.push(closer(a.server));
  urls.node = a.url;
  const b = await listen(
    createFilteringProxy({ upstream, maxMessageBytes: MAX, onLog: (l) => void logs.fetched!.push(l) }),
    '127.0.0.1',
    0,
    () => {},
  );
  cleanup.push(closer(b.server));
  urls.fetched = `${b.url}/mcp`;
});

/** GETs `url` as an SDK client does; resolves with the bytes it got. */
function get(url: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream' }, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => (bytes += d.length));
      res.on('close', () => resolve({ status: res.statusCode!, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(['node', 'fetched'] as const)('proxy (%s): a GET answered with JSON', (path) => {
  it('one JSON body past maxMessageBytes: refused there, at most the bound passes', async () => {
    const got = await get(`${urls[path]}?body=json`);
    expect(got.status).toBe(200);
    expect(got.bytes).toBeLessThanOrEqual(MAX);
    expect(logs[path]!.join('\n')).toMatch(
      /GET upstream response refused: EventTooLargeError: an event larger than maxMessageBytes \(1572864\)/,
    );
  });

  it('whole events, more than the bound in all: all pass', async () => {
    const got = await get(`${urls[path]}?body=events`);
    expect(got.bytes).toBe(BODIES.events!.length);
  });
});
