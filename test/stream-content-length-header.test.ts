// Content-Length header blocks, read byte by byte, against a reference made of the regular
// expressions that define the rules (the header block as Latin-1 text): random blocks of near
// miss names, separators, values, line endings and stray CRs, whole or split anywhere.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from './arbitraries.ts';
import { block, expectAsReference, feed, headerAsReference } from './content-length-reference.ts';
import { latin1, oneByteChunks, split } from './stream-helpers.ts';

describe('Content-Length header blocks', () => {
  it('are read as the regular expressions read them, whatever the chunking', () => {
    fc.assert(
      fc.property(block, fc.array(fc.nat(120), { maxLength: 4 }), fc.boolean(), (text, cuts, oneByte) =>
        headerAsReference({ text, cuts, oneByte }),
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
