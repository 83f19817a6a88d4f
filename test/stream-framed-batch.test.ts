// The core's batch entry for host-framed messages (assembly/json/framed.ts, FramedBodies.take),
// as Content-Length and SSE use it, changes nothing but speed: with it on and off, random
// streams (valid and invalid bodies, blank and empty ones, token keys that collide when
// decoding, deferred `data`, `blob` and data: URIs, bodies longer than its region, limits at a
// body's size; Content-Length headers of every shape, refused ones too; SSE comments, ids, event
// types before and after the data, several data lines, bare `data` lines, LF, CR and CRLF, a BOM,
// a last event not ended) cut at random give the same output, the same callbacks in the same
// order between the same output, and the same error. And the batch does take the messages it
// may: a chunk of small framed messages costs no per-message call. And how a stream is cut
// changes nothing: whole, a byte at a time and at random, the same trace.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as abi from '../src/core/abi.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { FramedBodies } from '../src/stream/framed-bodies.ts';
import { createByteTransformer, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { countCalls } from './core-calls.ts';
import { broken, cat, colliding, describeError, outputAppender, overRegion, pushChunks, sseField, written } from './ndjson-scenarios.ts';
import { expectBe, expectEqual } from './quick-expect.ts';
import { bytes } from './stream-helpers.ts';

// A message body: mostly messages, and the unusual. (It may hold CR: writeJson's whitespace.)
const body = fc.oneof(
  { weight: 8, arbitrary: written },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', ' \r\n ').map(bytes) }, // blank or empty
  { weight: 2, arbitrary: broken },
  { weight: 2, arbitrary: colliding },
  { weight: 1, arbitrary: overRegion },
);

// ---- Content-Length frames ----
const clHeader = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('Content-Length: %', 'content-length:%', 'CONTENT-LENGTH \t: % ') },
  { weight: 2, arbitrary: fc.constantFrom('Content-Type: application/json\nContent-Length: %', 'Content-Length: %\nX-Id: 7') },
  // Refused or misread blocks: the stream ends there, or reads another length.
  {
    weight: 1,
    arbitrary: fc.constantFrom('Content-Length: %\nContent-Length: %', 'X-Other: 1', 'Content-Length: %+1', 'Content-Length: %-1'),
  },
);
const clFrame = fc.record({
  body,
  header: clHeader,
  crlf: fc.oneof({ weight: 5, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constant('mixed') }),
});
type ClFrame = typeof clFrame extends fc.Arbitrary<infer F> ? F : never;

function renderCl(f: ClFrame): Uint8Array {
  let header = f.header.replace(/%(\+1|-1)?/g, (_, d) => String(Math.max(0, f.body.length + (d === '+1' ? 1 : d === '-1' ? -1 : 0))));
  header += '\n\n';
  if (f.crlf === 'mixed') header = header.replace('\n', '\r\n');
  else if (f.crlf) header = header.replaceAll('\n', '\r\n');
  return cat(bytes(header), f.body);
}

// ---- SSE events ----
const sseEvent = fc.record({
  before: fc.array(sseField, { maxLength: 3 }),
  // The data: one line (mostly), none, or the body split into several lines.
  data: fc.oneof(
    { weight: 6, arbitrary: body.map((b): Uint8Array[] => [b]) },
    { weight: 1, arbitrary: fc.constant<Uint8Array[]>([]) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.tuple(body, fc.nat()).map(([b, x]): Uint8Array[] => [b.subarray(0, x % (b.length + 1)), b.subarray(x % (b.length + 1))]),
        body.map((b): Uint8Array[] => [b, new Uint8Array(0)]),
        fc.array(body, { minLength: 2, maxLength: 3 }) as fc.Arbitrary<Uint8Array[]>,
      ),
    },
  ),
  prefix: fc.constantFrom('data: ', 'data:', 'data:  ', 'data'),
  // CRs in the body are line ends in SSE: mostly kept out.
  keepCR: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  after: fc.array(sseField, { maxLength: 2 }),
  ending: fc.constantFrom('\n', '\n', '\r\n', '\r'),
  blanks: fc.constantFrom(1, 1, 1, 2),
});
type SseEvent = typeof sseEvent extends fc.Arbitrary<infer E> ? E : never;

function renderSse(e: SseEvent): Uint8Array {
  const end = bytes(e.ending);
  const line = (b: Uint8Array) => cat(b, end);
  const data = e.data.map((d) => {
    const clean = e.keepCR ? d : d.map((c) => (c === 0x0d || c === 0x0a ? 0x20 : c));
    // A bare `data` line holds no value: its body is dropped, as a producer would lose it.
    return line(e.prefix === 'data' ? bytes('data') : cat(bytes(e.prefix), clean));
  });
  return cat(
    ...e.before.map((f) => line(bytes(f))),
    ...data,
    ...e.after.map((f) => line(bytes(f))),
    ...Array.from({ length: e.blanks }, () => end),
  );
}

const common = {
  mode: fc.constantFrom('encode' as const, 'decode' as const),
  // maxMessageBytes: the default, small, or exactly some body's size (or one less, or one more).
  limit: fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(12, 40, 200) },
    { weight: 2, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(0, -1, 1)) },
  ),
  onInvalid: fc.boolean(),
  onCollision: fc.boolean(),
  cutLast: fc.nat(),
  // Chunks: cut at random, one byte each, or one reused buffer of a fixed size.
  chunking: fc.oneof(
    { weight: 4, arbitrary: fc.record({ cuts: fc.array(fc.nat(60000), { maxLength: 10 }) }) },
    { weight: 1, arbitrary: fc.constant({ oneByte: true as const }) },
    { weight: 1, arbitrary: fc.record({ reuse: fc.integer({ min: 8, max: 400 }) }) },
  ),
};
const scenario = fc.oneof(
  fc.record({ framing: fc.constant('content-length' as const), frames: fc.array(clFrame, { minLength: 1, maxLength: 10 }), ...common }),
  fc.record({
    framing: fc.constant('sse' as const),
    frames: fc.array(sseEvent, { minLength: 1, maxLength: 10 }),
    bom: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    lastEnded: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    ...common,
  }),
);
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

/** The stream's bytes, and the bodies (whose sizes the limit may be set to). */
function render(s: Scenario): { input: Uint8Array; sizes: number[] } {
  if (s.framing === 'content-length') return { input: cat(...s.frames.map(renderCl)), sizes: s.frames.map((f) => f.body.length) };
  let input = cat(...(s.bom ? [new Uint8Array([0xef, 0xbb, 0xbf])] : []), ...s.frames.map(renderSse));
  // A last event not ended: its blank line (and maybe more) cut off.
  if (!s.lastEnded) input = input.subarray(0, input.length - 1 - (s.cutLast % 3));
  const sizes = s.frames.flatMap((e) => (e.data.length === 1 ? [e.data[0]!.length] : []));
  return { input, sizes: sizes.length ? sizes : [1] };
}

/** What a stream did: output between callbacks (logText), callbacks, and the error it threw. */
function trace(s: Scenario, input: Uint8Array, sizes: number[], batch: boolean): unknown[] {
  const log: unknown[] = [];
  const out = outputAppender(log);
  const what = describeError;
  const maxMessageBytes = Array.isArray(s.limit) ? Math.max(1, sizes[s.limit[0] % sizes.length]! + s.limit[1]) : s.limit;
  const options: StreamOptions = {
    framing: s.framing,
    maxMessageBytes,
    onInvalidMessage: s.onInvalid ? (e) => void log.push(['invalid', ...what(e)]) : undefined,
    onCollision: s.onCollision ? (e) => void log.push(['dropped', ...what(e)]) : undefined,
  };
  const t = byteTransformer(s.mode, options, out, { lines: batch });
  try {
    pushChunks(s, input, (c) => t.push(c));
    t.close();
  } catch (e) {
    log.push(['threw', ...what(e)]);
  }
  return log;
}

const progress = (i: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: i, progress: i, message: `step ${i} of Qwen` },
  });

function transform(mode: 'encode' | 'decode', options: StreamOptions, input: Uint8Array, batch: boolean, size = input.length): Buffer {
  const chunks: Uint8Array[] = [];
  const t = byteTransformer(mode, options, (b) => void chunks.push(b.slice()), { lines: batch });
  for (let at = 0; at < input.length; at += size) t.push(input.slice(at, at + size));
  t.close();
  return Buffer.concat(chunks);
}

/**
 * Whole and cut anywhere (a frame or event cut by a chunk's end is held until it ends), each of
 * `count` messages is taken by the batch, none the per-message way, and the output is the same.
 */
function expectAllTaken(options: StreamOptions, input: Uint8Array, count: number): void {
  for (const mode of ['encode', 'decode'] as const) {
    for (const size of [input.length, 1, 37, 500]) {
      let on: Buffer = Buffer.alloc(0);
      const n = countCalls(() => {
        on = transform(mode, options, input, true, size);
      });
      expectBe(n.taken, count);
      expectBe(n.perMessage, 0);
      expectBe(on.equals(transform(mode, options, input, false)), true);
    }
  }
}

describe('the batch of host-framed messages (Content-Length, SSE)', () => {
  it('gives the same output, callbacks and error however the stream is cut: whole, a byte at a time, at random', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { input, sizes } = render(s);
        const cut = trace(s, input, sizes, true);
        expectEqual(trace({ ...s, chunking: { cuts: [] } }, input, sizes, true), cut);
        expectEqual(trace({ ...s, chunking: { oneByte: true } }, input, sizes, true), cut);
      }),
      runs(150),
    );
  });

  it('changes no output, callback or error: batch on and off agree on random streams cut at random', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { input, sizes } = render(s);
        expectEqual(trace(s, input, sizes, true), trace(s, input, sizes, false));
      }),
      runs(300),
    );
  });

  it('lays out the frame table: four u32 fields, apart, inside FRAME_SIZE', () => {
    const fields = [abi.F_OFFSET, abi.F_LENGTH, abi.F_OUT_END, abi.F_MESSAGE].sort((a, b) => a - b);
    for (const [k, at] of fields.entries()) {
      expectBe(at % 4, 0);
      expect(at + 4).toBeLessThanOrEqual(fields[k + 1] ?? abi.FRAME_SIZE);
    }
  });

  it('takes small Content-Length messages in the core, with no per-message call, however they are cut', () => {
    const frames: string[] = [];
    let longest = 0;
    for (let i = 1; i <= 60; i++) {
      const json = i % 10 === 0 ? ' ' : progress(i); // (a blank body is no message)
      longest = Math.max(longest, json.length);
      frames.push(`Content-Length: ${json.length}\r\n${i % 7 === 0 ? 'X-Seq: 1\r\n' : ''}\r\n${json}`);
    }
    frames.push('Content-Length: 0\n\n');
    const input = bytes(frames.join(''));
    expect(input.length).toBeLessThan(16 * 1024); // one batch
    const options: StreamOptions = { framing: 'content-length', maxMessageBytes: longest }; // the longest at the limit
    expectAllTaken(options, input, 61);
  });

  it('takes small SSE message events in the core, with no per-message call, however they are cut', () => {
    const events: string[] = [];
    let longest = 0;
    for (let i = 1; i <= 60; i++) {
      const json = progress(i);
      longest = Math.max(longest, json.length);
      const end = ['\n', '\r\n', '\r'][i % 3]!;
      const head = i % 4 === 0 ? `id: ${i}${end}event: message${end}` : i % 4 === 1 ? `: ping${end}${end}` : '';
      events.push(`${head}data: ${json}${end}${i % 5 === 0 ? `event:${end}` : ''}${end}`);
    }
    const input = bytes(events.join(''));
    expect(input.length).toBeLessThan(16 * 1024);
    const options: StreamOptions = { framing: 'sse', maxMessageBytes: longest };
    expectAllTaken(options, input, 60);
  });

  it('gathers up to FRAMES tiny messages per batch, in tables that grow from a few rows', () => {
    // (12-byte bodies: a batch's 16 KiB region would take 1,365, so its 1,024 rows are what bind.)
    const tiny = (i: number) => `{"r":"Q${String(i % 1000).padStart(3, '0')}"}`;
    const framings: [StreamOptions['framing'], (json: string) => string][] = [
      ['content-length', (json) => `Content-Length: ${json.length}\r\n\r\n${json}`],
      ['sse', (json) => `data: ${json}\n\n`],
    ];
    for (const [framing, frame] of framings) {
      const input = bytes(Array.from({ length: 3000 }, (_, i) => frame(tiny(i))).join(''));
      for (const mode of ['encode', 'decode'] as const) {
        let on: Buffer = Buffer.alloc(0);
        const n = countCalls(() => {
          on = transform(mode, { framing }, input, true);
        });
        expectEqual([framing, mode, n.taken, n.perMessage], [framing, mode, 3000, 0]);
        expectBe(on.equals(transform(mode, { framing }, input, false)), true);
      }
    }
  });

  it('reads an event too large for one batch from its start, after a batch of smaller ones', () => {
    // (The batch reads the large event's lines, finds it does not fit, and must read it again.)
    const big = `{"jsonrpc":"2.0","id":2,"result":"${'Qwen '.repeat(4000)}"}`;
    const small = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":"Qwen"}`;
    const input = bytes(`data: ${small(1)}\n\n: c\ndata: ${big}\n\ndata: ${small(3)}\n\n`);
    const on = transform('encode', { framing: 'sse' }, input, true);
    expect(on.toString()).not.toContain('Qwen');
    expectBe(on.equals(transform('encode', { framing: 'sse' }, input, false)), true);
  });

  it('backs off a run of messages it refuses, so each is not transformed twice', () => {
    // `data` before `type`: every message defers a value, which the batch leaves to the per-message path.
    const json = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"data":"aGk=","type":"image"}]}}';
    for (const [framing, frame] of [
      ['content-length', `Content-Length: ${json.length}\r\n\r\n${json}`],
      ['sse', `data: ${json}\n\n`],
    ] as const) {
      const input = bytes(frame.repeat(1000));
      const proto = FramedBodies.prototype;
      const { take: framed } = proto;
      let tried = 0;
      proto.take = function (...a) {
        tried++;
        return framed.apply(this, a);
      };
      let out = 0;
      try {
        const t = createByteTransformer('encode', { framing }, (b) => {
          out += b.length;
        });
        t.push(input);
        t.close();
      } finally {
        proto.take = framed;
      }
      expectBe(out, input.length);
      expect(tried).toBeLessThan(1000 / 64 + 10); // (without the backoff: 1000)
    }
  });

  it("holds a Content-Length frame cut by a chunk's end only while its header block fits, however long the block", () => {
    // Header blocks either side of what a held frame may have (1 KiB) and far past it, bodies at
    // and past the batch's region, cut at many sizes: the same output as without the batch.
    const json = progress(1);
    for (const pad of [0, 990, 1000, 1010, 1020, 5000]) {
      for (const bodyBytes of [json.length, 16 * 1024 - 1, 16 * 1024 + 1]) {
        const body = json + ' '.repeat(bodyBytes - json.length);
        const frame = `Content-Length: ${body.length}\r\n${pad ? `X-Pad: ${'p'.repeat(pad)}\r\n` : ''}\r\n${body}`;
        const input = bytes(frame + frame + frame);
        for (const size of [1, 7, 37, 500, 1029, 4096]) {
          const options: StreamOptions = { framing: 'content-length' };
          expectBe(transform('encode', options, input, true, size).equals(transform('encode', options, input, false)), true);
        }
      }
    }
  });

  it('refuses a header block past 64 KiB as the per-message way does, even one line of blanks', () => {
    // The usual one-line block read in one pass stops where the per-message way stops looking
    // for the blank line: 64 KiB and 4 bytes (a value padded with blanks was once taken whole).
    for (const blanks of [64 * 1024 - 40, 64 * 1024 - 16, 64 * 1024 - 15, 64 * 1024, 70_000]) {
      const input = bytes(`Content-Length:${' '.repeat(blanks)}2\r\n\r\n{}Content-Length: 2\r\n\r\n{}`);
      const options: StreamOptions = { framing: 'content-length' };
      const outcome = (batch: boolean, size?: number) => {
        try {
          return transform('encode', options, input, batch, size).length;
        } catch (e) {
          return (e as Error).message;
        }
      };
      const off = outcome(false);
      for (const size of [undefined, 4096]) expect(outcome(true, size)).toEqual(off);
    }
  });

  it('numbers messages after batched ones as the per-message path does, in errors', () => {
    const ok = '{"jsonrpc":"2.0","id":1,"result":"Qwen"}';
    const bad = '{"id":2}x';
    const cl = [ok, ' ', ok, '', ok, bad].map((b) => `Content-Length: ${b.length}\r\n\r\n${b}`).join('');
    const sse = `data: ${ok}\n\ndata:  \n\n: c\n\ndata: ${ok}\n\ndata:\n\nevent: message\ndata: ${ok}\n\ndata: ${bad}\n\n`;
    for (const [framing, input] of [
      ['content-length', cl],
      ['sse', sse],
    ] as const) {
      const seen: string[] = [];
      const t = createByteTransformer('encode', { framing, onInvalidMessage: (e) => void seen.push(e.message) }, () => {});
      t.push(bytes(input));
      t.close();
      expectEqual(seen, ['invalid JSON in message 4 at byte 8']);
    }
  });
});
