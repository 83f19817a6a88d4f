// serve's oneLine (src/cli/one-line.ts): a pretty-printed message on one line, against
// JSON.stringify's compact text of the same value (strings holding spaces, line breaks, quotes
// and backslashes keep them).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLine } from '../src/cli/one-line.js';
import { runs } from './arbitraries.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('oneLine', () => {
  it('takes out the whitespace outside strings of pretty-printed JSON, nothing else', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(1, 2, '\t', '\r\n'), (v, indent) => {
        const pretty = JSON.stringify({ v, s: ' \n"\\ ' }, null, indent);
        expect(text(oneLine(bytes(pretty)))).toBe(JSON.stringify({ v, s: ' \n"\\ ' }));
      }),
      runs(300),
    );
  });

  it('gives a line without a line break back as it is', () => {
    const b = bytes('{ "a" : 1 }');
    expect(oneLine(b)).toBe(b);
  });
});
