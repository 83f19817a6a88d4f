// serve's byte helpers (src/cli/raw-json.ts) against references built with the input: the raw
// text of a message's top-level `id` (keys escaped or not, ids nested deeper, strings holding
// quotes, backslashes and braces, any whitespace), and a pretty-printed message on one line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLine, rawMember, withRawId } from '../src/cli/raw-json.js';
import { createCodec } from '../src/index.js';
import { runs } from './arbitraries.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n  ');
/** JSON text of any value, sometimes pretty-printed, with strings that hold `"`, `\` and braces. */
const valueText = fc
  .tuple(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(0, 2), fc.constantFrom('', '"}\\\\', '{"id":1}', '\\'))
  .map(([v, indent, s]) => JSON.stringify(s ? { s, v } : v, null, indent));
/** A member name meaning `id` (plain or escaped), or another. */
const key = fc.constantFrom('"id"', '"\\u0069d"', '"i\\u0064"', '"ids"', '"i"', '"d\\"id"', '"\\\\id"');
const isId = (k: string) => JSON.parse(k) === 'id';

describe('rawMember', () => {
  it("gives the raw text of the object's last top-level `id`, however the members are written", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(key, valueText, space, space), { maxLength: 6 }), space, (members, end) => {
        const json = `{${members.map(([k, v, a, b]) => `${a}${k}${b}:${a}${v}${b}`).join(',')}${end}}`;
        const last = members.filter(([k]) => isId(k)).at(-1);
        expect(rawMember(bytes(json), 'id')).toBe(last?.[1]);
        expect(JSON.parse(json)).toBeDefined(); // (the input is JSON)
      }),
      runs(300),
    );
  });

  it('finds nothing in what is not an object', () => {
    for (const json of ['[{"id":1}]', '"id"', '5', ' null']) expect(rawMember(bytes(json), 'id')).toBeUndefined();
  });
});

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

describe('withRawId', () => {
  it('writes the id as given and the rest encoded', () => {
    const codec = createCodec();
    expect(withRawId({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Qwen' } }, '9007199254740993', codec)).toBe(
      `{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32603,"message":"${codec.encodeText('Qwen')}"}}`,
    );
    expect(withRawId({ jsonrpc: '2.0', id: null }, '"a"')).toBe('{"jsonrpc":"2.0","id":"a"}');
  });
});
