// The Content-Length header rules as regular expressions (the header block as Latin-1 text),
// random header blocks, and the check that the transformer reads a block as they do: shared by
// the header properties (test/stream-content-length-header.test.ts, the reader alone in
// test/stream-content-length-reader.test.ts) and the fuzz regressions that replay them.
import fc from 'fast-check';
import { createByteTransformer, PayloadStreamError } from '../src/stream/index.ts';
import { expectEqual } from './quick-expect.ts';
import { latin1, oneByteChunks, split } from './stream-helpers.ts';

/** The rules as regular expressions: why the block is refused, or its value and where its digits are. */
export function reference(block: string): { refused: string } | { value: number; digitsStart: number; digitsEnd: number } {
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

/** Feeds `chunks` (no size limit: a value's digits show in the error): the output, or the error's message. */
export function feed(chunks: Uint8Array[]): { out: Uint8Array } | { error: string } {
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
export function expectAsReference(text: string, chunks: (input: Uint8Array) => Uint8Array[]): void {
  const ref = reference(text);
  // A body the value can be checked with: `0`, or `{}` then spaces (a JSON text of any length).
  const bodyLength = 'value' in ref && ref.value >= 1 && ref.value <= 80 ? ref.value : 0;
  const body = bodyLength === 1 ? '0' : bodyLength ? `{}${' '.repeat(bodyLength - 2)}` : '';
  const got = feed(chunks(latin1(text + body)));
  if ('refused' in ref) {
    expectEqual(got, { error: `${ref.refused} in message 1 at byte 0` });
  } else if (ref.value === bodyLength || ref.value === 0) {
    // The block comes out with the value written anew (no leading zeros), the body as it was.
    const expected = text.slice(0, ref.digitsStart) + String(ref.value) + text.slice(ref.digitsEnd) + body;
    expectEqual(got, { out: Buffer.from(latin1(expected)) });
  } else if (ref.value > 80) {
    expectEqual(got, {
      error: `Content-Length runs past the end of the stream (${ref.value} bytes missing) in message 1 at byte 0`,
    });
  }
}

/** The header property's case: `text` fed one byte at a time, or cut at `cuts`. */
export function headerAsReference(input: { text: string; cuts: number[]; oneByte: boolean }): void {
  expectAsReference(input.text, (bytes) => (input.oneByte ? oneByteChunks(bytes) : split(bytes, input.cuts)));
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

/** Random header blocks: near-miss names, separators, values, line endings and stray CRs. */
export const block = fc
  .record({ lines: fc.array(header, { minLength: 1, maxLength: 4 }), endings: fc.array(ending, { minLength: 1, maxLength: 5 }) })
  .map(({ lines, endings }) => [...lines, ''].map((l, i) => l + endings[i % endings.length]).join(''));
