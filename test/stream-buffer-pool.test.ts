// Streams lend their working buffers from one pool (src/stream/buffer-pool.ts: the output
// batch, the framed writer, held bytes, a streamed event's data block) and give them back when
// a push or a message ends. A buffer given back twice, or while its stream still reads it, or
// handed out as an output chunk and then lent again, would let two live streams write into the
// same bytes. Streams pushed in turn, and pushed from inside another's output callback (which
// lends buffers while the outer push holds its own), must write what each writes alone; and
// an idle stream holds nothing of the pool.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buffersLent, lendBuffer, returnBuffer } from '../src/stream/buffer-pool.ts';
import { type ByteTransformer, createByteTransformer, type Framing } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, split } from './stream-helpers.ts';

/** A message with a term and a string of `pad` bytes (long ones outgrow the first buffers). */
const json = (id: number, pad: number) => `{"jsonrpc":"2.0","id":${id},"result":{"text":"qwen ${'x'.repeat(pad)} Qwen"}}`;

/** Ways each framing writes a message: the batch's, and the per-line ones (held until its type, several data lines, CRLF). */
const WRITE: Record<Framing, ((j: string) => string)[]> = {
  sse: [
    (j) => `event: message\ndata: ${j}\n\n`,
    (j) => `data: ${j}\n\n`,
    (j) => `: ping\r\nevent: message\r\ndata: ${j.slice(0, 1)}\r\ndata: ${j.slice(1)}\r\nid: 7\r\n\r\n`,
    (j) => `data: ${j}\nevent: message\n\n`,
  ],
  'content-length': [(j) => `Content-Length: ${bytes(j).length}\r\n\r\n${j}`],
  ndjson: [(j) => `${j}\n`, (j) => `${j}\r\n`],
};

const streamSpec = fc.record({
  framing: fc.constantFrom<Framing>('sse', 'content-length', 'ndjson'),
  // (Now and then a message whose output passes the batch's 1 MiB: a lent buffer goes out as a chunk.)
  messages: fc.array(
    fc.record({
      pad: fc.oneof(
        { arbitrary: fc.nat(40), weight: 5 },
        { arbitrary: fc.nat(5000), weight: 5 },
        { arbitrary: fc.constant(1_100_000), weight: 1 },
      ),
      way: fc.nat(3),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  cuts: fc.array(fc.nat(12_000), { maxLength: 6 }),
});

interface Spec {
  framing: Framing;
  messages: { pad: number; way: number }[];
  cuts: number[];
}

const input = (s: Spec) => bytes(s.messages.map((m, i) => WRITE[s.framing][m.way % WRITE[s.framing].length]!(json(i + 1, m.pad))).join(''));

/** One stream alone: its output, chunks joined. */
function alone(s: Spec): string {
  const out: Uint8Array[] = [];
  const t = createByteTransformer('encode', { framing: s.framing }, (b) => void out.push(b));
  for (const c of split(input(s), s.cuts)) t.push(c);
  t.close();
  return Buffer.concat(out).toString('latin1');
}

describe('the buffer pool', () => {
  it('never lets two live streams share a buffer: streams in turn and nested write what each writes alone', () => {
    fc.assert(
      fc.property(
        fc.array(streamSpec, { minLength: 2, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 60 }),
        (specs, schedule) => {
          const lent = buffersLent();
          const chunks = specs.map((s) => split(input(s), s.cuts));
          const next = specs.map(() => 0);
          const outs: Uint8Array[][] = specs.map(() => []);
          const streams: ByteTransformer[] = [];
          const busy = specs.map(() => false);
          let turn = 0;
          /** Pushes stream i's next chunk, if any left (never into a stream inside its own push). */
          const step = (i: number) => {
            if (busy[i] || next[i]! >= chunks[i]!.length) return;
            busy[i] = true;
            streams[i]!.push(chunks[i]![next[i]!++]!);
            busy[i] = false;
          };
          specs.forEach((s, i) => {
            streams.push(
              createByteTransformer('encode', { framing: s.framing }, (b) => {
                // Another stream's push from inside this one's (it lends while this push holds
                // its buffers), before this chunk is read: each chunk owns its buffer.
                const [k, nest] = schedule[turn++ % Math.max(1, schedule.length)] ?? [0, false];
                if (nest) step(k % specs.length);
                outs[i]!.push(b);
              }),
            );
          });
          for (const [k] of schedule) step(k % specs.length);
          specs.forEach((_, i) => {
            while (next[i]! < chunks[i]!.length) step(i);
          });
          // Every message ended: the idle streams hold nothing of the pool.
          expect(buffersLent()).toBe(lent);
          for (const t of streams) t.close();
          specs.forEach((s, i) => {
            expect(Buffer.concat(outs[i]!).toString('latin1'), `stream ${i}`).toBe(alone(s));
          });
        },
      ),
      runs(120),
    );
  });

  it('an idle stream holds no buffer of the pool, whatever path its messages took', () => {
    const lent = buffersLent();
    const open: ByteTransformer[] = [];
    for (const framing of ['sse', 'content-length', 'ndjson'] as const)
      for (const write of WRITE[framing])
        for (const pad of [0, 3000, 70_000]) {
          const t = createByteTransformer('encode', { framing }, () => {});
          const whole = bytes(write(json(1, pad)));
          t.push(whole); // whole
          t.push(whole.subarray(0, 20)); // and cut: the rest in a later push
          t.push(whole.subarray(20));
          open.push(t);
          expect(buffersLent(), `${framing} ${JSON.stringify(write('J'))} ${pad}`).toBe(lent);
        }
    for (const t of open) t.close();
    expect(buffersLent()).toBe(lent);
  });

  it('keeps a buffer given back twice once: it is never lent to two at once', () => {
    const lent = buffersLent();
    const b = lendBuffer(3000);
    returnBuffer(b);
    returnBuffer(b);
    expect(buffersLent()).toBe(lent);
    const [x, y] = [lendBuffer(3000), lendBuffer(3000)];
    expect(x).not.toBe(y);
    returnBuffer(x);
    returnBuffer(y);
    expect(buffersLent()).toBe(lent);
  });
});
