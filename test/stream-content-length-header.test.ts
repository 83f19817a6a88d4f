// Content-Length header blocks, read byte by byte, against a reference made of the regular
// expressions that define the rules (the header block as Latin-1 text): random blocks of near
// miss names, separators, values, line endings and stray CRs, whole or split anywhere.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createByteTransformer, PayloadStreamError } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { oneByteChunks, split } from './stream-helpers.ts';

const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** The rules as regular expressions: why the block is refused, or its value and where its digits are. */
function reference(block: string): { refused: string } | { value: number; digitsStart: number; digitsEnd: number } {
  if (/\r(?!\n)/.test(block)) return { refused: 'a bare CR in the header block (ambiguous)' };
  const lf = block.split('\n').length - 1;
  const crlf = block.split('\r\n').length - 1;
  if (crlf !== 0 && crlf !== lf) return { refused: 'LF and CRLF line endings mixed in the header block (ambiguous)' };
  if ((block.match(/^content-length[ \t]*:/gim) ?? []).length > 1) return { refused: 'more than one Content-Length header (ambiguous)' };
  const m = /^(content-length[ \t]*:[ \t]*)(\d+)([ \t]*)$/im.exec(block);
  if (!m) return { refused: 'no valid Content-Length header' };
  const digitsStart = m.index + m[1]!.length;
  return { value: Number(m[2]), digitsStart, digitsEnd: digitsStart + m[2]!.length };
}

const name = fc.constantFrom(
  'Content-Length',
  'content-length',
  'CONTENT-LENGTH',
  'Content-Lengt',
  'Content-Lengthh',
  'X-Content-Length',
  'Content_Length',
  'Content\rLength', // (a bare CR)
  'Content-Length\xe9',
  '\xc3ontent-Length',
);
const blank = fc.constantFrom('', ' ', '\t', ' \t ');
const value = fc.oneof(
  fc.constantFrom(
    '',
    'x',
    '12 3',
    '1x',
    '-1',
    '+2',
    '\xb2',
    '0002',
    '99999999999999999999',
    '12345678901234567',
    '9007199254740993',
    '123456789012345678901234567890',
    '00000000000000000000002',
  ),
  fc.nat(80).map(String),
);
const header = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(name, blank, fc.constantFrom(':', ';', ''), blank, value, blank).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.constantFrom('X-A: 1', 'Content-Type: application/json', 'X-\xff: \x85', 'X: 1\rY: 2', ':', 'x') },
);
const ending = fc.constantFrom('\n', '\r\n');

const block = fc
  .record({ lines: fc.array(header, { minLength: 1, maxLength: 4 }), endings: fc.array(ending, { minLength: 1, maxLength: 5 }) })
  .map(({ lines, endings }) => [...lines, ''].map((l, i) => l + endings[i % endings.length]).join(''));

/** Feeds `chunks` (no size limit: a value's digits show in the error): the output, or the error's message. */
function feed(chunks: Uint8Array[]): { out: Uint8Array } | { error: string } {
  const parts: Uint8Array[] = [];
  try {
    const t = createByteTransformer(
      'encode',
      { framing: 'content-length', maxMessageBytes: Number.POSITIVE_INFINITY },
      (b) => void parts.push(b),
    );
    for (const c of chunks) t.push(c);
    t.close();
    return { out: Buffer.concat(parts) };
  } catch (e) {
    if (!(e instanceof PayloadStreamError)) throw e;
    return { error: e.message };
  }
}

/** What the reference says `text` (a header block) gives, fed as `chunks(input)`: checked. */
function expectAsReference(text: string, chunks: (input: Uint8Array) => Uint8Array[]): void {
  const ref = reference(text);
  // A body the value can be checked with: `{}` then spaces (a JSON text of any length from 2).
  const bodyLength = 'value' in ref && ref.value >= 2 && ref.value <= 80 ? ref.value : 0;
  const body = bodyLength ? `{}${' '.repeat(bodyLength - 2)}` : '';
  const got = feed(chunks(latin1(text + body)));
  if ('refused' in ref) {
    expect(got).toEqual({ error: `${ref.refused} in message 1 at byte 0` });
  } else if (ref.value === bodyLength || ref.value === 0) {
    // The block comes out with the value written anew (no leading zeros), the body as it was.
    const expected = text.slice(0, ref.digitsStart) + String(ref.value) + text.slice(ref.digitsEnd) + body;
    expect(got).toEqual({ out: Buffer.from(latin1(expected)) });
  } else if (ref.value > 80) {
    expect(got).toEqual({
      error: `Content-Length runs past the end of the stream (${ref.value} bytes missing) in message 1 at byte 0`,
    });
  }
}

describe('Content-Length header blocks', () => {
  it('are read as the regular expressions read them, whatever the chunking', () => {
    fc.assert(
      fc.property(block, fc.array(fc.nat(120), { maxLength: 4 }), fc.boolean(), (text, cuts, oneByte) =>
        expectAsReference(text, (input) => (oneByte ? oneByteChunks(input) : split(input, cuts))),
      ),
      runs(300),
    );
  });

  // The usual block is read in one pass (a fast path beside the general reader): every byte
  // value at every place of such a block (an empty body: the frame whole in the chunk, where
  // the fast path reads it) must be read as the rules read it. (A CR in place of
  // the name's '-' was once read as '-': `0x0d | 0x20` is 0x2d.)
  it('are read as the rules read them with any byte in place of any byte of a usual block', () => {
    for (const usual of ['Content-Length: 0\r\n\r\n', 'content-length:0\n\n', 'CONTENT-LENGTH\t:\t0 \n\n'])
      for (let at = 0; at < usual.length; at++)
        for (let c = 0; c < 256; c++) {
          const text = usual.slice(0, at) + String.fromCharCode(c) + usual.slice(at + 1);
          // (Only where the block still ends at its end, as the reference reads whole blocks.)
          const blank = /\n\r?\n/.exec(text);
          if (!blank || blank.index + blank[0].length !== text.length) continue;
          expectAsReference(text, (input) => [input]);
          expectAsReference(text, oneByteChunks);
        }
  });
  it('looks for the end of a block only after the body before it (a body may end in blank lines)', () => {
    for (const body of ['{}\n\n', '{}\r\n\r\n', '{}\n\r\n']) {
      const input = latin1(`Content-Length: ${body.length}\r\n\r\n${body}Content-Length: 2\r\n\r\n{}`);
      for (const chunks of [[input], split(input, [body.length + 21]), oneByteChunks(input)])
        expect(feed(chunks)).toEqual({ out: Buffer.from(input) });
    }
  });
});
