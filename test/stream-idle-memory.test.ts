// A stream between messages holds no WASM memory: its working block (state, stack, windows,
// events, output: about 1 MB) is taken per call or per message and given back
// (src/stream/work-pool.ts). An HTTP server keeps an event stream open per connected client,
// thousands of them, mostly idle: before, each held its block from creation to end, and about
// 3,900 open streams filled the 4 GiB, after which every other request failed.
import { describe, expect, it } from 'vitest';
import { heapStats } from '../src/core/memory.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import type { ByteTransformer, Framing } from '../src/stream/index.ts';
import { bytes } from './stream-helpers.ts';

const STREAMS = 20_000;
const TOKEN = '__mcp_ref_7177656e__'; // 'qwen'

/** A message in a framing (written by hand). */
function frame(framing: Framing, json: string): string {
  if (framing === 'sse') return `event: message\ndata: ${json}\n\n`;
  if (framing === 'content-length') return `Content-Length: ${bytes(json).length}\r\n\r\n${json}`;
  return `${json}\n`;
}

// Each way a message can be read: whole through the batch (lane, framed batch), cut by a
// push's end (held, or read in pieces the per-message way), a value deferred until its type (a
// nested transducer), and the per-message path alone (the batch off). Most are fed whole, as
// most are (a cut one makes the stream keep a buffer of JS memory for the next cut).
const plain = '{"jsonrpc":"2.0","id":1,"result":{"text":"qwen"}}';
const deferred = '{"jsonrpc":"2.0","id":2,"result":{"content":[{"data":"qwen","type":"text"}]}}';
const whole = { json: plain, cut: false, lines: true, expect: `{"jsonrpc":"2.0","id":1,"result":{"text":"${TOKEN}"}}` };
const KINDS: { json: string; cut: boolean; lines: boolean; expect: string }[] = [
  whole,
  whole,
  whole,
  whole,
  whole,
  { json: plain, cut: true, lines: true, expect: `{"jsonrpc":"2.0","id":1,"result":{"text":"${TOKEN}"}}` },
  { json: deferred, cut: true, lines: true, expect: `{"jsonrpc":"2.0","id":2,"result":{"content":[{"data":"${TOKEN}","type":"text"}]}}` },
  { json: plain, cut: true, lines: false, expect: `{"jsonrpc":"2.0","id":1,"result":{"text":"${TOKEN}"}}` },
];
const FRAMINGS: Framing[] = ['ndjson', 'sse', 'content-length'];

describe('idle streams hold no WASM memory', () => {
  it(`${STREAMS} streams, each fed a message and left open, take under 1 KiB of WASM memory each`, () => {
    const before = heapStats().top; // (memory grows in steps: what blocks took is the measure)
    const open: { t: ByteTransformer; out: string[]; input: string; expected: string }[] = [];
    const wrote = new Float64Array(STREAMS); // (bytes each wrote; what, for a sample below)
    for (let i = 0; i < STREAMS; i++) {
      const framing = FRAMINGS[i % FRAMINGS.length]!;
      const kind = KINDS[Math.floor(i / FRAMINGS.length) % KINDS.length]!;
      const out: string[] = [];
      const kept = i % 97 < KINDS.length * FRAMINGS.length || i >= STREAMS - 8; // (every kind and framing)
      const t = byteTransformer(
        'encode',
        { framing },
        (b) => {
          wrote[i]! += b.length;
          if (kept) out.push(Buffer.from(b).toString('latin1'));
        },
        { lines: kind.lines },
      );
      const input = frame(framing, kind.json);
      if (kind.cut) {
        t.push(bytes(input.slice(0, input.length - 12)));
        t.push(bytes(input.slice(input.length - 12)));
      } else t.push(bytes(input));
      open.push({ t, out, input, expected: frame(framing, kind.expect) });
    }
    const perStream = (heapStats().top - before) / STREAMS;
    expect(perStream).toBeLessThan(1024);
    // Every one wrote its message, and goes on: the last few and a sample of every kind get another.
    for (const [i, { out, expected }] of open.entries()) {
      if (wrote[i] !== expected.length) expect(wrote[i], `stream ${i}`).toBe(expected.length);
      if (out.length) expect(out.join('')).toBe(expected);
    }
    for (let k = 0; k < STREAMS; k += 97 * 7 + 1) {
      const { t, out, input, expected } = open[k]!;
      t.push(bytes(input));
      t.close();
      if (out.length) expect(out.join('')).toBe(expected + expected);
      expect(wrote[k]).toBe(2 * expected.length);
    }
    for (const { t } of open) t.release();
  });

  it('a stream in the middle of a message holds its block until the message ends', () => {
    // (A string cut by the push's end: the state and the windows must live until it ends.)
    const before = heapStats();
    const streams = Array.from({ length: 40 }, () => {
      const out: string[] = [];
      const t = byteTransformer('encode', {}, (b) => void out.push(Buffer.from(b).toString('latin1')), { lines: false });
      t.push(bytes('{"jsonrpc":"2.0","id":1,"result":{"text":"qw'));
      return { t, out };
    });
    const held = heapStats().top - before.top + before.free - heapStats().free;
    expect(held).toBeGreaterThan(40 * 256 * 1024);
    for (const { t, out } of streams) {
      t.push(bytes('en"}}\n'));
      expect(out.join('')).toBe(`{"jsonrpc":"2.0","id":1,"result":{"text":"${TOKEN}"}}\n`);
    }
    const after = heapStats();
    // All given back: what is in use again is what was (a few blocks kept for the next taker).
    expect(after.top - after.free - (before.top - before.free)).toBeLessThan(16 * 1024 * 1024);
    for (const { t } of streams) t.release();
  });
});
