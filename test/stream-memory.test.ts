// Held output goes out in bounded chunks: a `data` value held until its `type` is known (and,
// decoding, a whole message) is written as chunks of at most about 1 MiB, like everything else,
// never as one chunk of its own size. (Peak memory is measured by probe scripts and the
// benchmark, not here: RSS is too noisy for a test.)
import { describe, expect, it } from 'vitest';
import { createByteTransformer } from '../src/stream/index.ts';

const MiB = 1024 * 1024;
const enc = new TextEncoder();

/** Feeds a message whose 64 MiB `data` comes before its `type`, in 64 KiB chunks; returns the chunk sizes and a digest of the output. */
function feed(mode: 'encode' | 'decode', type: string, size: number) {
  const body = enc.encode('QUJD'.repeat(16 * 1024));
  const head = enc.encode('{"jsonrpc":"2.0","id":1,"result":{"content":[{"data":"');
  const tail = enc.encode(`","type":"${type}","note":"Qwen"}]}}\n`);
  const sizes: number[] = [];
  let sum = 0;
  let mismatch = -1;
  let at = 0; // output offset
  const expected = (k: number) => (k < head.length ? head[k]! : k < head.length + size ? body[(k - head.length) % body.length]! : -1);
  const t = createByteTransformer(mode, {}, (b) => {
    sizes.push(b.length);
    // The held part must come out unchanged (base64 text has no term and no token).
    for (let k = 0; k < b.length && at + k < head.length + size; k += 997) if (mismatch < 0 && b[k] !== expected(at + k)) mismatch = at + k;
    at += b.length;
    sum += b.length;
  });
  t.push(head);
  for (let sent = 0; sent < size; sent += body.length) t.push(body);
  t.push(tail);
  t.close();
  return { sizes, sum, mismatch, inputLength: head.length + size + tail.length };
}

describe('held output goes out in bounded chunks', () => {
  for (const [mode, type] of [
    ['encode', 'image'],
    ['decode', 'text'],
  ] as const) {
    it(`${mode}: a 64 MiB data value before its type (${type}) comes out in chunks of at most 1 MiB`, () => {
      const { sizes, sum, mismatch, inputLength } = feed(mode, type, 64 * MiB);
      expect(mismatch).toBe(-1);
      expect(sum).toBeGreaterThan(inputLength - 16); // all of it came out ("Qwen" changes length when encoding)
      expect(sizes.length).toBeGreaterThanOrEqual(64);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(MiB + 1024);
    });
  }
});

describe('held bytes across their 64 KiB chunks', () => {
  it('finds colliding keys, ids and deferred values wherever the chunk boundaries fall', async () => {
    const { createDecodeStream } = await import('../src/stream/index.ts');
    const { run, bytes, text } = await import('./stream-helpers.ts');
    const { createCodec } = await import('../src/index.ts');
    const codec = createCodec();
    for (let pad = 65_480; pad < 65_560; pad += 3) {
      // The keys (and the id after them) straddle the boundary for some of these pads.
      const bad = `{"jsonrpc":"2.0","params":{"p":"${'x'.repeat(pad)}","qwen":1,"__mcp_ref_7177656e__":2},"id":"r${pad}"}\n`;
      const e = await run(createDecodeStream(), [bytes(bad)]).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toMatchObject({ name: 'PayloadKeyCollisionError', id: `r${pad}` });
      const good = `{"jsonrpc":"2.0","params":{"p":"${'x'.repeat(pad)}","o":{"data":"__mcp_ref_7177656e__ ${'y'.repeat(pad % 97)}","type":"text"},"__mcp_ref_7177656e__":2},"id":"r${pad}"}\n`;
      const out = JSON.parse(text(await run(createDecodeStream(), [bytes(good)])));
      expect(out).toEqual(codec.decodeMessage(JSON.parse(good)));
    }
  });
});
