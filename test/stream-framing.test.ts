// Content-Length and SSE framing: byte counts, kept headers and fields, line endings, chunking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { createDecodeStream, createEncodeStream, PayloadStreamError } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, oneByteChunks, run, split, text } from './stream-helpers.ts';

const codec = createCodec();
const q = codec.encodeText('Qwen');

describe('Content-Length framing', () => {
  const frame = (body: string, extra = '') => `Content-Length: ${bytes(body).length}\r\n${extra}\r\n${body}`;

  it('recomputes Content-Length in bytes and keeps the other headers', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"result":{"text":"阿里巴巴 Qwen 中文"}}';
    const input = frame(body, 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n') + frame('{"id":2,"result":"clean"}');
    const out = text(await run(createEncodeStream({ framing: 'content-length' }), [bytes(input)]));
    const encoded = JSON.stringify(codec.encodeMessage(JSON.parse(body)));
    expect(out).toBe(frame(encoded, 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n') + frame('{"id":2,"result":"clean"}'));
    expect(out).toContain(`Content-Length: ${Buffer.byteLength(encoded)}\r\n`);
  });

  it('gives the same bytes for every split, and decodes back', async () => {
    const input = bytes(frame('{"result":{"app":"通义 Qwen","n":1}}') + frame('{"result":"😀 aliyun"}'));
    const whole = await run(createEncodeStream({ framing: 'content-length' }), [input]);
    for (let cut = 0; cut <= input.length; cut++) {
      expect(await run(createEncodeStream({ framing: 'content-length' }), split(input, [cut, cut + 3]))).toEqual(whole);
    }
    expect(await run(createDecodeStream({ framing: 'content-length' }), oneByteChunks(whole))).toEqual(input);
  });

  it('finds the end of long header blocks wherever it falls', async () => {
    const body = '{"result":"Qwen"}';
    const encoded = `{"result":"${q}"}`;
    for (let pad = 200; pad < 800; pad += 7) {
      for (const eol of ['\r\n', '\n']) {
        const head = (n: number) => `X-Pad: ${'p'.repeat(pad)}${eol}Content-Length: ${n}${eol}${eol}`;
        const out = text(
          await run(createEncodeStream({ framing: 'content-length' }), [
            bytes(head(bytes(body).length) + body + head(bytes(body).length) + body),
          ]),
        );
        expect(out).toBe(head(bytes(encoded).length) + encoded + head(bytes(encoded).length) + encoded);
      }
    }
  });

  it('keeps header case, spacing and LF-only header lines', async () => {
    const body = '{"result":"Qwen"}';
    const input = `content-length:${bytes(body).length}\nX-Trace: 1\n\n${body}`;
    const out = text(await run(createEncodeStream({ framing: 'content-length' }), [bytes(input)]));
    expect(out).toBe(`content-length:${bytes(`{"result":"${q}"}`).length}\nX-Trace: 1\n\n{"result":"${q}"}`);
  });

  it('errors when the body runs past the end of the stream, or a header is missing', async () => {
    const short = await run(createEncodeStream({ framing: 'content-length' }), [bytes('Content-Length: 50\r\n\r\n{"result":1}')]).catch(
      (e: unknown) => e,
    );
    expect(short).toBeInstanceOf(PayloadStreamError);
    expect((short as Error).message).toMatch(/Content-Length runs past the end of the stream .* in message 1 at byte 12/);
    // The offset is within the cut message's own body, even when none of it came after a message
    // read the per-message way (cut between chunks): it once said where that message ended.
    for (const [tail, at] of [
      ['Content-Length: 3\r\n\r\n', 0],
      ['Content-Length: 3\r\n\r\n[1', 2],
    ] as const) {
      const cut = await run(createEncodeStream({ framing: 'content-length' }), [
        bytes('Content-Length: 2\r\n\r\n{'),
        bytes(`}${tail}`),
      ]).catch((e: unknown) => e);
      expect((cut as Error).message).toMatch(new RegExp(`runs past the end of the stream .* in message 2 at byte ${at}$`));
    }
    const missing = await run(createEncodeStream({ framing: 'content-length' }), [bytes('X: 1\r\n\r\n{}')]).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/no valid Content-Length header in message 1/);
  });
});

describe('SSE framing', () => {
  it('transforms data, keeps id, event, retry, comments and every line ending', async () => {
    const input =
      ': keep-alive\n' +
      'id: 7\r\nevent: message\r\nretry: 1000\r\ndata: {"jsonrpc":"2.0","id":1,\r\ndata:"result":"Qwen"}\r\n\r\n' +
      'event: endpoint\rdata: /messages?session=Qwen\r\r' +
      'data: {"jsonrpc":"2.0","method":"n","params":{"x":"通义"}}\n\n';
    const out = text(await run(createEncodeStream({ framing: 'sse' }), [bytes(input)]));
    expect(out).toBe(
      ': keep-alive\n' +
        `id: 7\r\nevent: message\r\nretry: 1000\r\ndata: {"jsonrpc":"2.0","id":1,\r\ndata:"result":"${q}"}\r\n\r\n` +
        'event: endpoint\rdata: /messages?session=Qwen\r\r' +
        `data: {"jsonrpc":"2.0","method":"n","params":{"x":"${codec.encodeText('通义')}"}}\n\n`,
    );
    expect(await run(createDecodeStream({ framing: 'sse' }), [bytes(out)])).toEqual(bytes(input));
  });

  it('keeps a comment between data lines in its place', async () => {
    const input = 'data: {"result":\n: between\ndata: "Qwen"}\n\n';
    expect(text(await run(createEncodeStream({ framing: 'sse' }), [bytes(input)]))).toBe(`data: {"result":\n: between\ndata: "${q}"}\n\n`);
  });

  it('gives the same bytes however the input is split (CR and CRLF included)', async () => {
    const input = bytes('data: {"result":"阿里 Qwen"}\r\n\r\nid: 1\rdata: {"result":\rdata: ["dashscope"]}\r\r: c\n');
    const whole = await run(createEncodeStream({ framing: 'sse' }), [input]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(input.length), { maxLength: 8 }), async (cuts) => {
        expect(await run(createEncodeStream({ framing: 'sse' }), split(input, cuts))).toEqual(whole);
      }),
      runs(200),
    );
    expect(await run(createEncodeStream({ framing: 'sse' }), oneByteChunks(input))).toEqual(whole);
  });

  it('refuses data that is not JSON, naming the event', async () => {
    const e = await run(createEncodeStream({ framing: 'sse' }), [bytes('data: {"ok":1}\n\ndata: not json\n\n')]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PayloadStreamError);
    expect((e as PayloadStreamError).messageNumber).toBe(2);
  });
});

describe('framing around dropped messages and split line ends', () => {
  const colliding = '{"jsonrpc":"2.0","id":1,"params":{"qwen":1,"__mcp_ref_7177656e__":2}}';
  const ok = (id: number) => `{"jsonrpc":"2.0","id":${id},"params":{"a":"__mcp_ref_7177656e__"}}`;

  it('SSE: a dropped message takes its data lines with it; later events stay in step', async () => {
    const cut = colliding.indexOf('"params"'); // between two members: the joining '\n' is whitespace
    const input = `id: 1\ndata: ${colliding.slice(0, cut)}\ndata: ${colliding.slice(cut)}\n\ndata: ${ok(2)}\n\ndata: ${ok(3)}\n\n`;
    const out = text(await run(createDecodeStream({ framing: 'sse', onCollision: () => {} }), [bytes(input)]));
    const dec = (id: number) => `{"jsonrpc":"2.0","id":${id},"params":{"a":"qwen"}}`;
    expect(out).toBe(`id: 1\n\ndata: ${dec(2)}\n\ndata: ${dec(3)}\n\n`);
  });

  it('SSE: an empty chunk between CR and LF changes nothing', async () => {
    const chunks = [bytes('data: [1,\r'), new Uint8Array(0), bytes('\ndata: 2]\r\n\r\n')];
    expect(text(await run(createEncodeStream({ framing: 'sse' }), chunks))).toBe('data: [1,\r\ndata: 2]\r\n\r\n');
  });

  it('Content-Length: a dropped message writes no header at all', async () => {
    const frame = (b: string) => `Content-Length: ${bytes(b).length}\r\n\r\n${b}`;
    const out = text(
      await run(createDecodeStream({ framing: 'content-length', onCollision: () => {} }), [bytes(frame(colliding) + frame(ok(2)))]),
    );
    const dec = '{"jsonrpc":"2.0","id":2,"params":{"a":"qwen"}}';
    expect(out).toBe(frame(dec));
  });
});
