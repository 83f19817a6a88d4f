// The upstream agents (src/cli/upstream-agents.ts) give Node's keepSocketAlive the Keep-Alive
// hint alone instead of letting it build `res.headers` for every response: the hint is the one
// Node would read (repeats joined, any case), the agent still follows it (a hint too short to
// reuse the socket: a new connection; a longer one: the socket kept),
// and no response's head object is built on the way.
import { once } from 'node:events';
import { IncomingMessage } from 'node:http';
import { createServer, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openUpstream } from '../src/cli/node-upstream.js';
import { agents, keepAliveHint } from '../src/cli/upstream-agents.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** A raw upstream (no node:http parser in this process on its side) answering each request with `fields` and "ok". */
async function upstream(fields: string) {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    let seen = '';
    socket.on('data', (d) => {
      seen += d.toString('latin1');
      for (let end = seen.indexOf('\r\n\r\n'); end >= 0; end = seen.indexOf('\r\n\r\n')) {
        seen = seen.slice(end + 4); // (GETs: no body)
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n${fields}content-length: 2\r\n\r\nok`);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  const { port } = server.address() as { port: number };
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), sockets };
}

/** One GET through openUpstream, its body read to its end, and its socket given back to the agent (kept or not). */
async function call(url: URL) {
  const freed = once(agents['http:'], 'free'); // (after the agent's own listener, which asks keepSocketAlive)
  const opened = await openUpstream(url, new Headers(), new AbortController().signal);
  await new Promise<void>((resolve, reject) => opened.source.start({ data: () => {}, end: resolve, error: reject }));
  await freed;
}

describe('keepAliveHint', () => {
  it("is the Keep-Alive field as Node's res.headers holds it, for any raw head", () => {
    const name = fc.constantFrom('Keep-Alive', 'keep-alive', 'KEEP-ALIVE', 'Keep-Alivf', 'Keep-Alive-X', 'Content-Type', 'x');
    const value = fc.stringMatching(/^[a-z0-9=, ]{0,12}$/).map((v) => v.trim());
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 8 }), (pairs) => {
        const raw = pairs.flat();
        const node = new IncomingMessage(null as unknown as Socket);
        (node as unknown as { _addHeaderLines(raw: string[], n: number): void })._addHeaderLines(raw, raw.length); // (as Node's parser sets a head)
        expect(keepAliveHint(raw)).toBe(node.headers['keep-alive']);
      }),
    );
  });
});

describe('the upstream agent and the Keep-Alive hint', () => {
  it('a hint too short to reuse the socket: each call on a new connection', async () => {
    const { url, sockets } = await upstream('Keep-Alive: timeout=1\r\n');
    await call(url);
    await call(url);
    expect(sockets).toHaveLength(2);
  });

  it('a longer hint, repeated in any case: read from the first field, as Node joins them (one connection)', async () => {
    const { url, sockets } = await upstream('keep-ALIVE: timeout=30, max=5\r\nKeep-Alive: timeout=1\r\n');
    await call(url);
    await call(url);
    expect(sockets).toHaveLength(1);
  });

  it('a short hint first, a longer one after: a new connection each call', async () => {
    const { url, sockets } = await upstream('Keep-Alive: timeout=1\r\nkeep-alive: timeout=30\r\n');
    await call(url);
    await call(url);
    expect(sockets).toHaveLength(2);
  });

  it("a hint past the fields Node reads (its first 1000) is not followed: one connection, as with Node's own agent", async () => {
    // (Node's rawHeaders holds fields past its limit, up to 32 more; res.headers, which its agent reads, does not)
    const { url, sockets } = await upstream(`${'x-a: 1\r\n'.repeat(1000)}Keep-Alive: timeout=1\r\n`);
    await call(url);
    await call(url);
    expect(sockets).toHaveLength(1);
    const { url: within, sockets: kept } = await upstream(`${'x-a: 1\r\n'.repeat(998)}Keep-Alive: timeout=1\r\n`); // (field 1000)
    await call(within);
    await call(within);
    expect(kept).toHaveLength(2);
  });

  it("no response's head object is built by the agent (it read res.headers, a field at a time)", async () => {
    const { url } = await upstream('Keep-Alive: timeout=30\r\nx-a: 1\r\nx-b: 2\r\n');
    await call(url); // (warm: the socket made)
    const proto = IncomingMessage.prototype as unknown as { _addHeaderLine: (...a: unknown[]) => void };
    const own = proto._addHeaderLine;
    let built = 0;
    proto._addHeaderLine = function (...a: unknown[]) {
      built++;
      return own.apply(this, a);
    };
    try {
      await call(url);
      await call(url);
    } finally {
      proto._addHeaderLine = own;
    }
    expect(built).toBe(0);
  });
});
