// The codec against the oracle in test/reference.ts, and the round-trip guarantee.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { anyString, fragmentString, runs } from './arbitraries.ts';
import { referenceDecode, referenceEncode, termPositions } from './reference.ts';
import { WIRE_FORMATS } from './reference-options.ts';

const formats = WIRE_FORMATS.map((f) => ({ ...f, codec: createCodec(f.options) }));

describe.each(formats)('$name', ({ codec, ref }) => {
  const strings = fc.oneof(anyString(), fragmentString());

  it('encodes exactly like the reference', () => {
    fc.assert(
      fc.property(strings, (s) => {
        expect(codec.encodeText(s)).toBe(referenceEncode(s, ref));
      }),
      runs(3000),
    );
  });

  it('decodes exactly like the reference, on any text', () => {
    fc.assert(
      fc.property(strings, (s) => {
        expect(codec.decodeText(s)).toBe(referenceDecode(s, ref));
      }),
      runs(3000),
    );
  });

  it('round-trips every string, and leaves no term behind', () => {
    fc.assert(
      fc.property(strings, (s) => {
        const encoded = codec.encodeText(s);
        expect(codec.decodeText(encoded)).toBe(s);
        expect(termPositions(encoded, ref)).toEqual([]);
      }),
      runs(3000),
    );
  });

  it('never introduces U+FFFD', () => {
    fc.assert(
      fc.property(strings, (s) => {
        const count = (t: string) => t.split('\uFFFD').length;
        expect(count(codec.decodeText(codec.encodeText(s)))).toBe(count(s));
        expect(count(codec.decodeText(s))).toBe(count(s));
      }),
      runs(1000),
    );
  });

  it('leaves text with nothing to alias unchanged, and changes all other text', () => {
    fc.assert(
      fc.property(strings, (s) => {
        expect(codec.encodeText(s) === s).toBe(referenceEncode(s, ref) === s);
      }),
      runs(500),
    );
  });
});
