// What consumers may do with the chunks a stream gives them: keep them, transfer their buffers
// (a byte stream's enqueue does), or run code that uses the library again while a message is
// half written; and what a transformer does after an error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { core } from '../src/core/instance.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import {
  type ByteTransformer,
  createByteTransformer,
  createDecodeStream,
  createEncodeStream,
  PayloadStreamError,
  type StreamOptions,
} from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, run } from './stream-helpers.ts';

/** Reads `stream` through a byte stream, whose enqueue transfers every chunk's buffer. */
async function throughByteStream(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const byteStream = new ReadableStream({
    type: 'bytes',
    async pull(c) {
      const { value, done } = await reader.read();
      if (done) c.close();
      else c.enqueue(value as Uint8Array<ArrayBuffer>);
    },
  });
  return new Uint8Array(await new Response(byteStream).arrayBuffer());
}

const source = (input: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(input);
      c.close();
    },
  });

describe('stream consumers', () => {
  const messages = Array.from(
    { length: 40 },
    (_, i) => `{"jsonrpc":"2.0","id":${i},"result":{"app":"Qwen ${i}","content":[{"data":"qwen","type":"text"}]}}`,
  );
  const cases: [string, StreamOptions, string][] = [
    ['ndjson', {}, messages.join('\n') + '\n'],
    // Two data lines per event: the pipe's output for one event holds a newline and is split.
    [
      'sse',
      { framing: 'sse' },
      messages
        .map((m) => m.split(',"result"'))
        .map(([a, b]) => `event: message\ndata: ${a}\ndata: ,"result"${b}\n\n`)
        .join(''),
    ],
    ['content-length', { framing: 'content-length' }, messages.map((m) => `Content-Length: ${bytes(m).length}\r\n\r\n${m}`).join('')],
  ];

  for (const [name, options, input] of cases) {
    it(`${name}: every chunk owns its buffer, so transferring one empties no other`, async () => {
      const expected = await run(createEncodeStream(options), [bytes(input)]);
      expect(await throughByteStream(source(bytes(input)).pipeThrough(createEncodeStream(options)))).toEqual(expected);
      const decoded = await throughByteStream(source(expected).pipeThrough(createDecodeStream(options)));
      expect(decoded).toEqual(await run(createDecodeStream(options), [expected]));
    });
  }

  it('survives a consumer that grows WASM memory while a message is being written', () => {
    // One push: a first message that fills the output batch to 10 bytes short of its 1 MiB
    // bound, then one whose `data` comes before its `type`. Writing the bytes before that
    // value overflows the batch, so the consumer runs while the core's output is still in use.
    const first = `{"result":"${'x'.repeat(1024 * 1024 - 10 - 1 - 14)}"}\n`;
    const input = bytes(first + '{"result":{"content":[{"data":"qwen says hi","type":"text"}]}}\n');
    const expected: Uint8Array[] = [];
    const plain = createByteTransformer('encode', {}, (b) => void expected.push(b));
    plain.push(input);
    plain.close();
    const memoryBefore = core.memory.buffer;
    const kept: ByteTransformer[] = [];
    const parts: Uint8Array[] = [];
    const t = createByteTransformer('encode', {}, (b) => {
      parts.push(b);
      // Streams in the middle of a message take new blocks: the memory grows under the writer
      // (it grows in steps, so as many as it takes).
      const buffer = core.memory.buffer;
      for (let i = 0; i < 4 || (core.memory.buffer === buffer && i < 5000); i++) {
        const open = byteTransformer('decode', {}, () => {}, { lines: false });
        open.push(bytes('{"result":"'));
        kept.push(open);
      }
    });
    t.push(input);
    t.close();
    expect(core.memory.buffer).not.toBe(memoryBefore);
    expect(Buffer.concat(parts)).toEqual(Buffer.concat(expected));
    for (const k of kept) k.release();
  });

  it('a transformer that failed gives its memory back and refuses further work', () => {
    // Without the release on error, these would hold a thousand blocks of WASM memory.
    for (let i = 0; i < 1000; i++) {
      const t = createByteTransformer('encode', {}, () => {});
      expect(() => t.push(bytes('{"result": x}\n'))).toThrow(PayloadStreamError);
      expect(() => t.push(bytes('{"result":1}\n'))).toThrow(/failed earlier/);
      expect(() => t.close()).toThrow(/failed earlier/);
    }
    const out: Uint8Array[] = [];
    const t = createByteTransformer('encode', {}, (b) => void out.push(b));
    t.push(bytes('{"result":"Qwen"}\n'));
    t.close();
    expect(Buffer.concat(out).toString()).toBe('{"result":"__mcp_ref_5177656e__"}\n');
  });

  it('gives one chunk per input chunk (up to 1 MiB), and what was made before an error', async () => {
    const small = Array.from(
      { length: 300 },
      (_, i) => `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${i},"message":"Qwen"}}\n`,
    ).join('');
    const chunks: Uint8Array[] = [];
    await source(bytes(small))
      .pipeThrough(createEncodeStream())
      .pipeTo(new WritableStream({ write: (c) => void chunks.push(c) }));
    expect(chunks.length).toBe(1);
    expect(Buffer.from(chunks[0]!).toString()).toBe(small.replaceAll('"Qwen"', '"__mcp_ref_5177656e__"'));

    const big = bytes(`{"result":"${'x'.repeat(3 * 1024 * 1024)}"}\n`);
    const sizes: number[] = [];
    const t = createByteTransformer('encode', {}, (b) => void sizes.push(b.length));
    t.push(big);
    t.close();
    expect(sizes.length).toBeGreaterThan(2);
    expect(Math.max(...sizes)).toBeLessThan(2 * 1024 * 1024);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(big.length);

    const out: Uint8Array[] = [];
    const failing = createByteTransformer('encode', {}, (b) => void out.push(b));
    expect(() => failing.push(bytes('{"result":"Qwen"}\n{"result":"ok"}\n{"result": x}\n'))).toThrow(PayloadStreamError);
    // (Output streams as it is made: the bad message's first bytes went out too.)
    expect(Buffer.concat(out).toString()).toMatch(/^\{"result":"__mcp_ref_5177656e__"\}\n\{"result":"ok"\}\n/);
  });

  it('does not make a queued chunk hold much more memory than its length', () => {
    const line = bytes('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"message":"Qwen"}}\n');
    const chunks: Uint8Array[] = [];
    const t = createByteTransformer('encode', {}, (b) => void chunks.push(b));
    for (let i = 0; i < 200; i++) t.push(line);
    t.push(bytes(`{"result":"${'x'.repeat(300_000)}"}\n`));
    for (let i = 0; i < 200; i++) t.push(line);
    t.close();
    for (const c of chunks) expect(c.buffer.byteLength).toBeLessThanOrEqual(Math.max(c.length * 1.25, c.length + 256));
  });

  it('never writes into a chunk it handed out (the output buffer is reused between pushes)', () => {
    // Pushes of any size, small ones most (wrap pushes a message at a time); every chunk is
    // compared with a copy taken when it was emitted, once all pushes are done.
    const line = fc.oneof(
      fc.constantFrom(
        '{"result":"Qwen"}',
        '{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"ali cloud"}}',
        '   ',
        '',
      ),
      fc.nat(100_000).map((n) => `{"result":"${'q'.repeat(n)}wen"}`),
    );
    fc.assert(
      fc.property(fc.array(fc.array(line, { maxLength: 4 }), { minLength: 1, maxLength: 12 }), (pushes) => {
        const kept: [Uint8Array, Uint8Array][] = [];
        const t = createByteTransformer('encode', {}, (b) => void kept.push([b, b.slice()]));
        for (const lines of pushes) t.push(bytes(lines.map((l) => `${l}\n`).join('')));
        t.close();
        // (Buffer.compare: toEqual walks 100 KB arrays element by element, far too slowly.)
        for (const [chunk, copy] of kept) expect(Buffer.compare(chunk, copy)).toBe(0);
      }),
      runs(40),
    );
  });

  it('runs onCollision after the messages before the dropped one went out', () => {
    const order: string[] = [];
    const t = createByteTransformer(
      'decode',
      { onCollision: (e) => void order.push(`dropped ${String(e.id)}`) },
      (b) => void order.push(Buffer.from(b).toString()),
    );
    t.push(
      bytes(
        '{"id":1,"params":{"a":"__mcp_ref_7177656e__"}}\n{"id":2,"params":{"qwen":1,"__mcp_ref_7177656e__":2}}\n{"id":3,"params":{}}\n',
      ),
    );
    t.close();
    expect(order).toEqual(['{"id":1,"params":{"a":"qwen"}}\n', 'dropped 2', '{"id":3,"params":{}}\n']);
  });
});
