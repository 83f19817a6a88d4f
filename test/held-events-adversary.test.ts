// Adversary for the held SSE events (src/stream/sse-batch.ts, HeldEvent: an event cut by a chunk's end where the
// batch stopped is copied aside, up to CARRY bytes, until its blank line arrives, then read as a
// chunk of its own). With the batch (and the carry) on, a stream must do what it does with both
// off: same output, same callbacks in the same order between the same output, same error (code,
// message number, byte offset). Streams are cut where the carry decides things: right after a CR
// (CR or CRLF), inside `data:` and `event:` names, at the blank line, with empty chunks between,
// in a buffer scribbled over after each push; events around CARRY bytes and data around FRAMED.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { FRAMED, LARGE_LINE } from '../src/stream/core-regions.ts';
import { createByteTransformer, createDecodeStream, createEncodeStream, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { countCalls } from './core-calls.ts';
import {
  backOffRuns,
  framedBody as body,
  cat,
  cutTrace,
  describeError,
  logText,
  pushCut,
  sized,
  sseField,
  traced,
} from './ndjson-scenarios.ts';
import { withoutStacks } from './no-stacks.ts';
import { leastTimes } from './scaling.ts';
import { encodeSse } from './sse-properties.ts';
import { bytes, run, split } from './stream-helpers.ts';

const CARRY = LARGE_LINE + 1024; // the longest event start held (sse-batch.ts)

const ending = fc.constantFrom('\n', '\n', '\r\n', '\r');
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
        fc.array(body, { minLength: 2, maxLength: 3 }) as fc.Arbitrary<Uint8Array[]>,
      ),
    },
  ),
  prefix: fc.constantFrom('data: ', 'data:', 'data:  ', 'data'),
  keepCR: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  after: fc.array(sseField, { maxLength: 2 }),
  // Line endings: one for the event, or each line its own (mixed).
  endings: fc.oneof(
    { weight: 3, arbitrary: ending.map((e) => [e]) },
    { weight: 1, arbitrary: fc.array(ending, { minLength: 2, maxLength: 8 }) },
  ),
  blanks: fc.constantFrom(1, 1, 1, 2),
  // A comment line making the event exactly CARRY - 1, CARRY or CARRY + 1 bytes (when it can).
  // (Rarely: such an event is 257 KiB, and may be pushed a byte at a time.)
  padTo: fc.oneof({ weight: 30, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(CARRY - 1, CARRY, CARRY + 1) }),
  padFirst: fc.boolean(),
});
type SseEvent = typeof sseEvent extends fc.Arbitrary<infer E> ? E : never;

/** An event's bytes, and the offsets in it where cuts matter. */
function renderEvent(e: SseEvent): { b: Uint8Array; sizes: number[] } {
  let k = 0;
  const nl = () => bytes(e.endings[k++ % e.endings.length]!);
  const lines: Uint8Array[] = [];
  for (const f of e.before) lines.push(cat(bytes(f), nl()));
  for (const d of e.data) {
    // (A new copy: generated values are never changed.)
    const clean = e.keepCR ? d : d.map((c) => (c === 0x0d || c === 0x0a ? 0x20 : c));
    lines.push(cat(e.prefix === 'data' ? bytes('data') : cat(bytes(e.prefix), clean), nl()));
  }
  for (const f of e.after) lines.push(cat(bytes(f), nl()));
  for (let i = 0; i < e.blanks; i++) lines.push(nl());
  let b = cat(...lines);
  if (e.padTo) {
    const end = bytes(e.endings[0]!);
    const need = e.padTo - b.length - end.length - 1; // ':' + pad + ending
    if (need >= 0) {
      const pad = cat(bytes(`:${'p'.repeat(need)}`), end);
      b = e.padFirst ? cat(pad, b) : cat(b.subarray(0, b.length - lines.at(-1)!.length), pad, lines.at(-1)!);
    }
  }
  return { b, sizes: e.data.length === 1 ? [e.data[0]!.length] : [] };
}

/** Where cuts matter in `b`: after each CR and LF, at each line start and inside its field name. */
function marksOf(b: Uint8Array): number[] {
  const marks = [0];
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 0x0d || b[i] === 0x0a) marks.push(i, i + 1, i + 2, i + 3, i + 5);
  }
  return marks.filter((m) => m <= b.length);
}

const scenario = fc.record({
  mode: fc.constantFrom('encode' as const, 'decode' as const),
  events: fc.array(sseEvent, { minLength: 1, maxLength: 8 }),
  bom: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  // maxMessageBytes: the default, tiny, or some body's size (one less, one more).
  limit: fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(1, 2, 12, 40, FRAMED, FRAMED + 1) },
    { weight: 2, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(0, -1, 1)) },
  ),
  onInvalid: fc.constantFrom('none' as const, 'log' as const, 'throw' as const),
  onCollision: fc.constantFrom('none' as const, 'log' as const, 'throw' as const),
  // The stream may end early: inside a held event, maybe right after a CR.
  cutEnd: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(2000) }),
  endAfterCR: fc.boolean(),
  // Cuts at the marks (of random events), at random, or every n bytes; empty chunks between.
  chunking: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ marks: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: -1, max: 1 })), { maxLength: 14 }) }),
    },
    { weight: 2, arbitrary: fc.record({ every: fc.constantFrom(1, 2, 3, 4, 5, 7, 64, 1000, 4096, CARRY - 1, CARRY, CARRY + 1) }) },
    { weight: 1, arbitrary: fc.record({ random: fc.array(fc.nat(70000), { maxLength: 10 }) }) },
  ),
  empties: fc.boolean(),
  scribble: fc.boolean(),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

function render(s: Scenario): { input: Uint8Array; cuts: number[]; sizes: number[] } {
  const parts = s.events.map(renderEvent);
  const starts: number[] = [];
  let at = s.bom ? 3 : 0;
  for (const p of parts) {
    starts.push(at);
    at += p.b.length;
  }
  let input = cat(...(s.bom ? [new Uint8Array([0xef, 0xbb, 0xbf])] : []), ...parts.map((p) => p.b));
  if (s.cutEnd) {
    let end = Math.max(0, input.length - s.cutEnd);
    if (s.endAfterCR) {
      const cr = input.lastIndexOf(0x0d, end - 1);
      if (cr >= 0) end = cr + 1;
    }
    input = input.subarray(0, end);
  }
  const c = s.chunking;
  let cuts: number[];
  if ('every' in c) cuts = Array.from({ length: Math.ceil(input.length / c.every) }, (_, k) => k * c.every);
  else if ('random' in c) cuts = c.random;
  else {
    const marksOfPart: number[][] = []; // (each event's marks found once: an event may be 257 KiB)
    cuts = c.marks.map(([f, m, d]) => {
      const i = f % parts.length;
      marksOfPart[i] ??= marksOf(parts[i]!.b);
      const marks = marksOfPart[i]!;
      return starts[i]! + marks[m % marks.length]! + d;
    });
  }
  // (With a BOM: cut inside it too, sometimes.)
  if (s.bom && s.empties) cuts.push(1, 2);
  cuts = [...new Set(cuts.map((x) => Math.max(0, Math.min(input.length, x))))].sort((a, b) => a - b);
  const sizes = parts.flatMap((p) => p.sizes);
  return { input, cuts, sizes: sizes.length ? sizes : [1] };
}

/** What a scribbled buffer is overwritten with: junk that reads as events. */
const JUNK = bytes('data: {"id":9}\n\n\r');

/**
 * Where events end in `input` as a receiver reads it: past each blank line whose ending's last
 * byte is an LF (after a CR last, an LF may follow and join it). Lines end at LF, CR or CRLF.
 */
function eventEnds(input: Uint8Array, from: number): Set<number> {
  const ends = new Set<number>();
  let line = from;
  for (let i = from; i < input.length; i++) {
    const c = input[i];
    if (c !== 0x0a && c !== 0x0d) continue;
    const next = c === 0x0d && input[i + 1] === 0x0a ? i + 2 : i + 1;
    if (i === line && input[next - 1] === 0x0a) ends.add(next);
    line = next;
    i = next - 1;
  }
  return ends;
}

/**
 * What a stream did: output between callbacks (logText), callbacks (which may throw), and the error
 * it threw; and how much it had written after each push that ended at an event's end (an event
 * whose blank line came is written in that push, held or not: a proxy must not wait for the next).
 */
function trace(s: Scenario, { input, cuts, sizes }: ReturnType<typeof render>, batch: boolean): { log: unknown[]; atEnds: number[] } {
  return withoutStacks(() => {
    const log: unknown[] = [];
    const atEnds: number[] = [];
    const ends = eventEnds(input, s.bom ? 3 : 0);
    const { out, written: total, options } = traced('sse', s, sizes, log);
    const t = byteTransformer(s.mode, options, out, { lines: batch });
    try {
      let at = 0;
      pushCut(s, input, cuts, JUNK, (c) => {
        t.push(c);
        at += c.length;
        if (ends.has(at)) atEnds.push(total());
      });
      t.close();
    } catch (e) {
      log.push(['threw', ...describeError(e)]);
    }
    return { log, atEnds };
  });
}

const transform = (mode: 'encode' | 'decode', options: StreamOptions, input: Uint8Array, batch: boolean, cuts: number[]) =>
  withoutStacks(() => cutTrace('sse', mode, options, input, batch, cuts));

const every = (input: Uint8Array, size: number) => Array.from({ length: Math.ceil(input.length / size) }, (_, k) => k * size).slice(1);
const progress = (i: number) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: i, message: `step ${i} of Qwen` } });

describe('held SSE events (adversary)', () => {
  it('change no output, callback or error, however the stream is cut, scribbled over or ended', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const rendered = render(s); // (once: both ways read the same bytes, cut at the same places)
        const held = trace(s, rendered, true);
        const reference = trace(s, rendered, false);
        expect(held.log).toEqual(reference.log);
        // (After an error, the pushes that returned before it.)
        expect(held.atEnds.slice(0, reference.atEnds.length)).toEqual(reference.atEnds);
      }),
      runs(300),
    );
  });

  it('let the batch take small message events cut at any offset, one cut per event (after a CR, inside a name, at the blank line)', () => {
    // Each event with the same cut offset k: the event is held across the cut, then taken whole.
    for (const nl of ['\n', '\r\n', '\r']) {
      const one = (i: number) => `: c${nl}id: ${i}${nl}event: message${nl}data: ${progress(i)}${nl}event:${nl}${nl}`;
      const length = one(10).length;
      const text = Array.from({ length: 40 }, (_, i) => one(10 + i)).join('');
      expect(text.length).toBe(40 * length);
      const input = bytes(text);
      for (let k = 1; k < length; k++) {
        const cuts = Array.from({ length: 40 }, (_, i) => i * length + k);
        let on: unknown[] = [];
        const n = countCalls(() => {
          on = transform('encode', {}, input, true, cuts);
        });
        // (A CR ending last in a chunk: whether it is a CRLF's is known at the next byte.)
        expect([k, n]).toEqual([k, { perMessage: 0, taken: 40 }]);
        expect(on).toEqual(transform('encode', {}, input, false, cuts));
      }
    }
  });

  it('let the batch take small events in 1-4 byte chunks, with mixed line endings', () => {
    const ends = ['\n', '\r\n', '\r'];
    const events = Array.from({ length: 30 }, (_, i) => {
      const e = (k: number) => ends[(i + k) % 3]!;
      return `${i % 2 ? `retry: 5${e(0)}` : ''}data:${progress(i)}${e(1)}: after${e(2)}${e(2)}`;
    });
    const input = bytes(events.join(''));
    for (const size of [1, 2, 3, 4]) {
      for (const mode of ['encode', 'decode'] as const) {
        let on: unknown[] = [];
        const n = countCalls(() => {
          on = transform(mode, { maxMessageBytes: 200 }, input, true, every(input, size));
        });
        expect(n).toEqual({ perMessage: 0, taken: 30 });
        expect(on).toEqual(transform(mode, { maxMessageBytes: 200 }, input, false, every(input, size)));
      }
    }
  });

  it('agree with the per-message path for events of CARRY - 1, CARRY, CARRY + 1 bytes and data of FRAMED +/- 1, cut near the ends', () => {
    for (const nl of ['\n', '\r\n', '\r']) {
      for (const dataBytes of [40, FRAMED - 1, FRAMED, FRAMED + 1]) {
        for (const eventBytes of [0, CARRY - 1, CARRY, CARRY + 1]) {
          const data = `data: ${Buffer.from(sized(dataBytes)).toString()}${nl}`;
          const padLength = eventBytes - data.length - 2 * nl.length - 1;
          const pad = eventBytes && padLength >= 0 ? `:${'p'.repeat(padLength)}${nl}` : '';
          const event = `${pad}${data}${nl}`;
          if (eventBytes) expect(event.length).toBe(eventBytes);
          const input = bytes(`data: {}${nl}${nl}${event}${event}data: [1]${nl}${nl}`);
          const e0 = 8 + 2 * nl.length; // the first small event
          // (Fewer cuts in a 257 KiB event: each costs two transforms of it.)
          const firsts = eventBytes
            ? [e0, e0 + event.length - 1, e0 + event.length]
            : [e0 - 1, e0, e0 + 3, e0 + event.length - 1, e0 + event.length];
          for (const first of firsts) {
            for (const gap of eventBytes ? [1, CARRY] : [1, 5, CARRY]) {
              const cuts = [first, first + gap].filter((c) => c > 0 && c < input.length);
              for (const mode of ['encode', 'decode'] as const) {
                const options = { maxMessageBytes: dataBytes };
                expect(transform(mode, options, input, true, cuts)).toEqual(transform(mode, options, input, false, cuts));
              }
            }
          }
        }
      }
    }
  });

  it('report a stream that ends inside a held event (with and without a CR last) as the per-message path does', () => {
    const good = `: c\r\nid: 1\r\ndata: ${progress(1)}\r\nevent: message\r\n\r\n`;
    const bad = 'data: {"id":2}x\r\n\r';
    const input = bytes(good + good + bad);
    for (let end = good.length + 1; end <= input.length; end++) {
      const cut = input.subarray(0, end);
      for (const cuts of [[good.length + 2], [end - 1], every(cut, 3)]) {
        for (const onInvalidMessage of [undefined, () => {}]) {
          const options = { onInvalidMessage };
          expect(transform('encode', options, cut, true, cuts)).toEqual(transform('encode', options, cut, false, cuts));
        }
      }
    }
  });

  it('write as much of an invalid event typed a message first, held or streamed, however its pushes cut it', () => {
    // With `event: message` before its data the per-line way streams the data, and where the
    // pipe is fed decides how much of an invalid message goes out before its error (a payload
    // string's output so far is written at each feed's end). Fed as pushes brought it, that
    // depended on the cuts, and a held event the batch read whole and refused (or one past the
    // carry) wrote other bytes than the per-line way: `…"text":"` where it wrote
    // `…"text":"__mcp_ref_5177656e__ `. Fed in fixed blocks of its data, neither depends on them.
    const bad = (n: number) => `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${'Qwen '.repeat(n)}\u0001"}]}}`;
    // (A small event, one the large path refuses, one that outgrows the carry; a keep-alive
    // before the type, written once it ends; each line ending.)
    for (const n of [1, 10_000, 60_000])
      for (const nl of ['\n', '\r\n', '\r'])
        for (const head of [`event: message${nl}id: 1${nl}`, `: ping${nl}event: message${nl}`]) {
          const next = `event: message${nl}data: ${progress(2)}${nl}${nl}`;
          const text = `data: ${progress(1)}${nl}${nl}${head}data: ${bad(n)}${nl}${nl}${next}`; // (ASCII: its offsets are the bytes')
          const input = bytes(text);
          const start = text.indexOf(head);
          const qwen = text.indexOf('Qwen', start);
          const cutsOf = [
            [qwen + 5], // just after the first `Qwen `
            [start + 3, qwen + 2, input.length - next.length - 1, input.length - next.length], // in the first line, a term, the blank line
            every(input, n === 1 ? 7 : 100_000),
            every(input, n === 1 ? 64 : 65_536),
          ];
          for (const onInvalidMessage of [undefined, () => {}]) {
            const options = { onInvalidMessage };
            const whole = transform('encode', options, input, false, []);
            for (const cuts of cutsOf) {
              const off = transform('encode', options, input, false, cuts);
              expect([n, nl, head, cuts, transform('encode', options, input, true, cuts)]).toEqual([n, nl, head, cuts, off]);
              expect([n, nl, head, cuts, off]).toEqual([n, nl, head, cuts, whole]);
            }
          }
        }
  });

  it('take maxMessageBytes of 1, 2 and 12 and exactly at a data size as the per-message path does', () => {
    // (The lines after the data count against the limit too: `data: ` and its line end, and
    // comments of 0-10 bytes after it put that count either side of each limit.)
    const after = Array.from({ length: 11 }, (_, k) => `data: 1\n:${'c'.repeat(k)}\r\n\n`).join('');
    const input = bytes(
      `data: {}\n\ndata: 1\r\rdata:\n\ndata: [1]\r\n\r\n: x\ndata: {"a":1234}\nevent: message\n\ndata: {"a":12345}\n\n${after}`,
    );
    for (const maxMessageBytes of [1, 2, 3, 10, 11, 12, 13, 16, 20])
      for (const onInvalidMessage of [undefined, () => {}])
        for (const size of [1, 2, 5, 11, 12, 13]) {
          const options = { maxMessageBytes, onInvalidMessage };
          expect(transform('encode', options, input, true, every(input, size))).toEqual(
            transform('encode', options, input, false, every(input, size)),
          );
        }
  });

  it("agree with the per-message path through the batch's back-off (runs of deferred events) between held events", () => {
    const input = backOffRuns((json, k) => `${k % 3 ? '' : `id: ${'k'.repeat(k * 7)}\n`}data: ${json}\n\n`);
    for (const size of [5, 64, 333, 4096])
      for (const mode of ['encode', 'decode'] as const) {
        const cuts = every(input, size);
        expect(transform(mode, {}, input, true, cuts)).toEqual(transform(mode, {}, input, false, cuts));
      }
  });

  it('decode colliding keys and invalid JSON in held events as the per-message path does, callbacks throwing or not', () => {
    const collide = '{"jsonrpc":"2.0","id":3,"result":{"list":[{"__mcp_ref_5177656e__":1,"Qwen":2}]}}';
    const ok = '{"jsonrpc":"2.0","id":1,"result":"__mcp_ref_5177656e__"}';
    const input = bytes(`data: ${ok}\n\ndata: ${collide}\r\n\r\n: c\ndata: {"id":\n\ndata: ${ok}\r\r`);
    for (const size of [1, 3, 7, 40, 100]) {
      for (const how of ['none', 'log', 'throw'] as const) {
        const seen: unknown[] = [];
        const cb = (kind: string) =>
          how === 'none'
            ? undefined
            : (e: unknown) => {
                seen.push([kind, ...describeError(e)]);
                if (how === 'throw') throw new Error('callback threw');
              };
        const options = { onCollision: cb('dropped'), onInvalidMessage: cb('invalid') };
        const on = transform('decode', options, input, true, every(input, size));
        const onSeen = seen.splice(0);
        expect([on, onSeen]).toEqual([transform('decode', options, input, false, every(input, size)), seen]);
      }
    }
  });

  it('pass the same bytes and the same error through createEncodeStream / createDecodeStream', async () => {
    const json = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"qwen"}]}}';
    const good = `: ${'p'.repeat(1000)}\r\nid: 1\r\ndata: ${json}\r\n\r\n`;
    const small = `data: ${json}\n\n`;
    const bad = 'data: {"id":2}x\r\r';
    for (const tail of ['', bad]) {
      const input = bytes(`\ufeff${good}${small}${good}${small}${tail}`);
      for (const size of [1, 2, 30, 1000]) {
        const cuts = every(input, size);
        const chunks: Uint8Array[] = [];
        for (let at = 0; at < input.length; at += size) chunks.push(input.slice(at, at + size));
        for (const [mode, make] of [
          ['encode', createEncodeStream],
          ['decode', createDecodeStream],
        ] as const) {
          const expected = transform(mode, {}, input, false, cuts);
          let got: unknown[];
          try {
            got = [logText(await run(make({ framing: 'sse' }), chunks))];
          } catch (e) {
            got = [['threw', ...describeError(e)]];
          }
          // (On an error the stream's output is not read: compare the error.)
          if (tail) expect(got.at(-1)).toEqual(expected.at(-1));
          else expect(got).toEqual(expected);
        }
      }
    }
  });

  it('write complete lines before an event held for its data as they arrive (keep-alive comments, ids, retries)', () => {
    // A keep-alive comment with no blank line after it must reach the client now, not with the
    // next event: the per-line path writes lines outside an event's data as they arrive.
    const first = `data: ${progress(1)}\n\n`;
    for (const [name, pushes] of [
      ['a keep-alive alone', [': ping\n', ': ping\r\n', ':\r', 'id: 1\n']],
      ['a keep-alive split', [': pi', 'ng\n']],
      ['an id and a retry', ['id: 7\n', 'retry: 1000\r\n']],
      ['a comment then the data', [': ping\n', 'data: {"id"']],
      ['a keep-alive after a cut data line', [': ping\n', 'data: {"id"', ':1}\n\n: ping\n']],
    ] as const) {
      const writtenAfter = (batch: boolean) => {
        let total = 0;
        const t = byteTransformer(
          'encode',
          { framing: 'sse' },
          (b) => {
            total += b.length;
          },
          { lines: batch },
        );
        t.push(bytes(first));
        return pushes.map((p) => {
          t.push(bytes(p));
          return total;
        });
      };
      // After every push that ends a line with its LF, as much is out (a line's start, or a line
      // that a CR may still join to an LF, may wait for its end).
      const on = writtenAfter(true);
      const off = writtenAfter(false);
      pushes.forEach((p, k) => {
        if (p.endsWith('\n')) expect([name, k, on[k]]).toEqual([name, k, off[k]]);
      });
    }
  });

  it('cost about what the per-line path costs for held events in 1-4 byte chunks (the held bytes are not searched again per push)', () => {
    // Events with a 12 KiB data line (held whole, then taken) and events of 2,000 short lines
    // after their data (held whole, then read the per-line way: more than the batch's 64 lines).
    const long = `data: ${Buffer.from(sized(12 * 1024)).toString()}\n\n`;
    const lines = `data: ${progress(1)}\n${': c\n'.repeat(2000)}\n`;
    const input = bytes(long + lines + long + lines);
    const push = (batch: boolean, size: number) => () => {
      const t = byteTransformer('encode', { framing: 'sse' }, () => {}, { lines: batch });
      for (let at = 0; at < input.length; at += size) t.push(input.subarray(at, at + size));
      t.close();
    };
    for (const size of [1, 4]) {
      const { subject: held, reference } = leastTimes(push(true, size), push(false, size), 3, 5);
      // (Walking the held lines again from the event's start per push: about 30x here.)
      expect(held).toBeLessThan(3 * reference + 5);
    }
  });

  it('search each held byte a bounded number of times in 1-byte chunks (not the unfinished line again per push)', () => {
    // Bytes the line-end searches cover (Buffer#indexOf is memchr: searching a 16 KiB line again
    // per push costs little time, so count what is searched). The reference searches each byte
    // about twice (LF and CR).
    const long = `data: ${Buffer.from(sized(FRAMED - 8)).toString()}\r\n\r\n`;
    const other = `event: x\n: ${'c'.repeat(CARRY - 100)}\n\n`;
    const input = bytes(long + other + long);
    const searched = (batch: boolean) => {
      const protos = [Buffer.prototype, Uint8Array.prototype] as const;
      const saved = protos.map((p) => p.indexOf);
      let n = 0;
      protos.forEach((p, k) => {
        const indexOf = saved[k]!;
        p.indexOf = function (this: Uint8Array, value: number, from = 0) {
          n += this.length - Math.min(this.length, Math.max(0, from));
          return indexOf.call(this, value, from);
        } as typeof indexOf;
      });
      try {
        const t = byteTransformer('encode', { framing: 'sse' }, () => {}, { lines: batch });
        for (let at = 0; at < input.length; at += 1) t.push(input.subarray(at, at + 1));
        t.close();
      } finally {
        protos.forEach((p, k) => {
          p.indexOf = saved[k]! as never;
        });
      }
      return n;
    };
    const reference = searched(false);
    expect(reference).toBeGreaterThan(input.length); // (the count sees the searches)
    // (Searching the unfinished line again per push: about 6,000x the reference.)
    expect(searched(true)).toBeLessThan(4 * reference + 64 * 1024); // (1.6x measured)
  });

  it('hold at most CARRY bytes of an event: the rest is written as it comes (non-message events, long comment runs)', () => {
    for (const head of ['event: x\n', ': c\n', 'id: 1\n', '']) {
      // No blank line for 400 KB: what was pushed minus what was written stays within CARRY
      // (plus the per-line path's own holding: none for these lines).
      const text = `${head}${`: ${'c'.repeat(97)}\n`.repeat(4000)}`;
      const input = bytes(text);
      for (const size of [3, 1000, CARRY + 5]) {
        let total = 0;
        let most = 0;
        const t = createByteTransformer('encode', { framing: 'sse' }, (b) => {
          total += b.length;
        });
        for (let at = 0; at < input.length; at += size) {
          t.push(input.subarray(at, at + size));
          most = Math.max(most, Math.min(input.length, at + size) - total);
        }
        t.close();
        expect(total).toBe(input.length);
        expect([head, size, most <= CARRY]).toEqual([head, size, true]);
      }
    }
  });
});

describe('an untyped event refused where its next data line joins', () => {
  // At the join of a second data line that would pass maxMessageBytes, the event is refused before
  // that line's first bytes are read; its data lines are dropped either way, so a CR ending the
  // line before them must get its own CR (else it joins the blank line's LF: one CRLF, and the
  // next event merges into this one), however the stream is cut.
  it('writes the same bytes for every cut, the event ended where it ended', () => {
    const ending = fc.constantFrom('\n', '\r', '\r\n');
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 40 }), // (below 8, the next event's own field name passes the bound)
        fc.constantFrom('id: 1', ': keep-alive', 'retry: 5', 'event: message'),
        ending,
        ending,
        fc.string({ unit: fc.constantFrom('1', 'x', ' ', ':'), minLength: 0, maxLength: 6 }),
        (size, between, after, blank, second) => {
          const first = `"${'a'.repeat(size - 2)}"`; // (exactly the bound: the join's LF passes it)
          const text = `data: ${first}\n${between}${after}data: ${second}\n${blank}data: 2${blank}${blank}`;
          const input = bytes(text);
          const options = { maxMessageBytes: size };
          const whole = encodeSse([input], options).out;
          expect(encodeSse(split(input, [...input.keys()].slice(1)), options).out.equals(whole)).toBe(true);
          for (let cut = 1; cut < input.length; cut++) {
            expect(encodeSse(split(input, [cut]), options).out.equals(whole), `cut at ${cut}`).toBe(true);
          }
          // What passes: the line between (the data lines dropped), the event's end, the next event.
          const repair = after === '\r' && blank === '\n' ? '\r' : ''; // (CR then LF would read as one CRLF)
          expect(whole.toString()).toBe(`${between}${after}${repair}${blank}data: 2${blank}${blank}`);
        },
      ),
      runs(60),
    );
  });
});
