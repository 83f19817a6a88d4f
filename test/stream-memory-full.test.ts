// WASM memory is 4 GiB at most. Idle streams hold none of it; a stream reading a message in
// pieces holds a block (about 1 MB) until the message ends. When memory is full, the next block
// asked for gets a WasmMemoryFullError (a RangeError) naming the cause, not V8's "Unable to grow
// instance memory"; streams that hold their blocks go on, and blocks given back are used again.
// Reached in a moment: one range of address space (never touched) takes memory up to a few
// blocks short of 4 GiB, so every block after it lies past 2 GiB, where an address is over 2^31
// and must be read unsigned (a signed `>>` made every such index negative).
import { describe, expect, it } from 'vitest';
import { allocate, free, heapStats } from '../src/core/memory.ts';
import { WasmMemoryFullError } from '../src/errors.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import type { ByteTransformer, StreamOptions } from '../src/stream/index.ts';
import { bytes } from './stream-helpers.ts';

const GiB = 2 ** 30;
const TOKEN = '__mcp_ref_7177656e__'; // 'qwen'
const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');

function stream(mode: 'encode' | 'decode', options: StreamOptions, lines = true) {
  const out: string[] = [];
  const t = byteTransformer(mode, options, (b) => void out.push(latin1(b)), { lines });
  return { t, text: () => out.join('') };
}

describe('WASM memory full', () => {
  it('says so; streams that hold their blocks go on, at the top of memory; blocks given back are used again', () => {
    // Up to about 12 blocks short of the top (the first stream places the codec's tables first).
    const first = stream('encode', {});
    first.t.push(bytes('{"jsonrpc":"2.0","id":1,"result":"qwen"}\n'));
    expect(first.text()).toBe(`{"jsonrpc":"2.0","id":1,"result":"${TOKEN}"}\n`);
    const fillerSize = 4 * GiB - heapStats().top - 12 * 1024 * 1024;
    const filler = allocate(fillerSize);
    expect(filler + fillerSize).toBeGreaterThan(3.9 * GiB);
    // Streams in the middle of a message (a string cut by the push's end, read the per-message
    // way) until one cannot have a block; the first decoding a long token candidate.
    const head = '{"jsonrpc":"2.0","id":1,"result":{"text":"secret qwen';
    const decoding = stream('decode', {}, false);
    decoding.t.push(bytes('{"jsonrpc":"2.0","id":1,"result":{"text":"__mcp_ref_'));
    const open: ReturnType<typeof stream>[] = [];
    let error: unknown;
    try {
      for (let i = 0; i < 100; i++) {
        const s = stream('encode', {}, false);
        s.t.push(bytes(head));
        open.push(s);
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RangeError);
    expect(error).toBeInstanceOf(WasmMemoryFullError);
    expect((error as Error).message).toMatch(
      /^mcp-payload-codec: WASM memory is full \(\d+ bytes; \d+ more asked for\): each stream in the middle of a message read in pieces holds about 1 MB/,
    );
    expect((error as Error).message).not.toMatch(/secret|qwen/);
    expect(open.length).toBeGreaterThan(4);
    expect(open.length).toBeLessThan(12);
    expect(heapStats().top).toBeGreaterThan(4 * GiB - 16 * 1024 * 1024);
    // An idle stream given a message while none is left fails the same way, and so does one
    // whose string outgrows its windows (a value held that long: the user's limits bound it).
    expect(() => first.t.push(bytes('{"jsonrpc":"2.0","id":2,"result":"qwen"}\n'))).toThrow(WasmMemoryFullError);
    expect(() => decoding.t.push(bytes('7'.repeat(64 * 1024)))).toThrow(WasmMemoryFullError);

    // The open ones go on, at the top of memory: their messages end as they would anywhere.
    const rest = ' and qwen"}}\n';
    const whole = `{"jsonrpc":"2.0","id":1,"result":{"text":"secret ${TOKEN} and ${TOKEN}"}}\n`;
    for (const s of open.splice(0)) {
      s.t.push(bytes(rest));
      expect(s.text()).toBe(whole);
    }
    // Blocks given back (up to a few kept for the next taker, at the top) serve every path there:
    // the NDJSON lane, the per-message way (a key that changes), Content-Length and SSE batches,
    // a large message, decoding.
    const keyed = '{"jsonrpc":"2.0","id":2,"result":{"qwen":"x"}}';
    const keyedOut = `{"jsonrpc":"2.0","id":2,"result":{"${TOKEN}":"x"}}`;
    const large = `{"jsonrpc":"2.0","id":3,"result":{"text":"${'qwen '.repeat(8000)}"}}`;
    const largeOut = `{"jsonrpc":"2.0","id":3,"result":{"text":"${`${TOKEN} `.repeat(8000)}"}}`;
    const cases: [ByteTransformer, () => string, string, string][] = [];
    const add = (mode: 'encode' | 'decode', options: StreamOptions, input: string, expected: string, lines = true) => {
      const s = stream(mode, options, lines);
      cases.push([s.t, s.text, input, expected]);
    };
    add('encode', {}, `${keyed}\n${large}\n`, `${keyedOut}\n${largeOut}\n`);
    add('encode', {}, `${keyed}\n`, `${keyedOut}\n`, false);
    add(
      'encode',
      { framing: 'content-length' },
      `Content-Length: ${keyed.length}\r\n\r\n${keyed}`,
      `Content-Length: ${keyedOut.length}\r\n\r\n${keyedOut}`,
    );
    add('encode', { framing: 'sse' }, `event: message\ndata: ${keyed}\n\n`, `event: message\ndata: ${keyedOut}\n\n`);
    add('decode', { framing: 'sse' }, `event: message\ndata: ${keyedOut}\n\n`, `event: message\ndata: ${keyed}\n\n`);
    add('decode', {}, `${largeOut}\n`, `${large}\n`);
    for (const [t, text, input, expected] of cases) {
      t.push(bytes(input));
      t.close();
      expect(text()).toBe(expected);
    }

    // Room again: the same streams, low in memory, write the same bytes.
    free(filler, fillerSize);
    const low = stream('encode', { framing: 'sse' });
    low.t.push(bytes(`event: message\ndata: ${keyed}\n\n`));
    low.t.close();
    expect(low.text()).toBe(`event: message\ndata: ${keyedOut}\n\n`);
  });
});
