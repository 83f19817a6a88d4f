// WASM memory goes back: the allocator reuses what is freed, compiled codecs and their tables
// are bounded however many codecs a process makes, and a cancelled stream returns its block.
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHUNK_BYTES } from '../src/core/encode-string.ts';
import { core } from '../src/core/instance.ts';
import { allocate, free, heapStats, inputView, workspace } from '../src/core/memory.ts';
import { createCodec } from '../src/index.ts';
import { createDecodeStream, createEncodeStream } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes } from './stream-helpers.ts';

describe('the allocator', () => {
  it('never hands out overlapping ranges, and freeing everything gives the whole heap back', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 70_000 }), fc.nat()), { maxLength: 60 }), (ops) => {
        const before = heapStats();
        const live: [number, number][] = [];
        for (const [alloc, size, pick] of ops) {
          if (alloc || live.length === 0) {
            const ptr = allocate(size);
            expect(ptr % 16).toBe(0);
            for (const [p, n] of live) expect(ptr + size <= p || p + n <= ptr).toBe(true);
            live.push([ptr, size]);
          } else {
            const [[p, n]] = live.splice(pick % live.length, 1) as [[number, number]];
            free(p, n);
          }
        }
        for (const [p, n] of live.splice(0)) free(p, n);
        const after = heapStats();
        expect(after.top - after.free).toBe(before.top - before.free);
        expect(after.top).toBe(before.top); // (every free range that reaches the top lowers it)
      }),
      runs(300),
    );
  });

  it('reuses freed memory: the same sizes again do not grow the heap', () => {
    const sizes = [100, 5000, 65_536, 17, 300_000];
    const first = sizes.map((n) => allocate(n));
    const top = heapStats().top;
    for (const [i, n] of sizes.entries()) free(first[i]!, n);
    const again = [...sizes].reverse().map((n) => allocate(n));
    expect(heapStats().top).toBeLessThanOrEqual(top);
    for (const [i, n] of [...sizes].reverse().entries()) free(again[i]!, n);
  });

  it('a string encoded after the memory grows is written into the new memory (the cached input view)', () => {
    const codec = createCodec();
    const s = `${'the window of Qwen, '.repeat(20)}通义`;
    const want = codec.encodeText(s);
    expect(want).not.toBe(s);
    const grown = core.memory.buffer.byteLength;
    const n = grown - heapStats().top + 16; // (past the end: the memory must grow)
    const ptr = allocate(n);
    expect(core.memory.buffer.byteLength).toBeGreaterThan(grown);
    const ws = workspace(0, 0); // (the region encodeText used: it never shrinks)
    expect(inputView(ws, DEFAULT_CHUNK_BYTES).buffer).toBe(core.memory.buffer); // (checked first: a stale view would loop)
    expect(codec.encodeText(s)).toBe(want);
    free(ptr, n);
  }, 5000);
});

describe('memory stays flat', () => {
  // (Host code only: once is enough, on the SIMD project.)
  // (Compiling takes about 1.5 ms a codec here: npm test makes 2,000, npm run fuzz 10,000.)
  const CODECS = process.env.FUZZ_RUNS ? 10_000 : 2_000;
  it.runIf(process.env.MCP_PAYLOAD_CODEC_WASM !== 'scalar')(`${CODECS} codecs with distinct options, each used through the core`, () => {
    const long = 'Qwen at alibaba cloud, '.repeat(8); // longer than the short-string path
    const grownAt: number[] = [];
    for (let i = 0; i < CODECS; i++) {
      const codec = createCodec({ prefix: `__p${i.toString(36)}_`, terms: { ascii: ['qwen', 'alibaba'] } });
      const encoded = codec.encodeText(long);
      if (i % 997 === 0) expect(codec.decodeText(encoded)).toBe(long);
      if (i === 100 || i === CODECS - 1) grownAt.push(heapStats().top);
    }
    // (Blocks reused leave some fragments; kept tables would take megabytes.)
    expect(grownAt[1]! - grownAt[0]!).toBeLessThan(64 * 1024);
  });

  it.runIf(process.env.MCP_PAYLOAD_CODEC_WASM !== 'scalar')('the token cache holds none of the strings it decoded, nor long tokens', () => {
    // (A slot kept a slice of the string, which in V8 holds the whole string: 64 MB here.)
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const codec = createCodec();
    const hex = (s: string) => Buffer.from(s).toString('hex');
    const n = 1 << 20;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 64; i++) {
      // A message's string of 1 MiB (JSON.parse makes it flat) with one token of its own.
      const [s] = JSON.parse(`["${'x'.repeat(n)} __mcp_ref_${hex(`token ${i} of 64`)}__"]`) as [string];
      expect(codec.decodeValue(s)).toBe(`${'x'.repeat(n)} token ${i} of 64`);
    }
    for (let i = 0; i < 16; i++) expect(codec.decodeText(`__mcp_ref_${hex(`${i}`.padEnd(n / 4, 'y'))}__`).length).toBe(n / 4);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * n);
  });

  it('streams cancelled mid-message give their memory back', async () => {
    const half = bytes('{"jsonrpc":"2.0","id":1,"result":{"text":"Qwen ' + 'x'.repeat(5000));
    const sizeAfter: number[] = [];
    for (let i = 0; i < 3_000; i++) {
      const stream = i % 2 ? createEncodeStream() : createDecodeStream();
      const writer = stream.writable.getWriter();
      const reader = stream.readable.getReader();
      void writer.write(half).catch(() => {});
      await reader.cancel('client went away');
      if (i === 50 || i === 2_999) sizeAfter.push(heapStats().top);
    }
    expect(sizeAfter[1]).toBe(sizeAfter[0]);
    // and the next stream still works
    const ok = createEncodeStream();
    const w = ok.writable.getWriter();
    void w.write(bytes('{"jsonrpc":"2.0","id":1,"result":"qwen"}\n')).then(() => w.close());
    const out = await new Response(ok.readable).text();
    expect(out).toContain('__mcp_ref_7177656e__');
  });
});
