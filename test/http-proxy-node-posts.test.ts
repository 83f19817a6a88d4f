// `proxy` sends its endpoint's POSTs over node:http (cli/node-upstream.ts) and relays an event
// stream answer without Web streams (http/event-relay.ts). Held to the fetch path it replaces:
// the same handler without `openStream`, on the same server code. Over real sockets, for
// generated answers (event streams: terms, every line ending, comments and ids, events the
// encoder refuses, bodies cut inside an event; JSON bodies, valid or not), cut into any chunks,
// the client gets the same status and bytes and the proxy logs the same lines; the upstream gets
// the same request body and length.
import { createServer, request, type Server } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeText } from '../src/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { onLoopback } from './http-helpers.ts';
import { bothPaths, chunked, play, type Script } from './proxy-paths.ts';

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** What the upstream answers the next POST with. */
let script: Script = { type: 'text/event-stream', chunks: [], cut: false };
/** What the upstream was sent: each POST's body and Content-Length. */
const received: { body: string; length: string | undefined }[] = [];

/** POSTs `body` to `url` as an SDK client does; resolves with every byte it got and how the body ended. */
function post(url: string, body: string): Promise<{ status: number; type: string | undefined; body: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('close', () =>
        resolve({ status: res.statusCode!, type: res.headers['content-type'], body: Buffer.concat(parts), complete: res.complete }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const utf8 = new TextEncoder();
const END = fc.constantFrom('\n', '\r\n', '\r');

/** A message with a term in its text, or not JSON (refused). */
const aMessage = fc
  .record({ text: fragmentString(8), json: fc.boolean() })
  .map(({ text, json }) =>
    json
      ? JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } })
      : `{"jsonrpc":"2.0","id":1,"result":${text.replace(/[\r\n]/g, ' ')}`,
  );

/** One event: a message, any type, with the lines around it SSE allows. */
const anEvent = fc
  .record({
    data: aMessage,
    type: fc.constantFrom(undefined, 'message', 'other'),
    comment: fc.boolean(),
    id: fc.option(fc.nat(99)),
    end: END,
  })
  .map(({ data, type, comment, id, end }) => {
    const lines = [
      ...(comment ? [': keep-alive'] : []),
      ...(id !== null ? [`id: ${id}`] : []),
      ...(type ? [`event: ${type}`] : []),
      `data: ${data}`,
    ];
    return lines.map((l) => l + end).join('') + end;
  });

const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });
const cutAt = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 4 });

/** An answer: an event stream, or a JSON body (one message or a batch), cut into chunks. */
const anAnswer = fc.oneof(
  fc.record({ events: fc.array(anEvent, { minLength: 1, maxLength: 4 }), cuts, cutAt }).map(({ events, cuts, cutAt }) => ({
    type: 'text/event-stream',
    chunks: chunked(utf8.encode(events.join('')), cuts, cutAt),
    cut: cutAt !== null,
  })),
  fc
    .record({ messages: fc.array(aMessage, { minLength: 1, maxLength: 3 }), batch: fc.boolean(), cuts })
    .map(({ messages, batch, cuts }) => ({
      type: 'application/json',
      chunks: chunked(utf8.encode(batch ? `[${messages.join(',')}]` : messages[0]!), cuts, null),
      cut: false,
    })),
);

/** The client's POST: a tools/call (its argument holds a term, decoded on its way up), or a batch of two. */
const aRequest = fc.record({ text: fragmentString(6), batch: fc.boolean() }).map(({ text, batch }) => {
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: { q: encodeText(text) } } });
  return JSON.stringify(batch ? [call(1), call(2)] : call(1));
});

describe('proxy: POSTs over node:http', () => {
  let viaNode: string; // runProxy: openStream, an event stream relayed into the response
  let fetched: string; // the same handler and server without openStream: fetch and Web streams
  let logs: { node: string[]; fetched: string[] };
  let upstream: Server;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        received.push({ body: Buffer.concat(parts).toString(), length: req.headers['content-length'] });
        void play(res, script);
      });
    });
    const upstreamUrl = `${await onLoopback(upstream, cleanup)}/mcp`;
    ({ node: viaNode, fetched, logs } = await bothPaths(upstreamUrl, cleanup));
  });

  it('gives the client the bytes the fetch path gives, sends the upstream the same, and logs the same lines', async () => {
    // (a fixed case first: a term in an event, encoded on both)
    script = {
      type: 'text/event-stream',
      chunks: [utf8.encode('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"t":"qwen"}}\n\n')],
      cut: false,
    };
    const fixed = await post(viaNode, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}');
    expect(fixed.body.toString()).toContain(encodeText('qwen'));
    await fc.assert(
      fc.asyncProperty(anAnswer, aRequest, async (s, body) => {
        script = s;
        logs.node.length = logs.fetched.length = received.length = 0;
        const a = await post(viaNode, body);
        const b = await post(fetched, body);
        expect(a.status).toBe(b.status);
        expect(a.type).toBe(b.type);
        expect(a.complete).toBe(b.complete);
        expect(a.body.toString('latin1')).toBe(b.body.toString('latin1'));
        expect(logs.node).toEqual(logs.fetched);
        expect(received[0]).toEqual(received[1]);
      }),
      runs(40),
    );
  }, 90_000);
});

describe('proxy: a body with any method goes up framed', () => {
  it('sends a DELETE or OPTIONS body with its length, as fetch does, never as a request of its own', async () => {
    const seen: { method: string; url: string; length: string | undefined; body: string }[] = [];
    const upstream = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, length: req.headers['content-length'], body: Buffer.concat(parts).toString() });
        res.writeHead(204).end();
      });
    });
    const { node, fetched } = await bothPaths(await onLoopback(upstream, cleanup), cleanup);
    // (a body that node:http left unframed would reach the upstream as this request)
    const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: upstream\r\n\r\n';
    for (const method of ['DELETE', 'OPTIONS']) {
      const got: (typeof seen)[] = [];
      for (const url of [node, fetched]) {
        seen.length = 0;
        await new Promise<void>((resolve, reject) => {
          // (the length given: node:http sends a DELETE's body unframed, as it would have upstream)
          const headers = { 'mcp-session-id': 's1', 'content-length': String(smuggled.length) };
          const req = request(url, { method, headers, agent: false }, (res) => {
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', reject);
          req.end(smuggled);
        });
        await new Promise((r) => setTimeout(r, 50)); // (time for a request made of the body to arrive)
        got.push([...seen]);
      }
      expect(got[0]).toEqual([{ method, url: '/mcp', length: String(smuggled.length), body: smuggled }]);
      expect(got[0]).toEqual(got[1]);
    }
  });
});
