// What a receiver reads, every callback and every error (reason, message number, byte offset)
// do not depend on how a stream is cut: the same NDJSON stream fed whole, a byte at a time and
// cut at random gives the same trace as the receiver reads it (only the part of an invalid line
// written before its error may differ, and the receiver drops that line either way).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from './arbitraries.ts';
import { asReceived, oneInput, render, scenario, trace } from './ndjson-scenarios.ts';

describe('how a stream is cut', () => {
  it('changes nothing a receiver reads, nor any callback or error (NDJSON)', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = render(s);
        const cut = asReceived(trace(s, input, true));
        expect(asReceived(trace({ ...s, chunking: { cuts: [] } }, input, true))).toEqual(cut);
        expect(asReceived(trace({ ...s, chunking: { oneByte: true } }, input, true))).toEqual(cut);
      }),
      runs(150),
    );
  });

  it('reports an error inside the limit before the size, however a line over maxMessageBytes arrives', () => {
    // A control byte, bad UTF-8 or bad JSON before, at and after the limit, in a line over it.
    const limit = 40;
    for (const bad of ['\u0001', '\xff', 'x']) {
      for (let at = 0; at < 50; at++) {
        const text = '{"id":1,"result":"Qwen Qwen Qwen Qwen Qwen Qwen"}';
        const line = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bad, 'latin1'), Buffer.from(text.slice(at))]);
        const input = new Uint8Array(Buffer.concat([line, Buffer.from('\n{}\n')]));
        const s = oneInput(input, limit, true, { cuts: [] });
        const whole = asReceived(trace(s, input, true));
        // The error: the one the line has without a limit if it lies within the limit, else too-large at the limit.
        const firstError = (log: unknown[]) => log.find((e) => Array.isArray(e) && e[0] === 'invalid') as unknown[] | undefined;
        const free = firstError(trace({ ...s, limit: undefined }, input, true));
        const [code, offset] = free && (free[5] as number) < limit ? [free[3], free[5]] : ['too-large', limit];
        expect(firstError(whole)?.slice(3), `${JSON.stringify(bad)} at ${at}`).toEqual([code, 1, offset]);
        expect(asReceived(trace({ ...s, chunking: { oneByte: true } }, input, true)), `${JSON.stringify(bad)} at ${at}`).toEqual(whole);
        for (const c of [at, at + 1, limit, limit + 1])
          expect(asReceived(trace({ ...s, chunking: { cuts: [c] } }, input, true)), `${JSON.stringify(bad)} at ${at}, cut ${c}`).toEqual(
            whole,
          );
      }
    }
  });
});
