// A push that is one whole SSE event (src/stream/sse-whole.ts: what an HTTP answer's stream
// gets) is read without the general framer, and must do what the general framer does with it:
// the same output, callbacks, error, and the same way through the core (the batch or the
// per-message way, with the batch's stepping aside). The references: the same pushes read by
// the general framer (the whole-event read turned off by a mock here: the shipped module has no
// switch), and the per-line way (the batch entries off).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import type { StreamOptions } from '../src/stream/index.ts';
import type { MessagePipe } from '../src/stream/pipe.ts';
import { sseFramer } from '../src/stream/sse.ts';
import { LineReader } from '../src/stream/sse-lines.ts';
import { runs } from './arbitraries.ts';
import { countCalls } from './core-calls.ts';
import { cat, describeError, framedBody, outputAppender, sseField } from './ndjson-scenarios.ts';
import { withoutStacks } from './no-stacks.ts';
import { expectBe, expectEqual } from './quick-expect.ts';
import { bytes } from './stream-helpers.ts';

/** Whether the whole-event read is on (the mock reads it at each push). */
const whole = { on: true };
vi.mock('../src/stream/sse-whole.ts', async (original) => {
  const real = await original<typeof import('../src/stream/sse-whole.ts')>();
  return { ...real, takeWhole: (...a: Parameters<typeof real.takeWhole>) => (whole.on ? real.takeWhole(...a) : 'general') };
});

// An event, mostly as the MCP SDK writes one (`event: message`, maybe `id:`, one data line), and
// the near misses: another type, several or no data lines, lines after the data, CR and CRLF,
// two blank lines, a CR last, a bare `data`, a BOM-like first byte, two events in a push, one cut.
const event = fc.record({
  before: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<string[]>(['event: message'], ['event: message', 'id: 7'], []) },
    { weight: 2, arbitrary: fc.array(sseField, { maxLength: 3 }).map((a): string[] => a) },
  ),
  data: fc.oneof({ weight: 6, arbitrary: framedBody.map((b) => [b]) }, { weight: 1, arbitrary: fc.array(framedBody, { maxLength: 2 }) }),
  prefix: fc.constantFrom('data: ', 'data: ', 'data:', 'data'),
  after: fc.oneof(
    { weight: 5, arbitrary: fc.constant<string[]>([]) },
    { weight: 1, arbitrary: fc.array(sseField, { maxLength: 2 }).map((a): string[] => a) },
  ),
  ending: fc.constantFrom('\n', '\n', '\r\n', '\r', 'mixed'),
  blanks: fc.constantFrom(1, 1, 1, 2),
  // How the push ends: whole, its last byte cut off, or with a BOM or junk before it.
  shape: fc.constantFrom('whole', 'whole', 'whole', 'whole', 'cut', 'bom', 'junk'),
});
type Event = typeof event extends fc.Arbitrary<infer E> ? E : never;

function render(e: Event): Uint8Array {
  let k = 0;
  const end = () => bytes(e.ending === 'mixed' ? ['\r\n', '\n', '\r'][k++ % 3]! : e.ending);
  const line = (b: Uint8Array) => cat(b, end());
  // (CR and LF in a body are line ends in SSE: kept out.)
  const data = e.data.map((d) =>
    line(
      e.prefix === 'data'
        ? bytes('data')
        : cat(
            bytes(e.prefix),
            d.map((c) => (c === 0x0d || c === 0x0a ? 0x20 : c)),
          ),
    ),
  );
  const b = cat(
    ...e.before.map((f) => line(bytes(f))),
    ...data,
    ...e.after.map((f) => line(bytes(f))),
    ...Array.from({ length: e.blanks }, end),
  );
  if (e.shape === 'cut') return b.subarray(0, b.length - 1);
  if (e.shape === 'bom') return cat(new Uint8Array([0xef, 0xbb, 0xbf]), b);
  if (e.shape === 'junk') return cat(new Uint8Array([0xef]), b);
  return b;
}

const scenario = fc.record({
  mode: fc.constantFrom('encode' as const, 'decode' as const),
  events: fc.array(event, { minLength: 1, maxLength: 6 }),
  // Two events in one push now and then.
  joins: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  // maxMessageBytes: the default, small, or some event's data size (or one less, or one more).
  limit: fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(1, 12, 200) },
    { weight: 2, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(0, -1, 1)) },
  ),
  onInvalid: fc.boolean(),
  onCollision: fc.boolean(),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

function pushes(s: Scenario): Uint8Array[] {
  const out: Uint8Array[] = [];
  s.events.forEach((e, k) => {
    const b = render(e);
    if (k > 0 && s.joins[k]) out[out.length - 1] = cat(out.at(-1)!, b);
    else out.push(b);
  });
  return out;
}

/** What a stream did with the pushes: output between callbacks, callbacks, its error; and which way its messages went. `wholeEvents` false: the general framer reads every push. */
function trace(s: Scenario, chunks: Uint8Array[], batch: boolean, wholeEvents = true) {
  return withoutStacks(() => {
    const log: unknown[] = [];
    const sizes = s.events.flatMap((e) => e.data.map((d) => d.length));
    const maxMessageBytes = Array.isArray(s.limit)
      ? Math.max(1, (sizes[s.limit[0] % Math.max(1, sizes.length)] ?? 1) + s.limit[1])
      : s.limit;
    const options: StreamOptions = {
      framing: 'sse',
      maxMessageBytes,
      onInvalidMessage: s.onInvalid ? (e) => void log.push(['invalid', ...describeError(e)]) : undefined,
      onCollision: s.onCollision ? (e) => void log.push(['dropped', ...describeError(e)]) : undefined,
    };
    whole.on = wholeEvents;
    try {
      const calls = countCalls(() => {
        const t = byteTransformer(s.mode, options, outputAppender(log), { lines: batch });
        try {
          for (const c of chunks) t.push(c);
          t.close();
        } catch (e) {
          log.push(['threw', ...describeError(e)]);
        }
      });
      return { log, calls };
    } finally {
      whole.on = true;
    }
  });
}

/** How many times the general framer began reading a chunk while `f` ran. */
function generalReads(f: () => void): number {
  const { begin } = LineReader.prototype;
  let n = 0;
  LineReader.prototype.begin = function (...a) {
    n++;
    return begin.apply(this, a);
  };
  try {
    f();
  } finally {
    LineReader.prototype.begin = begin;
  }
  return n;
}

describe('an SSE push that is one whole event', () => {
  it('does what the general framer does with it: output, callbacks, error, the way through the core', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const chunks = pushes(s);
        const whole = trace(s, chunks, true);
        const reference = trace(s, chunks, true, false);
        expectEqual(whole.log, reference.log);
        expectEqual(whole.calls, reference.calls);
        expectEqual(whole.log, trace(s, chunks, false).log);
      }),
      runs(300),
    );
  });

  it('ends where the general framer ends it: every short tail after the data line, and a head before it, then another push', () => {
    const tails: string[] = [''];
    for (let n = 0; n < 4; n++)
      for (const t of tails.filter((t) => t.length === n)) for (const c of ['\n', '\r', 'x', ':']) tails.push(t + c);
    const next = bytes('data: {"jsonrpc":"2.0","id":2,"result":"Qwen"}\n\n');
    const s: Scenario = { mode: 'encode', events: [], joins: [], limit: undefined, onInvalid: true, onCollision: false };
    const heads = ['', 'event: message\n', 'event: x\r\n', 'id: 1\revent:\r'].map(bytes);
    for (const head of [...heads, new Uint8Array([0xef])]) {
      for (const tail of tails) {
        const chunks = [cat(head, bytes(`data: {"jsonrpc":"2.0","id":1,"result":"qwen"}${tail}`)), next];
        const fast = trace(s, chunks, true);
        expectEqual(fast, trace(s, chunks, true, false));
        expectEqual(fast.log, trace(s, chunks, false).log);
      }
    }
  });

  it('ends where the general framer ends it: an event cut at every byte, under limits around its data', () => {
    const body = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Qwen here"}]}}';
    const events = [
      `event: message\nid: 1\ndata: ${body}\n\n`,
      `event: message\r\nid: 1\r\ndata: ${body}\r\n\r\n`,
      `: c\nretry: 5\nid\ndata:${body}\r\n\n`,
      `\ufeffevent: message\ndata: ${body}\n\n`,
      `data: ${body}\r\r\n`,
      `event: other\ndata: ${body}\n\n`,
      `\ndata: {}\n\n`, // (an event without data first)
      'event: message\ndata: {}\r\n\n', // (short data: limits below its line's other bytes)
    ].map(bytes);
    const next = bytes('data: {"jsonrpc":"2.0","id":2,"result":"qwen"}\n\n');
    for (const limit of [undefined, 2, 8, 9, body.length - 1, body.length, body.length + 8]) {
      // (trace takes any number as maxMessageBytes, not only the scenarios' few.)
      const s: Scenario = { mode: 'encode', events: [], joins: [], limit: limit as Scenario['limit'], onInvalid: true, onCollision: false };
      for (const e of events) {
        for (let cut = 0; cut <= e.length; cut++) {
          // (Cut, then the next event on its own, both in one push, and the event whole again.)
          const chunks = [e.subarray(0, cut), e.subarray(cut), next, cat(e, next), e];
          const fast = trace(s, chunks, true);
          expectEqual(fast, trace(s, chunks, true, false));
          expectEqual(fast.log, trace(s, chunks, false).log);
        }
      }
    }
  });

  it('is read without the general framer, through the batch, one push per event as the SDK writes them', () => {
    const events = [1, 2, 3].map((i) =>
      bytes(`event: message\nid: ${i}\ndata: {"jsonrpc":"2.0","id":${i},"result":{"content":[{"type":"text","text":"Qwen ${i}"}]}}\n\n`),
    );
    const s: Scenario = { mode: 'encode', events: [], joins: [], limit: undefined, onInvalid: false, onCollision: false };
    let fast: ReturnType<typeof trace> | undefined;
    expectBe(
      generalReads(() => (fast = trace(s, events, true))),
      0,
    );
    expectEqual(fast!.calls, { taken: 3, perMessage: 0 });
    expectEqual(fast!.log, trace(s, events, false).log);
    // A stream per event (an HTTP answer each), with CRLF endings: the same.
    for (const e of events) {
      const crlf = bytes(Buffer.from(e).toString().replaceAll('\n', '\r\n'));
      expectBe(
        generalReads(() => (fast = trace(s, [crlf], true))),
        0,
      );
      expectEqual(fast!.calls, { taken: 1, perMessage: 0 });
    }
    // Lines after the data (an `id:` or a comment) are the batch's too (one event reader for both).
    const after = bytes('event: message\ndata: {"jsonrpc":"2.0","id":4,"result":{}}\nid: 4\n: kept\n\n');
    expectBe(
      generalReads(() => (fast = trace(s, [after], true))),
      0,
    );
    expectEqual(fast!.calls, { taken: 1, perMessage: 0 });
    expectEqual(fast!.log, trace(s, [after], false).log);
  });

  it('has no output for the pipe before the general framer is made: it refuses it, saying so', () => {
    const framer = sseFramer({} as MessagePipe, () => {});
    expect(() => framer.output(new Uint8Array(1))).toThrow(/before any was fed/);
  });
});
