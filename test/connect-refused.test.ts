// connect and a host line that is not UTF-8: never posted (decoding would have made it U+FFFD,
// silently); its requests are answered -32700 under their ids, its responses (answers to the
// server's requests) posted as that error, so neither side waits. Where it goes wrong is found
// by firstInvalidUtf8Byte, checked against the byte-by-byte reference.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runConnect } from '../src/cli/connect.ts';
import { firstInvalidUtf8Byte } from '../src/codec/invalid-utf8.ts';
import { runs } from './arbitraries.ts';
import { cpuMillis } from './scaling.ts';
import { firstBadByte } from './utf8-reference.ts';

describe('firstInvalidUtf8Byte', () => {
  /** Bytes that are valid UTF-8, stray high bytes, and sequences invalid or cut in every way. */
  const piece = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 8 }).map((s) => [...Buffer.from(s)]),
    fc.array(fc.integer({ min: 0x80, max: 0xff }), { maxLength: 3 }),
    fc.constantFrom([0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xf0, 0x9f, 0x98]),
  );

  it('agrees with the byte-by-byte reference', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const bytes = Uint8Array.from(pieces.flat());
        expect(firstInvalidUtf8Byte(bytes)).toBe(firstBadByte(bytes));
      }),
      runs(3000),
    );
  });

  it('agrees with the reference across its slices (small slices: every boundary case in short input)', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.integer({ min: 1, max: 9 }), (pieces, slice) => {
        const bytes = Uint8Array.from(pieces.flat());
        expect(firstInvalidUtf8Byte(bytes, slice)).toBe(firstBadByte(bytes));
      }),
      runs(3000),
    );
  });

  it('costs a few decodes of the line, not one per bisection step (16 MiB, bad near the end)', () => {
    const bytes = new Uint8Array(16 << 20).fill(0x61);
    bytes[bytes.length - 2] = 0xff;
    const decode = cpuMillis(() => new TextDecoder().decode(bytes));
    let found = -1;
    const search = cpuMillis(() => (found = firstInvalidUtf8Byte(bytes)));
    expect(found).toBe(bytes.length - 2);
    // (Bisection from the start decoded about 25 prefixes of up to 16 MiB: 4.5 s here.)
    expect(search).toBeLessThan(10 * decode + 50);
  });
});

describe('connect: a host line that is not UTF-8', () => {
  it('answers its requests, posts its responses as errors, posts nothing of it', async () => {
    const posted: unknown[] = [];
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      posted.push(body);
      const requests = (Array.isArray(body) ? body : [body]).filter((m) => m.method && m.id !== undefined);
      if (!requests.length) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      const answers = requests.map((m) => ({ jsonrpc: '2.0', id: m.id, result: { ok: true } }));
      res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const input = new PassThrough();
    const output = new PassThrough();
    const logs: string[] = [];
    const done = runConnect({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
      input,
      output,
      log: (l) => void logs.push(l),
    });
    const at: number[] = []; // where each bad line's 0xFF byte sits
    const bad = (m: unknown) => {
      const text = JSON.stringify(m);
      at.push(text.indexOf('AB') + 1);
      return Buffer.concat([Buffer.from(text.slice(0, at.at(-1))), Buffer.from([0xff]), Buffer.from(`${text.slice(at.at(-1))}\n`)]);
    };
    const why = (n: number) => `line ${n} from the host is not valid UTF-8 (at byte ${at[n - 1]}) and was not forwarded`;
    input.write(bad({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'w', arguments: { text: 'AB' } }, id: 1 }));
    input.write(bad({ jsonrpc: '2.0', id: 'srv-1', result: { content: [{ type: 'text', text: 'AB' }] } }));
    input.write(
      bad([
        { jsonrpc: '2.0', id: 2, method: 'ping', params: { x: 'AB' } },
        { jsonrpc: '2.0', method: 'notifications/x' },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ]),
    );
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' })}\n`);
    input.end();
    expect(await done).toBe(0);
    server.close();
    const out = output
      .read()
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l: string) => JSON.parse(l));
    const errorsOf = (m: { id: unknown; error?: { code: number; message: string } }) => [m.id, m.error?.code, m.error?.message];
    expect(out.filter((m: unknown) => !Array.isArray(m)).map(errorsOf)).toContainEqual([1, -32700, why(1)]);
    expect(out.filter(Array.isArray).map((b: { id: unknown; error?: { code: number } }[]) => b.map((m) => [m.id, m.error?.code]))).toEqual([
      [
        [2, -32700],
        [3, -32700],
      ],
    ]);
    expect(out.find((m: { id?: unknown }) => m.id === 4)?.result).toEqual({ ok: true });
    // The server got the error for its own request and the clean line; nothing of the bad ones.
    expect(posted).toEqual([
      { jsonrpc: '2.0', id: 'srv-1', error: { code: -32700, message: why(2) } },
      { jsonrpc: '2.0', id: 4, method: 'ping' },
    ]);
    expect(logs.filter((l) => l.startsWith('skipped'))).toHaveLength(3);
    expect(logs.join('\n')).not.toContain('AB');
  });
});
