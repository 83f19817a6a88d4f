// maxMessageBytes counts the message's JSON text exactly, in every framing: not NDJSON's CR
// before LF, not the newline SSE framing adds after the last data line (the newlines joining
// data lines are part of the event's data, as the spec builds it). L bytes pass with a limit of
// L, and fail with L - 1 (or L - 0.5: a fractional limit counts as its whole part), as too large
// at byte L - 1.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { createDecodeStream, createEncodeStream, PayloadStreamError, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, run, split } from './stream-helpers.ts';

const codec = createCodec();
const str = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('Qwen', '通义', 'aliyun'));
const message = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.integer(),
  result: fc.record({ text: str, list: fc.array(str, { maxLength: 3 }) }),
});

// `message`: the message's text as the receiver reads it (SSE drops one space after `data:`).
type Framed = { framing: StreamOptions['framing']; frame: (json: string) => string; message?: (json: string) => string };
const framings: fc.Arbitrary<Framed> = fc.constantFrom<Framed>(
  { framing: 'ndjson', frame: (j) => `${j}\n` },
  { framing: 'ndjson', frame: (j) => `${j}\r\n` },
  { framing: 'ndjson', frame: (j) => j }, // (the last line, without its ending)
  { framing: 'content-length', frame: (j) => `Content-Length: ${bytes(j).length}\r\n\r\n${j}` },
  { framing: 'sse', frame: (j) => `data: ${j.split('\n').join('\r\ndata: ')}\r\n\r\n` },
  {
    framing: 'sse',
    frame: (j) => `event: message\ndata:${j.split('\n').join('\ndata:')}\n\n`,
    message: (j) =>
      j
        .split('\n')
        .map((l) => l.replace(/^ /, ''))
        .join('\n'),
  },
);

describe('maxMessageBytes is exact', () => {
  it('a message of exactly maxMessageBytes passes, one byte more fails, in every framing', async () => {
    await fc.assert(
      fc.asyncProperty(
        message,
        fc.constantFrom(0, 1),
        framings,
        fc.constantFrom('encode', 'decode'),
        fc.array(fc.nat(400), { maxLength: 6 }),
        async (m, indent, f, mode, cuts) => {
          const value = mode === 'encode' ? m : codec.encodeMessage(m);
          // Pretty JSON for SSE and Content-Length (its newlines join data lines); NDJSON lines are compact.
          const json = JSON.stringify(value, null, f.framing === 'ndjson' ? 0 : indent);
          const size = bytes(f.message ? f.message(json) : json).length;
          const input = bytes(f.frame(json));
          const make = (max: number) =>
            (mode === 'encode' ? createEncodeStream : createDecodeStream)({ framing: f.framing, maxMessageBytes: max });
          const out = await run(make(size), split(input, cuts));
          const expected = mode === 'encode' ? codec.encodeMessage(m) : m;
          const text = new TextDecoder().decode(out);
          const data =
            f.framing === 'sse'
              ? text
                  .split(/\r?\n/)
                  .filter((l) => l.startsWith('data:'))
                  .map((l) => l.replace(/^data: ?/, ''))
                  .join('\n')
              : f.framing === 'content-length'
                ? text.slice(text.indexOf('\r\n\r\n') + 4)
                : text;
          expect(JSON.parse(data)).toEqual(expected);
          // One byte more fails at the limit's byte; a fractional limit counts as its whole
          // part (L - 0.5 lets L - 1 bytes through), and the error names a whole byte offset.
          for (const max of [size - 1, size - 0.5]) {
            const e = await run(make(max), split(input, cuts)).catch((x: unknown) => x);
            expect(e).toBeInstanceOf(PayloadStreamError);
            expect([(e as PayloadStreamError).code, (e as PayloadStreamError).byteOffset], `limit ${max}`).toEqual(['too-large', size - 1]);
          }
          await run(make(size + 0.5), split(input, cuts)); // (passes)
        },
      ),
      runs(200),
    );
  });
});
