// Message numbers in errors, one count in every framing: a message is a body that is not only
// whitespace (blank NDJSON lines, blank Content-Length bodies and blank SSE data are not
// messages), and every error, from the JSON or from the framing, names the number the count
// gives its message, however the stream is cut.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createByteTransformer, PayloadStreamError } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, split } from './stream-helpers.ts';

type Framing = 'ndjson' | 'content-length' | 'sse';

/** maxMessageBytes here: above every body below. */
const MAX = 64;

const body = fc.constantFrom(
  { text: '{"a":"Qwen"}', blank: false, invalid: false },
  { text: '{}', blank: false, invalid: false },
  { text: '', blank: true, invalid: false },
  { text: ' ', blank: true, invalid: false },
  { text: ' \t ', blank: true, invalid: false },
  { text: '{x}', blank: false, invalid: true },
  { text: '[1,]', blank: false, invalid: true },
  { text: ' "\u0001"', blank: false, invalid: true },
);

/**
 * How a stream may end badly: each names the next message, once, or twice for a body over
 * maxMessageBytes (refused as too large, then cut by the stream's end).
 */
const endings: Record<Framing, [string, number][]> = {
  ndjson: [
    ['', 0],
    ['{"a":', 1],
    [' [1', 1],
  ],
  'content-length': [
    ['', 0],
    ['Content-Lngth: 2\r\n\r\n{}', 1],
    ['Content-Length: 9\r\n\r\n{"a"', 1],
    ['Content-Length: 4\r\n\r\n', 1],
    ['Content-Length: 2\r\n', 1],
    [`Content-Length: ${MAX + 1}\r\n\r\n{"a":`, 2],
  ],
  sse: [
    ['', 0],
    ['data: {"a":', 1],
    ['data: [1', 1],
  ],
};

function frame(framing: Framing, text: string): string {
  if (framing === 'ndjson') return `${text}\n`;
  if (framing === 'sse') return `data: ${text}\n\n`;
  return `Content-Length: ${bytes(text).length}\r\n\r\n${text}`;
}

/**
 * The numbers of the errors, in order: those reported (onInvalidMessage) and the one thrown, if
 * any (the framing's errors end the stream even with onInvalidMessage; a message cut by the
 * stream's end is reported in NDJSON and SSE, thrown in Content-Length).
 */
function numbers(framing: Framing, input: Uint8Array, cuts: number[]): number[] {
  const errors: number[] = [];
  try {
    const t = createByteTransformer(
      'encode',
      { framing, maxMessageBytes: MAX, onInvalidMessage: (e) => void errors.push(e.messageNumber) },
      () => {},
    );
    for (const c of split(input, cuts)) t.push(c);
    t.close();
  } catch (e) {
    if (!(e instanceof PayloadStreamError)) throw e;
    errors.push(e.messageNumber);
  }
  return errors;
}

describe('message numbers', () => {
  for (const framing of ['ndjson', 'content-length', 'sse'] as const) {
    it(`count the messages that are not blank, for JSON and framing errors alike (${framing})`, () => {
      fc.assert(
        fc.property(
          fc.array(body, { maxLength: 10 }),
          fc.constantFrom(...endings[framing]),
          // (An event of comments, or of another type, is not a message either.)
          fc.array(fc.boolean(), { maxLength: 10 }),
          fc.array(fc.nat(400), { maxLength: 5 }),
          (bodies, [ending, endingErrors], others, cuts) => {
            let text = '';
            let count = 0;
            const expected: number[] = [];
            bodies.forEach((b, i) => {
              if (framing === 'sse' && others[i]) text += i % 2 ? ': keep-alive\n\n' : 'event: other\ndata: {x}\n\n';
              text += frame(framing, b.text);
              if (!b.blank) count++;
              if (b.invalid) expected.push(count);
            });
            for (let k = 0; k < endingErrors; k++) expected.push(count + 1);
            expect(numbers(framing, bytes(text + ending), cuts)).toEqual(expected);
          },
        ),
        runs(300),
      );
    });
  }
});
