// arrayElementSpans against JSON.parse: every element's bytes parse to that element, for any
// JSON array, with any whitespace, strings holding brackets, commas, quotes and escapes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayElementSpans } from '../src/codec/json-spans.ts';
import { runs } from './arbitraries.ts';

const ws = fc.constantFrom('', ' ', '\n', '\t ', '\r\n');
const tricky = fc.constantFrom(
  '"]"',
  '"\\""',
  '"a,b"',
  '"\\\\"',
  '"[{"',
  '12345678901234567891',
  '1.50',
  '-0',
  '1e400',
  '{"a":[1,{"b":"]"}]}',
  '[]',
  '{}',
  'null',
);

describe('arrayElementSpans', () => {
  it('finds each element of any array, byte for byte', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            ws,
            fc.oneof(
              tricky,
              fc.jsonValue().map((v) => JSON.stringify(v)),
            ),
            ws,
          ),
          { maxLength: 8 },
        ),
        ws,
        (parts, tail) => {
          const text = `[${parts.map(([a, v, b]) => a + v + b).join(',')}${tail}]`;
          const bytes = new TextEncoder().encode(text);
          const spans = arrayElementSpans(bytes);
          const decoder = new TextDecoder();
          expect(spans.map(([s, e]) => decoder.decode(bytes.subarray(s, e)))).toEqual(parts.map(([, v]) => v));
        },
      ),
      runs(300),
    );
  });
});
