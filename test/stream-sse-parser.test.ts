// SSE against the parser the MCP SDK uses (eventsource-parser): random streams of fields,
// comments, BOM, empty and late `event:` fields, CR/LF/CRLF, any chunking. Both the input and our
// output are parsed; events correspond one to one, message events carry encodeMessage of their
// data, every other event passes byte for byte.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { createEncodeStream } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { encodesAsParserReads, parseSse, renderParserStream } from './sse-properties.ts';
import { bytes, oneByteChunks, run, split } from './stream-helpers.ts';

const codec = createCodec();

const str = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('Qwen', '通义', 'aliyun', 'a\nb', '😀 dashscope'));
const message = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.integer(),
    result: fc.record({ content: fc.array(fc.record({ type: fc.constant('text'), text: str }), { maxLength: 2 }) }),
  }),
  fc.record({ jsonrpc: fc.constant('2.0'), method: str, params: fc.dictionary(str, str, { maxKeys: 2 }) }),
);
// A message's JSON as data lines: compact, or pretty (its newlines fall between tokens).
const dataLines = fc.tuple(message, fc.constantFrom(0, 1, 2)).map(([m, indent]) => JSON.stringify(m, null, indent).split('\n'));
const otherData = fc.constantFrom<string[]>(['/messages?session=Qwen'], ['not json', 'Qwen'], [''], ['  '], ['{"a":'], ['12', '3']);
const prefix = fc.constantFrom('data:', 'data: ', 'data:  ');
const field = fc.constantFrom(
  ': keep-alive Qwen',
  ':',
  'retry: 1000',
  'retry: x',
  'foo: bar',
  'foo',
  'Event: endpoint',
  'DATA: {"x":1}',
  'data ',
  'event: message',
  'event:message',
  'event:',
  'event: ',
  'event',
  'event: endpoint',
  'event:endpoint',
  'event: Message',
  'event: messages',
  // Near misses of "message", one byte off at either end, or spaced.
  'event: messagf',
  'event:messagX',
  'event: xessage',
  'event: mess',
  'event:  message',
  'event: message ',
);
const ending = fc.constantFrom('\n', '\r', '\r\n');

/** An event: data lines (a message or other text) with fields anywhere among them. */
const event = fc
  .record({
    data: fc.oneof(
      { weight: 3, arbitrary: dataLines },
      { weight: 1, arbitrary: otherData },
      { weight: 1, arbitrary: fc.constant([] as string[]) },
    ),
    fields: fc.array(fc.tuple(field, fc.nat(20)), { maxLength: 3 }),
    prefixes: fc.array(prefix, { minLength: 1, maxLength: 4 }),
    bareData: fc.boolean(), // an empty data line written as just `data`
    idAt: fc.nat(20),
    idSpace: fc.boolean(),
  })
  .map(({ data, fields, prefixes, bareData, idAt, idSpace }) => {
    const lines = data.map((d, i) => (d === '' && bareData ? 'data' : `${prefixes[i % prefixes.length]}${d}`));
    for (const [f, at] of fields) lines.splice(at % (lines.length + 1), 0, f);
    lines.splice(idAt % (lines.length + 1), 0, idSpace ? 'id: #' : 'id:#'); // '#': the event's number, for matching
    return lines;
  });

const stream = fc.record({
  bom: fc.boolean(),
  events: fc.array(event, { minLength: 1, maxLength: 5 }),
  endings: fc.array(ending, { minLength: 1, maxLength: 7 }),
  cuts: fc.array(fc.nat(3000), { maxLength: 10 }),
  oneByte: fc.boolean(),
});

describe('SSE as eventsource-parser reads it', () => {
  it('message events come out encoded, every other event untouched, one to one', async () => {
    await fc.assert(fc.asyncProperty(stream, encodesAsParserReads), runs(200));
  });

  it('without onInvalidMessage, a stream with only valid message data passes and is deterministic', async () => {
    await fc.assert(
      fc.asyncProperty(stream, async (s) => {
        const input = renderParserStream(s);
        const whole = await run(createEncodeStream({ framing: 'sse' }), [input]).catch((e: unknown) => e);
        const chunked = await run(createEncodeStream({ framing: 'sse' }), split(input, s.cuts)).catch((e: unknown) => e);
        if (whole instanceof Error) expect((chunked as Error).message).toBe(whole.message);
        else expect(chunked).toEqual(whole);
      }),
      runs(150),
    );
  });

  it('pins the rules: BOM, empty event type, case, bare `data`, late `event:`', async () => {
    const q = codec.encodeText('Qwen');
    const cases: [string, string][] = [
      ['\uFEFFdata: {"result":"Qwen"}\n\n', `\uFEFFdata: {"result":"${q}"}\n\n`], // BOM skipped, the first line is data
      ['event:\ndata: {"result":"Qwen"}\n\n', `event:\ndata: {"result":"${q}"}\n\n`], // empty type: message
      ['event: \ndata: {"result":"Qwen"}\n\n', `event: \ndata: {"result":"${q}"}\n\n`],
      ['Event: endpoint\ndata: {"result":"Qwen"}\n\n', `Event: endpoint\ndata: {"result":"${q}"}\n\n`], // unknown field
      ['DATA: {"result":"Qwen"}\ndata: {"result":"Qwen"}\n\n', `DATA: {"result":"Qwen"}\ndata: {"result":"${q}"}\n\n`],
      ['data\ndata: {"result":"Qwen"}\ndata\n\n', `data\ndata: {"result":"${q}"}\ndata\n\n`], // bare `data`: an empty line of data
      ['data: {"result":"Qwen"}\nevent: endpoint\n\n', 'data: {"result":"Qwen"}\nevent: endpoint\n\n'], // late type: passes
      ['event: endpoint\ndata: {"result":"Qwen"}\nevent: message\n\n', `event: endpoint\ndata: {"result":"${q}"}\nevent: message\n\n`],
      ['event: endpoint\ndata: /x?Qwen\n\n', 'event: endpoint\ndata: /x?Qwen\n\n'],
    ];
    for (const [input, expected] of cases) {
      expect(
        new TextDecoder('utf-8', { ignoreBOM: true }).decode(
          await run(createEncodeStream({ framing: 'sse' }), oneByteChunks(bytes(input))),
        ),
      ).toBe(expected);
    }
  });

  it('ends a refused event where its source ended, however the stream is cut (a held line before the dropped data ends in CR)', async () => {
    // The refused event's held `event: foo` line ends in a CR; its data lines are dropped, so the
    // blank line's LF would join that CR into one CRLF, and the event would run on into the next,
    // giving the next message the type `foo` (a client drops it). A CR goes before that LF, and
    // that must not depend on how the dropped line arrived.
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'x'.repeat(200) });
    const next = '{"jsonrpc":"2.0","id":2,"result":"Qwen"}';
    for (const ending of ['\n', '\r\n']) {
      const input = bytes(`data: {"jsonrpc":"2.0",${ending}event: foo\rdata: ${big}${ending}${ending}data: ${next}${ending}${ending}`);
      const outputs = new Set<string>();
      for (let cut = 0; cut <= input.length; cut += cut < 80 ? 1 : 37) {
        const out = await run(
          createEncodeStream({ framing: 'sse', maxMessageBytes: 100, onInvalidMessage: () => {} }),
          split(input, [cut]),
        );
        outputs.add(new TextDecoder().decode(out));
      }
      expect(outputs.size).toBe(1);
      const events = parseSse(bytes([...outputs][0]!)).events;
      expect(events.map((e) => [e.event, e.data])).toEqual([[undefined, JSON.stringify(codec.encodeMessage(JSON.parse(next)))]]);
    }
  });
});
