// OutputBatch, where every stream's output gathers before it goes out: against the bytes added
// (views of one scratch buffer, overwritten after each add and by the consumer, as WASM memory
// may be), over adds of any size around its 1 MiB bound and flushes anywhere.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputBatch } from '../src/stream/batch.ts';
import { runs } from './arbitraries.ts';

const MiB = 1024 * 1024;
// Sizes: small pieces (most), ones around the 4 KiB first capacity and the 256 KiB kept bound,
// and some that cross the 1 MiB bound by themselves.
const size = fc.oneof(
  { weight: 6, arbitrary: fc.nat(300) },
  { weight: 2, arbitrary: fc.integer({ min: 4000, max: 4200 }) },
  { weight: 2, arbitrary: fc.integer({ min: 255 * 1024, max: 257 * 1024 }) },
  { weight: 1, arbitrary: fc.integer({ min: MiB - 100, max: MiB + 70_000 }) },
);
const op = fc.oneof(
  { weight: 4, arbitrary: size.map((n) => ({ add: n })) },
  { weight: 1, arbitrary: fc.constant({ flush: true }) },
  { weight: 1, arbitrary: fc.nat(2 * MiB).map((n) => ({ reserve: n })) }, // (a push's input size)
);

describe('OutputBatch', () => {
  it('hands out exactly what was added, one chunk per flush up to 1 MiB, each with a buffer of its own about its size, never written again', () => {
    const scratch = new Uint8Array(MiB + 70_000);
    fc.assert(
      fc.property(fc.array(op, { maxLength: 24 }), fc.nat(255), (ops, seed) => {
        const emitted: [Uint8Array, Uint8Array][] = []; // [chunk, its copy when emitted]
        const batch = new OutputBatch((b) => {
          emitted.push([b, b.slice()]);
          scratch.fill(0xdd); // (a consumer may run code that reuses the memory added from)
        });
        const added: Uint8Array[] = []; // copies of what was added
        let pending = 0; // bytes added since the last flush
        let fill = seed;
        const flush = () => {
          const before = emitted.length;
          batch.flush();
          // What gathered goes out as one chunk (more than 1 MiB went out in add already).
          expect(emitted.length - before).toBe(pending === 0 ? 0 : 1);
          pending = 0;
        };
        for (const o of ops) {
          if ('flush' in o) {
            flush();
            continue;
          }
          if ('reserve' in o) {
            batch.reserve(o.reserve);
            continue;
          }
          const view = scratch.subarray(0, o.add);
          for (let i = 0; i < view.length; i += 97) view[i] = fill++ & 0xff;
          added.push(view.slice());
          const before = emitted.length;
          batch.add(view);
          view.fill(0xee); // (the memory is reused: the batch must have copied it)
          // Full chunks go out while adding, exactly 1 MiB each.
          const full = Math.floor((pending + o.add) / MiB);
          expect(emitted.length - before).toBe(full);
          for (const [c] of emitted.slice(before)) expect(c.length).toBe(MiB);
          pending = (pending + o.add) % MiB;
        }
        flush();
        expect(Buffer.concat(emitted.map(([c]) => c)).equals(Buffer.concat(added))).toBe(true);
        const buffers = new Set<ArrayBufferLike>();
        for (const [c, copy] of emitted) {
          expect(c.length).toBeGreaterThan(0);
          expect(c.byteOffset).toBe(0);
          // A small chunk has a buffer of exactly its size; a large one at most a quarter more.
          if (c.length < 200_000) expect(c.buffer.byteLength).toBe(c.length);
          else expect(c.buffer.byteLength).toBeLessThanOrEqual(c.length * 1.25);
          buffers.add(c.buffer);
          expect(Buffer.compare(c, copy)).toBe(0); // (nothing wrote into a chunk after it went out)
        }
        expect(buffers.size).toBe(emitted.length);
      }),
      runs(40),
    );
  });
});
