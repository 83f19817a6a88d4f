// createFilteringProxy passes a large event on as it comes: one of 16 MiB, its `event: message`
// line before its data (as the MCP SDK writes it), from an upstream that makes it only as it is
// read. What the proxy holds (bytes the upstream made less bytes the client read; the text holds
// no term, so the output is the input) stays under a bound far below the event; the event comes
// out whole. Before, wholeEvents and the SSE framer each held it whole.
import { describe, expect, it } from 'vitest';
import { createFilteringProxy } from '../src/http/index.js';

const MiB = 1024 * 1024;

describe('proxy: one large event', () => {
  it('holds a bounded part of a 16 MiB event while it passes', async () => {
    const enc = new TextEncoder();
    const piece = enc.encode(JSON.stringify('plain words, 中文, and paths /a/b. '.repeat(2000)).slice(1, -1));
    const head = enc.encode('event: message\nid: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"');
    const tail = enc.encode('"}]}}\n\n');
    let made = 0; // bytes the upstream made
    let done = false;
    const upstream = () =>
      new ReadableStream<Uint8Array>(
        {
          pull(c) {
            if (done) return c.close();
            const next = made === 0 ? head : made < 16 * MiB ? piece : tail;
            c.enqueue(next.slice());
            made += next.length;
            done = next === tail;
          },
        },
        { highWaterMark: 0 },
      );
    const handler = createFilteringProxy({
      upstream: 'http://127.0.0.1:1/mcp',
      fetch: async () => new Response(upstream(), { headers: { 'content-type': 'text/event-stream' } }),
    });
    const res = await handler(new Request('http://localhost/mcp', { headers: { accept: 'text/event-stream' } }));
    let read = 0;
    let most = 0;
    let last: Uint8Array = new Uint8Array(0);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      read += chunk.length;
      most = Math.max(most, made - read);
      last = chunk;
    }
    expect(read).toBeGreaterThan(16 * MiB);
    expect(new TextDecoder().decode(last.subarray(-7))).toBe('"}]}}\n\n');
    expect(most).toBeLessThan(4 * MiB);
  });
});
