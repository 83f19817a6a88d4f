// onInvalidMessage on NDJSON streams: garbage lines (banners, partial JSON, bad UTF-8, values with
// junk after them, oversize lines) are dropped and reported once each; the valid messages around
// them come out as the object API makes them, however the input is chunked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { createDecodeStream, createEncodeStream, PayloadStreamError, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, oneByteChunks, run, split } from './stream-helpers.ts';

const codec = createCodec();
const MAX = 300;

const str = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('Qwen', 'q"w\\en', '通义', 'aliyun cloud', '😀'));
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: str, params: fc.dictionary(str, str, { maxKeys: 3 }) }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.integer(),
    result: fc.record({ content: fc.array(fc.record({ type: fc.constant('text'), text: str }), { maxLength: 3 }) }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.integer(),
    result: fc.record({ content: fc.array(fc.record({ data: str, type: fc.constantFrom('image', 'text') }), { maxLength: 2 }) }),
  }),
);

type Line = { valid: unknown } | { garbage: Uint8Array; silent: boolean };

const cat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** Garbage built from a message's JSON text `t`; `silent`: nothing of it may be written out. */
const garbage = (t: string, cut: number): fc.Arbitrary<{ garbage: Uint8Array; silent: boolean }> =>
  fc.constantFrom(
    { garbage: bytes('Server started on port 3000'), silent: true },
    { garbage: bytes('> npm start Qwen'), silent: true },
    { garbage: bytes(t.slice(0, 1 + (cut % (t.length - 1)))), silent: false }, // cut short
    { garbage: bytes(`${t}x`), silent: false }, // junk after a whole value
    { garbage: bytes(`${t}{"id":2}`), silent: false }, // two values on one line
    { garbage: bytes('12 13'), silent: false },
    { garbage: cat(bytes(t.slice(0, -2)), new Uint8Array([0xff, 0xc3]), bytes('"}')), silent: false }, // bad UTF-8
    { garbage: cat(bytes('{"result":"'), new Uint8Array([0xe6, 0x28]), bytes('"}')), silent: false },
    { garbage: bytes(`{"jsonrpc":"2.0","id":1,"result":"${'Qwen '.repeat(70)}"}`), silent: false }, // over MAX
  );

const item = (text: (m: unknown) => string): fc.Arbitrary<Line> =>
  fc.oneof(
    message.map((m) => ({ valid: m })),
    fc.tuple(message, fc.nat()).chain(([m, cut]) => garbage(text(m), cut)),
  );

const scenario = (text: (m: unknown) => string) =>
  fc.record({
    lines: fc.array(item(text), { minLength: 1, maxLength: 8 }),
    crlf: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    cuts: fc.array(fc.nat(4000), { maxLength: 12 }),
    oneByte: fc.boolean(),
  });

function render(lines: Line[], crlf: boolean[], text: (m: unknown) => string): Uint8Array {
  return cat(...lines.map((l, i) => cat('valid' in l ? bytes(text(l.valid)) : l.garbage, bytes(crlf[i] ? '\r\n' : '\n'))));
}

async function check(mode: 'encode' | 'decode', s: { lines: Line[]; crlf: boolean[]; cuts: number[]; oneByte: boolean }) {
  const text = mode === 'encode' ? (m: unknown) => JSON.stringify(m) : (m: unknown) => JSON.stringify(codec.encodeMessage(m));
  const input = render(s.lines, s.crlf, text);
  const errors: PayloadStreamError[] = [];
  const options: StreamOptions = { maxMessageBytes: MAX, onInvalidMessage: (e) => void errors.push(e) };
  const stream = mode === 'encode' ? createEncodeStream(options) : createDecodeStream(options);
  const out = await run(stream, s.oneByte ? oneByteChunks(input) : split(input, s.cuts));
  const outText = new TextDecoder().decode(out);
  // What a receiver keeps: the lines that parse.
  const parse = (l: string): unknown[] => {
    try {
      return [JSON.parse(l) as unknown];
    } catch {
      return [];
    }
  };
  const kept = outText.split('\n').flatMap(parse);
  const expected = s.lines.flatMap((l) => ('valid' in l ? [mode === 'encode' ? codec.encodeMessage(l.valid) : l.valid] : []));
  expect(kept).toEqual(JSON.parse(JSON.stringify(expected)));
  // Each garbage line reported once, by its message number.
  const numbers = s.lines.flatMap((l, i) => ('garbage' in l ? [i + 1] : []));
  expect(errors.map((e) => e.messageNumber)).toEqual(numbers);
  for (const e of errors) {
    expect(e).toBeInstanceOf(PayloadStreamError);
    expect(e.message).not.toMatch(/Server|npm|Qwen|result/);
  }
  // Lines that do not parse come only from garbage, one at most per garbage line, and a
  // garbage line that is invalid from its first byte writes nothing.
  const junk = outText.split('\n').filter((l, i, all) => i < all.length - 1 && l.trim() !== '' && parse(l).length === 0);
  expect(junk.length).toBeLessThanOrEqual(numbers.length);
  // (Whole phrases: a valid message's random text may hold `npm` or `Server`.)
  expect(outText).not.toMatch(/Server started|> npm start/);
}

describe('onInvalidMessage, NDJSON', () => {
  it('encode: drops and reports each invalid line once, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        scenario((m) => JSON.stringify(m)),
        (s) => check('encode', s),
      ),
      runs(150),
    );
  });

  it('decode: drops and reports each invalid line once, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        scenario((m) => JSON.stringify(codec.encodeMessage(m))),
        (s) => check('decode', s),
      ),
      runs(150),
    );
  });

  it('pins the wire: a line invalid from its start vanishes; a written part is spoiled and ended', async () => {
    const errors: string[] = [];
    const opts = { onInvalidMessage: (e: PayloadStreamError) => void errors.push(e.message) };
    const out = await run(createEncodeStream(opts), [
      bytes('Server started on port 3000\n{"id":1,"result":"Qwen"}\n{"id":2}x\n{"id":3,"result":{\n'),
    ]);
    expect(new TextDecoder().decode(out)).toBe(`{"id":1,"result":"${codec.encodeText('Qwen')}"}\n{"id":2},\n{"id":3,"result":{\n`);
    expect(errors).toEqual([
      'invalid JSON in message 1 at byte 0',
      'invalid JSON in message 3 at byte 8',
      'the message ends before its JSON value does in message 4 at byte 18',
    ]);
  });

  it('without the option the stream still errors', async () => {
    const e = await run(createEncodeStream(), [bytes('{"id":1}\nbanner\n')]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PayloadStreamError);
    expect((e as Error).message).toBe('invalid JSON in message 2 at byte 0');
  });
});
