// SSE events whose type is known before their data (`event: message` first, as the MCP SDK
// writes them) stream through encoding instead of being held whole (src/stream/sse-event.ts). What a
// stream holds of such an event stays bounded however large it is; what eventsource-parser reads
// from the output is what it would read from each event encoded whole (the object API on each
// message's data), for every order of fields, line endings and chunking; an event whose data
// streamed as a message but whose last `event:` line names another type is refused, never passed
// on changed and unreported; time is linear.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { createByteTransformer, PayloadStreamError } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';
import { encodeSse as encode, type StreamedStream, streamedAsParserReads } from './sse-properties.ts';
import { bytes, oneByteChunks } from './stream-helpers.ts';

const codec = createCodec();
const MiB = 1024 * 1024;

/** `data` in pieces of `size` bytes (the last shorter). */
function* pieces(data: Uint8Array, size: number): Generator<Uint8Array> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

// Text with no term: its JSON comes out byte for byte, so bytes pushed less bytes written is
// what the stream holds.
const PLAIN = 'plain words, 中文, and paths /a/b. '.repeat(2000);

describe('SSE: an event typed before its data streams', () => {
  it('holds a bounded part of a 16 MiB event, however its lines fall (one data line, many, CRLF, fields between)', () => {
    const text = JSON.stringify(PLAIN).slice(1, -1);
    const size = 16 * MiB;
    const one = `event: message\nid: 7\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${text.repeat(Math.ceil(size / text.length))}"}]}}\n\n`;
    // Many data lines (a pretty-printed array), with comments and an id between them, CRLF.
    const lines = Array.from({ length: Math.ceil(size / 1000) }, () => `data:  "${text.slice(0, 990)}",`);
    const many = `event:\r\n: start\r\ndata: {"jsonrpc":"2.0","id":2,"result":{"lines":[\r\n${lines.join('\r\n: c\r\n')}\r\ndata: 0]}}\r\nid: 8\r\n\r\n`;
    for (const input of [one, many]) {
      const b = bytes(input);
      const { out, errors, most } = encode(pieces(b, 64 * 1024));
      expect(errors).toEqual([]);
      expect(out.length).toBe(b.length); // (no term: the output is the input)
      expect(most).toBeLessThan(MiB); // (held whole, it was the whole event)
    }
  });

  it('counts against maxMessageBytes only the lines that wait, not every line it passed', () => {
    // 200,000 data lines: held whole, their 48-byte index entries would pass the limit.
    const lines = Array.from({ length: 200_000 }, (_, i) => `data: ${i},`);
    const input = bytes(`event: message\ndata: [\n${lines.join('\n')}\ndata: 0]\n\n`);
    const { out, errors } = encode(pieces(input, 16 * 1024), { maxMessageBytes: 4 * MiB });
    expect(errors).toEqual([]);
    expect(out.length).toBe(input.length);
  });

  it('pins what a later `event:` line does to a streamed event', () => {
    const q = codec.encodeText('Qwen');
    const m = '{"jsonrpc":"2.0","id":1,"result":"Qwen"}';
    const e = `{"jsonrpc":"2.0","id":1,"result":"${q}"}`;
    const cases: [string, string, string[]][] = [
      // Its last type a message again: as if held.
      [`event: message\ndata: ${m}\nevent: foo\nevent:\n\n`, `event: message\ndata: ${e}\nevent: foo\nevent:\n\n`, []],
      // Another type: refused, its data spoiled (it streamed encoded), every other line kept.
      [`event: message\ndata: ${m}\nevent: foo\n\n`, `event: message\ndata: ${e},\nevent: foo\n\n`, ['framing 1']],
      // The same after a bare `data` line (an empty one): a colon with the spoiling byte (`data,` is no data line).
      [`event: message\ndata: ${m}\ndata\nevent: foo\n\n`, `event: message\ndata: ${e}\ndata:,\nevent: foo\n\n`, ['framing 1']],
      // No type before the data: held, and passed as it came.
      [`data: ${m}\nevent: foo\n\n`, `data: ${m}\nevent: foo\n\n`, []],
    ];
    for (const [input, expected, reported] of cases) {
      for (const lines of [true, false]) {
        const { out, errors } = encode(oneByteChunks(bytes(input)), {}, { lines });
        expect(out.toString()).toBe(expected);
        expect(errors.map((x) => `${x.code} ${x.messageNumber}`)).toEqual(reported);
      }
    }
    // Without onInvalidMessage the stream fails there, before the event's end.
    const t = createByteTransformer('encode', { framing: 'sse' }, () => {});
    t.push(bytes(`event: message\ndata: ${m}\nevent: foo\n`));
    expect(() => t.push(bytes('\n'))).toThrow(PayloadStreamError);
  });
});

// Random events: fields before, among and after data lines, the message's JSON over one or many
// data lines, CR/LF/CRLF, any chunking; the batch on and off (off, every event takes the per-line
// way, where streaming happens); sometimes a small maxMessageBytes, so an event is refused midway.
const str = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('Qwen', '通义', 'aliyun', '😀 dashscope'));
const message = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.integer(),
    result: fc.record({ content: fc.array(fc.record({ type: fc.constant('text'), text: str }), { maxLength: 3 }) }),
  }),
  fc.record({ jsonrpc: fc.constant('2.0'), method: str, params: fc.dictionary(str, str, { maxKeys: 2 }) }),
);
const data = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(message, fc.constantFrom(0, 1, 2)).map(([m, indent]) => JSON.stringify(m, null, indent).split('\n')) },
  { weight: 1, arbitrary: fc.constantFrom<string[]>(['not json Qwen'], [''], ['  '], ['{"a":'], ['12', '3'], ['{}', '{}']) },
);
const field = fc.constantFrom(
  'event: message',
  'event:message',
  'event:',
  'event',
  'event: endpoint',
  'event: messages',
  'id: x',
  'retry: 10',
  ': comment Qwen',
  'foo: bar',
);
const event = fc.record({
  before: fc.array(field, { maxLength: 3 }),
  data,
  among: fc.array(fc.tuple(field, fc.nat()), { maxLength: 2 }),
  after: fc.array(field, { maxLength: 2 }),
  prefix: fc.constantFrom('data:', 'data: '),
});
const streamOf: fc.Arbitrary<StreamedStream> = fc.record({
  events: fc.array(event, { minLength: 1, maxLength: 4 }),
  endings: fc.array(fc.constantFrom('\n', '\r', '\r\n'), { minLength: 1, maxLength: 5 }),
  cuts: fc.array(fc.nat(2000), { maxLength: 8 }),
  oneByte: fc.boolean(),
  lines: fc.boolean(),
  // (320: only data passes it, or the other lines of events merged by a CR and a blank line's
  // LF; smaller ones: the bound on what an event holds besides its data too.)
  max: fc.oneof(fc.constantFrom(undefined, 320), fc.integer({ min: 20, max: 400 })),
});

describe('SSE streamed events as eventsource-parser reads them', () => {
  it('every event reads as the input event encoded whole; refused ones (reported once each) reach no receiver as data that parses', () => {
    fc.assert(fc.property(streamOf, streamedAsParserReads), runs(300));
  });
});

describe('SSE streamed events: time', () => {
  const one = (mib: number) =>
    bytes(
      `event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${'Qwen and 通义 words '.repeat(mib * 40_000)}"}]}}\n\n`,
    );
  // A `data` before its `type`: the output waits for the object's end, and every line with it.
  const waiting = (n: number) =>
    bytes(
      `event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"data":[\n${'data: "Qwen",\n'.repeat(n)}data: 0],"type":"text"}]}}\n\n`,
    );
  const once = (input: Uint8Array, size: number) => () => void encode(pieces(input, size));

  it('4x a one-line event (about 0.75 and 3 MB) in 512-byte chunks costs about 4x the time', () => {
    expect(growth(once(one(1), 512), once(one(4), 512))).toBeLessThan(LINEAR_BOUND);
  });

  it('4x the data lines waiting for their output (25,000 and 100,000) cost about 4x the time', () => {
    expect(growth(once(waiting(25_000), 4096), once(waiting(100_000), 4096))).toBeLessThan(LINEAR_BOUND);
  });
});
