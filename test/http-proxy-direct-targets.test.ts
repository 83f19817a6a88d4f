// The direct path (cli/node-http.ts listenDirect) parses a request's target once and keeps the
// URL while a client sends the same target again. Each server keeps its own: two servers in one
// process (two proxies, or tests) neither share URL objects nor evict each other's.
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { listenDirect } from '../src/cli/node-http.ts';
import { closer } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** A server whose handler records the URL each request was given, and answers 204. */
async function recording(): Promise<{ url: string; seen: URL[] }> {
  const seen: URL[] = [];
  const { server, url } = await listenDirect(
    async (r) => {
      seen.push(r.url);
      return { status: 204, statusText: '', headers: new Headers(), body: null };
    },
    '127.0.0.1',
    0,
    () => {},
  );
  cleanup.push(closer(server));
  return { url, seen };
}

const get = (url: string) =>
  new Promise<number>((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    })
      .on('error', reject)
      .end();
  });

describe('proxy, direct path: the last request target kept', () => {
  it('is kept per server: requests to another server with other targets leave it', async () => {
    const a = await recording();
    const b = await recording();
    for (const url of [`${a.url}/mcp?x=1`, `${b.url}/other`, `${a.url}/mcp?x=1`, `${b.url}/mcp?x=1`]) expect(await get(url)).toBe(204);
    expect(a.seen.map(String)).toEqual(['http://localhost/mcp?x=1', 'http://localhost/mcp?x=1']);
    expect(b.seen.map(String)).toEqual(['http://localhost/other', 'http://localhost/mcp?x=1']);
    expect(a.seen[1]).toBe(a.seen[0]); // (parsed once for this server, though b's target came between)
    expect(b.seen[1]).not.toBe(a.seen[0]); // (the same target on another server: its own URL)
  });
});
