// A client that leaves the proxy's CLI server (listenDirect: ClientLeft, the one-go relay) at
// any step of a POST lets the upstream go: before its head is whole and inside its body
// nothing is sent upstream; after the upstream answered (a whole JSON answer, a whole event
// stream, a large one, one that stays open) and while the answer is relayed, the upstream
// request is read to its end or destroyed. Over real sockets, the client's leaving timed by
// turns of the event loop around each step. Held upstream requests would add a connection each.
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { runProxy } from '../src/cli/proxy.js';
import { encodeText } from '../src/index.ts';
import { closer, onLoopback } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}';
const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"text":"qwen"}}';
const EVENT = `event: message\ndata: ${ANSWER}\n\n`;
const MODES = ['json', 'sse-whole', 'sse-big', 'sse-open'] as const;
type Mode = (typeof MODES)[number];
const STEPS = ['head', 'body', 'answered', 'relay'] as const;
type Step = (typeof STEPS)[number];

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** A server's open connections, once at most `most` (or 3 s have passed). */
async function settled(server: Server, most: number): Promise<number> {
  const count = () => new Promise<number>((r, j) => server.getConnections((e, n) => (e ? j(e) : r(n))));
  for (let t = 0; t < 300; t++) {
    const n = await count();
    if (n <= most) return n;
    await new Promise((r) => setTimeout(r, 10));
  }
  return count();
}

describe('proxy (CLI server): a client that leaves at any step', () => {
  it('lets the upstream request go, sending nothing up before its body is whole', async () => {
    let asked = 0;
    let answered: () => void = () => {};
    /** Writes `mode`'s answer; calls `done` once all of it is written (an open stream: its first event). */
    const answer = (mode: Mode, res: ServerResponse, done: () => void) => {
      if (mode === 'json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(ANSWER, done);
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (mode === 'sse-whole') return void res.end(EVENT, done);
      if (mode === 'sse-open') return void res.write(EVENT, done);
      res.end(`: ${'x'.repeat(1024)}\n\n`.repeat(256) + EVENT, done); // (past what a read holds whole)
    };
    const up = createServer((req, res) => {
      asked++;
      req.resume();
      req.on('end', () => answer(req.headers['x-mode'] as Mode, res, () => answered()));
    });
    const url = await onLoopback(up, cleanup);
    const proxy = await runProxy({ upstream: url, port: 0, log: () => {} });
    cleanup.push(closer(proxy.server));
    const port = Number(new URL(proxy.url).port);

    const leave = async (mode: Mode, step: Step, wait: number) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await once(socket, 'connect');
      const head =
        `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nx-mode: ${mode}\r\nContent-Length: ${BODY.length}\r\n\r\n`;
      const upstreamDone = new Promise<void>((r) => {
        answered = r;
      });
      if (step === 'head') socket.write(head.slice(0, head.length >> 1));
      else if (step === 'body') socket.write(head + BODY.slice(0, BODY.length >> 1));
      else {
        socket.write(head + BODY);
        await (step === 'answered' ? upstreamDone : once(socket, 'data'));
      }
      await turns(wait);
      socket.destroy();
    };

    for (const mode of MODES)
      for (const step of STEPS)
        for (let wait = 0; wait < 4; wait++) {
          const before = asked;
          await leave(mode, step, wait);
          if (step === 'head' || step === 'body') {
            await turns(4);
            expect(asked, `${mode} ${step} ${wait}`).toBe(before);
          }
        }

    // Every upstream request read to its end (its connection back in the pool) or let go: the
    // calls were one at a time, so the pool holds a connection or two; one held per call would
    // be dozens.
    expect(await settled(up, 2)).toBeLessThanOrEqual(2);
    expect(await settled(proxy.server, 0)).toBe(0);

    // And the proxy still answers.
    const ok = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-mode': 'json' },
      body: BODY,
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe(`{"jsonrpc":"2.0","id":1,"result":{"text":"${encodeText('qwen')}"}}`);
  }, 20_000);

  it("lets go the guard's question and a timed call when the client leaves while each waits", async () => {
    let phase: 'list' | 'call' = 'list';
    let waiting: (closed: { closed: Promise<unknown> }) => void = () => {};
    const up = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const { method, id } = JSON.parse(body) as { method: string; id: string };
        if (method === 'tools/list' && phase === 'call') {
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end(
            JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } }),
          );
        }
        waiting({ closed: once(req.socket, 'close') }); // (the question, or the call: never answered)
      });
    });
    const url = await onLoopback(up, cleanup);
    const proxy = await runProxy({ upstream: url, port: 0, log: () => {}, guard: 'tools', callTimeoutMs: 60_000 });
    cleanup.push(closer(proxy.server));
    const port = Number(new URL(proxy.url).port);
    for (const step of ['list', 'call'] as const) {
      phase = step;
      const held = new Promise<{ closed: Promise<unknown> }>((r) => {
        waiting = r;
      });
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          `Mcp-Session-Id: s-${step}\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
      );
      const { closed } = await held;
      socket.destroy();
      await closed; // (a hang fails the test at its timeout)
    }
    expect(await settled(up, 2)).toBeLessThanOrEqual(2);
  }, 10_000);
});
