// The Content-Length header-block reader alone (src/stream/content-length-header.ts): bytes in,
// what they are out: not yet a block (its blank line may still come), a block (where it ends,
// the body's length, where its digits are), or refused (code, reason, byte offset). Against a
// reference written here: the blank line is the first `\n\r?\n` within 64 KiB and 4 bytes, the
// block before it is read by the regular expressions of content-length-reference.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeaderReader, NEED_MORE, REFUSED } from '../src/stream/content-length-header.ts';
import { runs } from './arbitraries.ts';
import { block, reference } from './content-length-reference.ts';
import { latin1 } from './stream-helpers.ts';

/** The documented bound of a header block; its blank line may end up to 4 bytes past it. */
const MAX = 64 * 1024;

type Outcome = 'need more' | { code: string; reason: string; byteOffset: number } | { end: number; bodyLength: number; digits: number[] };

/** What the rules say the bytes from a block's start, `text` (Latin-1), are. */
function expected(text: string): Outcome {
  const blank = /\n\r?\n/.exec(text.slice(0, MAX + 4));
  if (!blank) return text.length <= MAX ? 'need more' : { code: 'too-large', reason: 'header block too large', byteOffset: MAX };
  const end = blank.index + blank[0].length;
  const ref = reference(text.slice(0, end));
  if ('refused' in ref) return { code: 'framing', reason: ref.refused, byteOffset: 0 };
  return { end, bodyLength: ref.value, digits: [ref.digitsStart, ref.digitsEnd] };
}

/** What the reader makes of b[start, limit), told that bytes before `searched` were searched (offsets from `start`). */
function read(reader: HeaderReader, b: Uint8Array, start: number, limit: number, searched: number): Outcome {
  const end = reader.read(b, start, limit, searched);
  if (end === NEED_MORE) return 'need more';
  if (end === REFUSED) return { ...reader.refusal };
  return { end: end - start, bodyLength: reader.bodyLength, digits: [reader.digitsStart - start, reader.digitsEnd - start] };
}

// What may follow a block (its body: it may hold blank lines of its own), or come before it.
const bytesAround = fc.constantFrom('', '{}', '\n\n', '\r\n\r\n{}', 'Content-Length: 3\r\n\r\n', '\r');
// Blocks around 64 KiB: one long header line of padding, or of blanks around the value.
const long = fc
  .record({
    size: fc.integer({ min: MAX - 24, max: MAX + 8 }),
    blanks: fc.boolean(),
    crlf: fc.boolean(),
    ended: fc.boolean(),
  })
  .map(({ size, blanks, crlf, ended }) => {
    const nl = crlf ? '\r\n' : '\n';
    const line = blanks
      ? (n: number) => `Content-Length:${' '.repeat(n)}2`
      : (n: number) => `X-Pad: ${'p'.repeat(n)}${nl}Content-Length: 2`;
    const fixed = line(0).length + 2 * nl.length;
    return line(Math.max(0, size - fixed)) + nl + (ended ? nl : '');
  });
// Two Content-Length lines, one of them valid and the other empty or not a number, either order.
const twoLengths = fc
  .record({ bad: fc.constantFrom('', ' ', 'x', '1x', '-1'), first: fc.boolean(), nl: fc.constantFrom('\n', '\r\n') })
  .map(({ bad, first, nl }) => {
    const lines = ['Content-Length: 2', `Content-Length:${bad}`];
    return (first ? lines : lines.reverse()).join(nl) + nl + nl;
  });

// Usual blocks with long values: past 15 digits a sum of digits is not always the nearest double.
const longValue = fc
  .record({
    length: fc.integer({ min: 15, max: 18 }),
    digits: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 18, maxLength: 18 }),
    other: fc.boolean(), // (another line first: not the one-pass read)
  })
  .map(({ length, digits, other }) => `${other ? 'X-A: 1\r\n' : ''}Content-Length: ${digits.slice(0, length).join('')}\r\n\r\n`);

describe('the Content-Length header-block reader', () => {
  it('reads a block as the rules do, from any start, at every cut, looking again from where it stopped', () => {
    const header = fc.oneof(
      { weight: 6, arbitrary: block },
      { weight: 1, arbitrary: long },
      { weight: 1, arbitrary: twoLengths },
      { weight: 2, arbitrary: longValue },
    );
    const input = fc.record({
      before: bytesAround,
      header,
      after: bytesAround,
      cuts: fc.array(fc.oneof(fc.nat(), fc.constantFrom(MAX - 1, MAX, MAX + 1, MAX + 3, MAX + 4)), { maxLength: 5 }),
    });
    fc.assert(
      fc.property(input, ({ before, header, after, cuts }) => {
        const text = header + after;
        const b = latin1(before + text);
        const start = before.length;
        // Read as a block gathered across chunks is: longer and longer, each time told where
        // the last look stopped (the first look reads the usual block in one pass).
        const ends = [...new Set([...cuts.map((c) => c % (text.length + 1)), text.length])].sort((x, y) => x - y);
        const reader = new HeaderReader();
        let searched = start;
        for (const length of ends) {
          const got = read(reader, b, start, start + length, searched);
          expect(got).toEqual(expected(text.slice(0, length)));
          if (got !== 'need more') break; // (no one reads on past a block or a refusal)
          searched = start + length;
        }
        // And at one look, from a fresh reader.
        expect(read(new HeaderReader(), b, start, b.length, start)).toEqual(expected(text));
      }),
      runs(400),
    );
  });
});
