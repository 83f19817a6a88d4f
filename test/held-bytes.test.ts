// HeldBytes, the one way the streams hold bytes (the assembler, SSE events, Content-Length
// bodies): against a flat array, over pushes of any size across its chunk boundaries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeldBytes } from '../src/stream/held-bytes.ts';
import { runs } from './arbitraries.ts';

const concat = (parts: Uint8Array[]) => Buffer.concat(parts);
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
// Sizes around the 1 KiB first chunk and the 64 KiB chunks, and small ones.
const piece = fc.oneof(fc.nat(40), fc.integer({ min: 1000, max: 1100 }), fc.integer({ min: 65_000, max: 70_000 })).map((n) => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + n) & 0xff;
  return b;
});

describe('HeldBytes', () => {
  it('gives back exactly what was pushed: any range, read, drain, and after a reset', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.array(piece, { maxLength: 3 }), fc.nat(), fc.nat(), (first, second, x, y) => {
        const held = new HeldBytes();
        for (const rounds of [first, second]) {
          for (const p of rounds) held.push(p);
          const all = concat(rounds);
          expect(held.length).toBe(all.length);
          const [from, to] = [x % (all.length + 1), y % (all.length + 1)].sort((a, b) => a - b) as [number, number];
          const parts: Uint8Array[] = [];
          held.forEach(from, to, (v) => void parts.push(v.slice()));
          expect(same(concat(parts), all.subarray(from, to))).toBe(true);
          expect(same(held.read(from, to), all.subarray(from, to))).toBe(true);
          const drained: Uint8Array[] = [];
          held.drain((v) => void drained.push(v.slice()));
          expect(same(concat(drained), all)).toBe(true);
          expect(drained.every((v) => v.length > 0 && v.length <= 65_536)).toBe(true);
          expect(held.length).toBe(0);
        }
      }),
      runs(60),
    );
  });
});

describe('HeldBytes reusing its chunks', () => {
  it('shows no bytes of an earlier message after a reset or a drain, and never reuses chunks handed out', () => {
    const op = fc.oneof(
      { weight: 4, arbitrary: piece.map((p) => ({ push: p })) },
      { weight: 1, arbitrary: fc.constantFrom('reset', 'handed-out', 'drain') },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 16 }), fc.integer({ min: 1, max: 4 }), (ops, keep) => {
        const held = new HeldBytes(keep);
        let flat: Uint8Array[] = [];
        const handedOut: [Uint8Array, Uint8Array][] = []; // [view, its copy when handed out]
        for (const o of ops) {
          if (typeof o !== 'string') {
            held.push(o.push);
            flat.push(o.push);
          } else if (o === 'drain') {
            const drained: Uint8Array[] = [];
            held.drain((v) => void drained.push(v.slice()));
            expect(same(concat(drained), concat(flat))).toBe(true);
            flat = [];
          } else {
            if (o === 'handed-out') for (const v of held.range(0, held.length)) handedOut.push([v, v.slice()]);
            held.reset(o === 'handed-out');
            flat = [];
          }
          const all = concat(flat);
          expect(held.length).toBe(all.length);
          expect(same(held.read(0, all.length), all)).toBe(true);
        }
        for (const [v, copy] of handedOut) expect(same(v, copy)).toBe(true);
      }),
      runs(60),
    );
  });
});
