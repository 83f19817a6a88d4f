// WASM memory is 4 GiB at most, and each open stream holds about 1 MB of it: a process that
// leaves thousands of streams open gets a clear error naming the cause (not V8's "Unable to
// grow instance memory"), the streams already open go on working, and memory given back by
// streams that end is used again.
import { describe, expect, it } from 'vitest';
import { createByteTransformer } from '../src/stream/index.ts';

describe('WASM memory full of open streams', () => {
  it('says so; open streams go on; ended streams make room again', () => {
    const message = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{"text":"secret qwen"}}\n');
    const outputs: string[] = [];
    const open: ReturnType<typeof createByteTransformer>[] = [];
    let error: unknown;
    try {
      for (let i = 0; i < 20_000; i++) {
        const t = createByteTransformer('encode', {}, (b) => {
          outputs[i] = (outputs[i] ?? '') + Buffer.from(b).toString('latin1');
        });
        t.push(message);
        open.push(t);
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toMatch(
      /^mcp-payload-codec: WASM memory is full \(\d+ bytes; \d+ more asked for\): each open stream holds about 1 MB/,
    );
    expect((error as Error).message).not.toMatch(/secret|qwen/);
    expect(open.length).toBeGreaterThan(1000);
    // The open ones still work, those at the top of memory (past 2 GiB) too: the same bytes.
    const once = outputs[0]!;
    expect(once).toContain('__mcp_ref_7177656e__');
    // A key that changes takes the per-message way (the lane takes the plain message).
    const keyed = new TextEncoder().encode('{"jsonrpc":"2.0","id":2,"result":{"qwen":"x"}}\n');
    let keyedOnce: string | undefined;
    for (const k of [0, open.length >> 1, open.length - 1]) {
      open[k]!.push(message);
      expect(outputs[k]).toBe(once + once);
      open[k]!.push(keyed);
      keyedOnce ??= outputs[k]!.slice(2 * once.length);
      expect(keyedOnce).toContain('"__mcp_ref_7177656e__":"x"');
      expect(outputs[k]).toBe(once + once + keyedOnce);
    }
    // The per-message way (no batch entries), in the block at the top that the last one gives back.
    open.pop()!.close();
    const perMessage: string[] = [];
    const top = createByteTransformer('encode', {}, (b) => void perMessage.push(Buffer.from(b).toString('latin1')), { lines: false });
    top.push(message);
    top.push(keyed);
    expect(perMessage.join('')).toBe(once + keyedOnce);
    top.close();
    // Content-Length/SSE batches (their own region, made at first use) at the top too.
    const event = new TextEncoder().encode(`event: message\ndata: ${new TextDecoder().decode(keyed).trim()}\n\n`);
    const sse = (t: string[]) => createByteTransformer('encode', { framing: 'sse' }, (b) => void t.push(Buffer.from(b).toString('latin1')));
    const high: string[] = [];
    const atTop = sse(high);
    atTop.push(event);
    atTop.close();
    // Streams that end give their blocks back: as many can be made again.
    for (const t of open.splice(0)) t.close();
    for (let i = 0; i < 1000; i++) createByteTransformer('encode', {}, () => {}).close();
    const low: string[] = [];
    const atBottom = sse(low);
    atBottom.push(event);
    atBottom.close();
    expect(high.join('')).toBe(low.join(''));
    expect(high.join('')).toContain('__mcp_ref_7177656e__');
  }, 120_000);
});
