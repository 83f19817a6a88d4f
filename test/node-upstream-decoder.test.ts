// An upstream body whose Content-Encoding does not decode (a corrupt gzip, say) fails the body,
// as fetch's does: its reader is told, not left waiting forever (with the connection and the
// client's answer held, and no idle timer running).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { openUpstream } from '../src/cli/node-upstream.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe('openUpstream, a body that does not decode', () => {
  it.each([
    ['gzip', Buffer.from('not gzip at all, plainly')],
    ['gzip, gzip', gzipSync(Buffer.from('gzipped once only'))],
  ])('Content-Encoding %s: the body fails', async (encoding, bytes) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': encoding });
      res.write(bytes); // (and the stream stays open: nothing else ends it)
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const opened = await openUpstream(url, new Headers(), new AbortController().signal);
    const outcome = await new Promise<string>((resolve) => {
      opened.source.start({ data: () => {}, end: () => resolve('end'), error: () => resolve('error') });
      setTimeout(() => resolve('nothing within 2 s'), 2000).unref();
    });
    expect(outcome).toBe('error');
  });
});
