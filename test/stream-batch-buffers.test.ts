// OutputBatch's chunks own their bytes whatever class of array the pool lends: here the pool
// lends Node Buffers (whose `slice` is a view), and a chunk handed out must not change when the
// pool lends its buffer again to the next push.
import { describe, expect, it, vi } from 'vitest';
import { OutputBatch } from '../src/stream/batch.ts';

vi.mock('../src/stream/buffer-pool.ts', async (original) => {
  const real = await original<typeof import('../src/stream/buffer-pool.ts')>();
  const asBuffer = (b: Uint8Array<ArrayBuffer>) => Buffer.from(b.buffer, b.byteOffset, b.length) as unknown as Uint8Array<ArrayBuffer>;
  return { ...real, lendBuffer: (n: number) => asBuffer(real.lendBuffer(n)) };
});

describe('OutputBatch over a pool that lends Buffers', () => {
  it('hands out chunks with buffers of their own: the next push through the same lent buffer leaves them as they were', () => {
    const emitted: Uint8Array[] = [];
    const batch = new OutputBatch((b) => void emitted.push(b));
    const pushes = [0x41, 0x42, 0x43].map((c, k) => new Uint8Array(100 + k).fill(c));
    for (const p of pushes) {
      batch.reserve(p.length);
      batch.add(p);
      batch.flush();
    }
    expect(emitted).toEqual(pushes);
    for (const c of emitted) expect(c.buffer.byteLength).toBe(c.length);
  });
});
