// Adversary for the held Content-Length frames (HeldFrame in src/stream/content-length-batch.ts: a
// frame cut by a chunk's end that the batch could take whole is copied aside until it ends).
// Content-Length writes nothing of a message before its body ends, so with the batch (and the
// carry) on, the stream must do exactly what it does with both off: same output, same callbacks in
// the same order between the same output, same error (code, message number, byte offset). Streams
// are cut where the carry decides things: inside the digits, inside the blank line, at a body's
// first and last byte, with empty chunks between, and in a buffer scribbled over after each push.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { createByteTransformer, createDecodeStream, createEncodeStream, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { countCalls } from './core-calls.ts';
import { backOffRuns, framedBody as body, cat, cutTrace, describeError, logText, pushCut, sized, traced } from './ndjson-scenarios.ts';
import { withoutStacks } from './no-stacks.ts';
import { expectBe, expectEqual } from './quick-expect.ts';
import { leastTimes } from './scaling.ts';
import { bytes, run } from './stream-helpers.ts';

const REGION = 16 * 1024; // the batch's region (FRAMED): bodies either side of it

// Header blocks: the length line, padding lines before or after (blocks of 1-1100 bytes and,
// rarely, past 64 KiB), and the refused: two lengths, none, a bare CR, mixed line endings.
const frame = fc.record({
  body,
  name: fc.constantFrom('Content-Length: ', 'content-length:', 'CONTENT-LENGTH \t:  '),
  delta: fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1) }),
  padBefore: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 1100 }) }),
  padAfter: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.integer({ min: 990, max: 1030 }) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 1100 }) },
    { weight: 1, arbitrary: fc.constant(64 * 1024 + 10) },
  ),
  refuse: fc.oneof(
    { weight: 12, arbitrary: fc.constant('none' as const) },
    { weight: 1, arbitrary: fc.constantFrom('two' as const, 'missing' as const, 'bareCR' as const, 'mixed' as const) },
  ),
  crlf: fc.boolean(),
});
type Frame = typeof frame extends fc.Arbitrary<infer F> ? F : never;

/** A frame's bytes, and the offsets in it where cuts matter. */
function renderFrame(f: Frame): { b: Uint8Array; marks: number[] } {
  const nl = f.crlf ? '\r\n' : '\n';
  const pad = (n: number) => `X-Pad: ${'p'.repeat(Math.max(0, n - 7))}${nl}`;
  const length = String(Math.max(0, f.body.length + f.delta));
  let lines = `${f.padBefore ? pad(f.padBefore) : ''}${f.name}${length}${nl}${f.padAfter ? pad(f.padAfter) : ''}`;
  if (f.refuse === 'two') lines += `Content-Length: ${length}${nl}`;
  if (f.refuse === 'missing') lines = lines.replace(/length/i, 'Lenght');
  if (f.refuse === 'bareCR') lines = `X-A: 1\r${lines}`;
  if (f.refuse === 'mixed') lines = lines.replace(nl, f.crlf ? '\n' : '\r\n') + `X-B: 2${nl}`;
  const header = bytes(lines + nl);
  const digits = lines.indexOf(length, lines.search(/length/i));
  const h = header.length;
  const bl = f.body.length;
  const marks = [0, 1, digits, digits + 1, digits + length.length, h - 3, h - 2, h - 1, h, h + 1, h + bl - 1, h + bl];
  return { b: cat(header, f.body), marks: marks.filter((m) => m >= 0 && m <= h + bl) };
}

const scenario = fc.record({
  mode: fc.constantFrom('encode' as const, 'decode' as const),
  frames: fc.array(frame, { minLength: 1, maxLength: 8 }),
  // maxMessageBytes: the default, tiny, or some body's size (one less, one more).
  limit: fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(1, 2, 40, REGION, REGION + 1) },
    { weight: 2, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(0, -1, 1)) },
  ),
  onInvalid: fc.constantFrom('none' as const, 'log' as const, 'throw' as const),
  onCollision: fc.constantFrom('none' as const, 'log' as const, 'throw' as const),
  // The stream may end early: inside a held header or body.
  cutEnd: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(2000) }),
  // Cuts at the marks (of random frames), at random, or every byte; empty chunks between.
  chunking: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ marks: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: -2, max: 2 })), { maxLength: 12 }) }),
    },
    { weight: 2, arbitrary: fc.record({ every: fc.constantFrom(1, 2, 3, 5, 64, 1000, 1025, 1029, 4096) }) },
    { weight: 1, arbitrary: fc.record({ random: fc.array(fc.nat(70000), { maxLength: 10 }) }) },
  ),
  empties: fc.boolean(),
  scribble: fc.boolean(),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

function render(s: Scenario): { input: Uint8Array; cuts: number[]; sizes: number[] } {
  const parts = s.frames.map(renderFrame);
  const starts: number[] = [];
  let at = 0;
  for (const p of parts) {
    starts.push(at);
    at += p.b.length;
  }
  let input = cat(...parts.map((p) => p.b));
  if (s.cutEnd) input = input.subarray(0, Math.max(0, input.length - s.cutEnd));
  const c = s.chunking;
  let cuts: number[];
  if ('every' in c) cuts = Array.from({ length: Math.ceil(input.length / c.every) }, (_, k) => k * c.every);
  else if ('random' in c) cuts = c.random;
  else
    cuts = c.marks.map(([f, m, d]) => {
      const p = parts[f % parts.length]!;
      return starts[f % parts.length]! + p.marks[m % p.marks.length]! + d;
    });
  cuts = [...new Set(cuts.map((x) => Math.max(0, Math.min(input.length, x))))].sort((a, b) => a - b);
  return { input, cuts, sizes: s.frames.map((f) => f.body.length) };
}

/** What a scribbled buffer is overwritten with: junk that reads as frames. */
const JUNK = bytes('Content-Length: 2\r\n\r\n{}\n\n');

/**
 * What a stream did: output between callbacks (logText), callbacks, and the error it threw; and
 * how many bytes it had written after each push that returned (a frame whose last byte came
 * is written in that push, held or not: a proxy must not wait for the next message).
 */
function trace(s: Scenario, batch: boolean): { log: unknown[]; written: number[] } {
  return withoutStacks(() => {
    const { input, cuts, sizes } = render(s);
    const log: unknown[] = [];
    const written: number[] = [];
    const { out, written: total, options } = traced('content-length', s, sizes, log);
    const t = byteTransformer(s.mode, options, out, { lines: batch });
    try {
      pushCut(s, input, cuts, JUNK, (c) => {
        t.push(c);
        written.push(total());
      });
      t.close();
    } catch (e) {
      log.push(['threw', ...describeError(e)]);
    }
    return { log, written };
  });
}

const transform = (mode: 'encode' | 'decode', options: StreamOptions, input: Uint8Array, batch: boolean, cuts: number[]) =>
  withoutStacks(() => cutTrace('content-length', mode, options, input, batch, cuts));

describe('held Content-Length frames (adversary)', () => {
  it("give back the next frame's start taken with a held header block, so it is held and batched too", () => {
    // Chunks that each end inside a blank line and hold the next frame's first bytes: a held
    // header block that ends inside a push must leave the next frame to the batch (and the carry).
    const json = '{"jsonrpc":"2.0","id":1,"result":"Qwen"}';
    for (const nl of ['\r\n', '\n']) {
      const one = `Content-Length: ${json.length}${nl}${nl}${json}`;
      const input = bytes(one.repeat(40));
      const h = one.indexOf(json);
      for (const back of [1, 2, nl.length * 2 - 1]) {
        // Cut just before each blank line ends; the next chunk runs into the frame after.
        const cuts = Array.from({ length: 40 }, (_, k) => k * one.length + h - back).filter((c) => c > 0);
        let on: unknown[] = [];
        const n = countCalls(() => {
          on = transform('encode', {}, input, true, cuts);
        });
        expectEqual(n, { perMessage: 0, taken: 40 });
        expectEqual(on, transform('encode', {}, input, false, cuts));
      }
    }
  });

  it('change no output, callback or error, however the stream is cut, scribbled over or ended', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const held = trace(s, true);
        const reference = trace(s, false);
        expectEqual(held.log, reference.log);
        // (A body's error may come a push later when its frame is held: compare up to the reference's.)
        expectEqual(held.written.slice(0, reference.written.length), reference.written);
      }),
      runs(300),
    );
  });

  it('agree with the per-message path for header blocks around 1 KiB and bodies around 16 KiB, cut at every byte near the ends', () => {
    for (const headerBytes of [1, 20, 1023, 1024, 1025, 1028, 1029]) {
      for (const bodyBytes of [0, 1, REGION - 1, REGION, REGION + 1]) {
        for (const crlf of [true, false]) {
          const nl = crlf ? '\r\n' : '\n';
          const line = `Content-Length: ${bodyBytes}${nl}`;
          // A padding line first, to make the block `headerBytes` long (a short one has none).
          const padLength = headerBytes - line.length - nl.length;
          const pad = padLength >= 8 ? `X-P: ${'p'.repeat(padLength - 5 - nl.length)}${nl}` : '';
          const header = bytes(`${pad}${line}${nl}`);
          const one = cat(header, sized(bodyBytes));
          const input = cat(one, one, bytes(`Content-Length: 2${nl}${nl}{}`));
          const h = header.length;
          // One cut near the header's end or the body's ends, and a second one a little later.
          for (const first of [h - 4, h - 3, h - 2, h - 1, h, h + 1, 1, 17, one.length - 1, one.length, one.length + h - 1]) {
            for (const gap of [1, 2, 5, 600]) {
              const cuts = [first, first + gap].filter((c) => c > 0 && c < input.length);
              for (const mode of ['encode', 'decode'] as const) {
                const options = { maxMessageBytes: Math.max(1, bodyBytes) };
                expectEqual(transform(mode, options, input, true, cuts), transform(mode, options, input, false, cuts));
              }
            }
          }
        }
      }
    }
  });

  it('report a stream that ends inside a held header block or body as the per-message path does', () => {
    const json = '{"jsonrpc":"2.0","id":1,"result":"Qwen"}';
    const frameText = `Content-Length: ${json.length}\r\nX-P: ${'p'.repeat(900)}\r\n\r\n${json}`;
    const input = bytes(frameText + frameText);
    const seen = new Set<string>();
    for (let end = frameText.length + 1; end < input.length; end += 7) {
      const cut = input.subarray(0, end);
      const cuts = [frameText.length + 3];
      const on = transform('encode', {}, cut, true, cuts);
      expectEqual(on, transform('encode', {}, cut, false, cuts));
      seen.add(JSON.stringify(on.slice(1)));
    }
    // (Both ways reached: inside the header block and inside the body.)
    expectBe(
      [...seen].some((e) => e.includes('inside a header block')),
      true,
    );
    expectBe(
      [...seen].some((e) => e.includes('runs past the end')),
      true,
    );
  });

  it('pass the same bytes and the same error through createEncodeStream / createDecodeStream', async () => {
    const json = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"qwen"}]}}';
    const good = `Content-Length: ${json.length}\r\nX-P: ${'p'.repeat(1000)}\r\n\r\n${json}`;
    const small = `Content-Length: ${json.length}\r\n\r\n${json}`;
    const bad = 'Content-Length: 9\r\n\r\n{"id":2}x';
    for (const tail of ['', bad]) {
      const input = bytes(good + small + good + small + tail);
      for (const size of [1, 3, 30, 1000]) {
        const chunks: Uint8Array[] = [];
        for (let at = 0; at < input.length; at += size) chunks.push(input.slice(at, at + size));
        const cuts = chunks.map((_, k) => k * size).slice(1);
        for (const [mode, make] of [
          ['encode', createEncodeStream],
          ['decode', createDecodeStream],
        ] as const) {
          const expected = transform(mode, {}, input, false, cuts);
          let got: unknown[];
          try {
            got = [logText(await run(make({ framing: 'content-length' }), chunks))];
          } catch (e) {
            got = ['', ['threw', ...describeError(e)]];
          }
          // (On an error the stream's output is not read: compare the error.)
          if (tail) expectEqual(got.slice(1), expected.slice(1));
          else expectEqual(got, expected);
        }
      }
    }
  });

  it('cost about what the per-message path costs for 1 KiB header blocks in small chunks (the held block is not searched again per push)', () => {
    const json = '{"jsonrpc":"2.0","id":1,"result":"Qwen"}';
    const one = `X-Pad: ${'p'.repeat(1000)}\r\nContent-Length: ${json.length}\r\n\r\n${json}`;
    const input = bytes(one.repeat(256)); // 270 KB, in 4-byte chunks
    const pushIn4s = (batch: boolean) => () => {
      const t = byteTransformer('encode', { framing: 'content-length' }, () => {}, { lines: batch });
      for (let at = 0; at < input.length; at += 4) t.push(input.subarray(at, at + 4));
      t.close();
    };
    // (The header block is capped at 1 KiB: compared with the per-message path, not grown 4x.)
    const { subject: held, reference } = leastTimes(pushIn4s(true), pushIn4s(false), 3, 5);
    // (Searching the whole held block per push: about 10x here.)
    expect(held).toBeLessThan(3 * reference + 5);
  });

  it("agree with the per-message path through the batch's back-off (runs of deferred bodies) between held frames", () => {
    const input = backOffRuns((json, k) => `Content-Length: ${json.length}\r\n${k % 3 ? '' : `X-K: ${'k'.repeat(k * 7)}\r\n`}\r\n${json}`);
    for (const size of [5, 64, 333, 4096])
      for (const mode of ['encode', 'decode'] as const) {
        const cuts = Array.from({ length: Math.ceil(input.length / size) }, (_, k) => k * size);
        expectEqual(transform(mode, {}, input, true, cuts), transform(mode, {}, input, false, cuts));
      }
  });

  it('report header blocks around 64 KiB as the per-message path does, in small chunks', () => {
    for (const blockBytes of [64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 64 * 1024 + 4, 64 * 1024 + 5]) {
      const line = 'Content-Length: 2\r\n';
      const header = `${line}X-P: ${'p'.repeat(blockBytes - line.length - 9)}\r\n\r\n`;
      expectBe(header.length, blockBytes);
      const input = bytes(`Content-Length: 2\r\n\r\n{}${header}{}`);
      for (const size of [1000, 4097]) {
        const cuts = Array.from({ length: Math.ceil(input.length / size) }, (_, k) => k * size);
        expectEqual(transform('encode', {}, input, true, cuts), transform('encode', {}, input, false, cuts));
      }
    }
  });

  it('refuse maxMessageBytes 0 and take limits of 1 and 2 as the per-message path does', () => {
    expect(() => createByteTransformer('encode', { framing: 'content-length', maxMessageBytes: 0 }, () => {})).toThrow(TypeError);
    const input = bytes('Content-Length: 2\r\n\r\n{}Content-Length: 1\n\n1Content-Length: 0\r\n\r\nContent-Length: 3\r\n\r\n[1]');
    for (const maxMessageBytes of [1, 2, 3])
      for (const onInvalidMessage of [undefined, () => {}])
        for (const size of [1, 2, 20, 22]) {
          const cuts = Array.from({ length: Math.ceil(input.length / size) }, (_, k) => k * size);
          const options = { maxMessageBytes, onInvalidMessage };
          expectEqual(transform('encode', options, input, true, cuts), transform('encode', options, input, false, cuts));
        }
  });
});
