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
  for (const [mode, type] of [['encode', 'image'], ['decode', 'text']] as const) {
    it(`${mode}: a 64 MiB data value before its type (${type}) comes out in chunks of at most 1 MiB`, () => {
      const { sizes, sum, mismatch, inputLength } = feed(mode, type, 64 * MiB);
      expect(mismatch).toBe(-1);
      expect(sum).toBeGreaterThan(inputLength - 16); // all of it came out ("Qwen" changes length when encoding)
      expect(sizes.length).toBeGreaterThanOrEqual(64);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(MiB + 1024);
    });
  }
});
