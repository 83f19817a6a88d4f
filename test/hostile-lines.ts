// NDJSON lines written byte by byte, not by a JSON writer, for the tests that hold the indexed
// path to the per-message one (indexed-adversary.test.ts): every escape (surrogate pairs, lone
// halves, uppercase hex, \u0000, invalid ones), backslash runs, raw control bytes and bytes
// that are not UTF-8 (overlongs, surrogates, past U+10FFFF, cut sequences), numbers and
// literals of every form, whitespace that JSON refuses, keys spelt with escapes, MCP shapes
// (content, resource contents, tool schemas with maxLength under const/default/enum/examples
// and name maps), batches, padding that moves everything across 64-byte blocks. `bad: false`
// leaves out what makes a line invalid, so that most lines are taken.
import fc from 'fast-check';
import { concat } from '../src/util/concat.ts';

const encoder = new TextEncoder();
export const B = (s: string) => encoder.encode(s);

export const cat = (parts: Uint8Array[]): Uint8Array => concat(parts);

const hex4 = (u: number, upper: boolean) => {
  const h = u.toString(16).padStart(4, '0');
  return upper ? h.toUpperCase() : h;
};

const joined = (open: string, items: Uint8Array[], close: string) =>
  cat([B(open), ...items.flatMap((x, i) => (i > 0 ? [B(','), x] : [x])), B(close)]);

/** Byte sequences that are not UTF-8, or cut short. */
export const BAD_UTF8 = [
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xe0, 0x9f, 0xbf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf0, 0x8f, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xe4],
  [0xe4, 0xb8],
  [0xf0, 0x9f],
  [0xf0, 0x9f, 0x98],
  [0xc3],
];

/** Hand-written NDJSON lines (without their '\n'); `tokens` are the codec's token spellings. */
export function hostileLine(tokens: string[], bad: boolean): fc.Arbitrary<Uint8Array> {
  const w = bad ? 1 : 0;
  const piece = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .constantFrom(
          ...['a', '#', ']', 'Qwen', 'qwen', 'QWEN', 'alibaba', 'ali-cloud', '阿里', '通义', 'é', '中', '😀', ' ', 'image', 'audio'],
          ...['data:', 'data:image/png;base64,', 'UXdl', '==', ';base64,', 'ｑｗｅｎ', 'q\u200Bwen', 'ali\u00A0cloud', 'ﬁ', 'x'.repeat(20)],
        )
        .map(B),
    },
    { weight: 3, arbitrary: fc.constantFrom(...tokens).map(B) },
    { weight: 4, arbitrary: fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t').map(B) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.integer({ min: 0, max: 0xffff }),
            fc.constantFrom(
              0,
              0x1f,
              0x22,
              0x5c,
              0x2f,
              0x7f,
              0x80,
              0xff,
              0x7ff,
              0x800,
              0xd7ff,
              0xd800,
              0xdbff,
              0xdc00,
              0xdfff,
              0xfffd,
              0x51,
              0x200b,
            ),
          ),
          fc.boolean(),
        )
        .map(([u, upper]) => B(`\\u${hex4(u, upper)}`)),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          '\\ud83d\\ude00',
          '\\uD83D\\uDE00',
          '\\ud800\\u0041',
          '\\udbff\\udfff',
          '\\ud800\\ud800',
          '\\ud800\\n',
          '\\ud800a',
          '\\uDC00\\uD800',
        )
        .map(B),
    },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 12 }).map((k) => B('\\'.repeat(2 * k))) },
    {
      weight: w,
      arbitrary: fc.constantFrom('\\x', '\\u12', '\\u12G4', '\\U0041', '\\', '\\\t', '\t', '\r', '\u0000', '\u001f', '"', '\\u').map(B),
    },
    { weight: w, arbitrary: fc.constantFrom(...BAD_UTF8).map((a) => new Uint8Array(a)) },
  );
  const string = (max: number) =>
    fc
      .tuple(fc.nat(80), fc.array(piece, { maxLength: max }))
      .map(([pad, ps]) => cat([B('"'), B('p'.repeat(pad % 3 === 0 ? pad : 0)), ...ps, B('"')]));
  const ws = fc.constantFrom('', '', '', ' ', '\t', '\r', ' \r\t ').map(B);
  const number = fc
    .oneof(
      fc.constantFrom(
        '0',
        '-0',
        '1',
        '-1',
        '1.5',
        '-0.0e-0',
        '1E+5',
        '1e5',
        '1.5E-3',
        '5.0',
        `5.${'0'.repeat(22)}`,
        '9'.repeat(23),
        '9'.repeat(25),
      ),
      { weight: w, arbitrary: fc.constantFrom('01', '1.', '.5', '+1', '1e', '1e+', '-', '--1', '0x1', '1.e5', 'NaN', '00', '-01') },
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    )
    .map(B);
  const literal = fc.oneof(fc.constantFrom('true', 'false', 'null').map(B), {
    weight: w,
    arbitrary: fc.constantFrom('tru', 'nul', 'falsey', 'True').map(B),
  });
  const names = [
    'type',
    'data',
    'uri',
    'blob',
    'text',
    'mimeType',
    '_meta',
    'maxLength',
    'properties',
    'const',
    'default',
    'enum',
    'examples',
  ];
  names.push('inputSchema', 'tools', 'content', 'progressToken', 'cursor', 'nextCursor', 'taskId', 'task', 'tasks', 'protocolVersion');
  names.push('requestId', 'elicitationId', 'id', 'method', 'params', 'result', 'error', 'Qwen');
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...names, ...tokens).map((k) => B(`"${k}"`)) },
    {
      weight: 1, // a known key spelt with an escape
      arbitrary: fc.tuple(fc.constantFrom(...names), fc.nat()).map(([k, i]) => {
        const at = i % k.length;
        return B(`"${k.slice(0, at)}\\u${hex4(k.charCodeAt(at), i % 2 === 0)}${k.slice(at + 1)}"`);
      }),
    },
    { weight: 2, arbitrary: string(4) },
  );
  // Whole base64 data: URIs (kept as they are) holding a term, some spelt with escapes, and near misses.
  const dataUri = fc
    .constantFrom(
      ...[
        '"data:text/plain;base64,Qwen"',
        '"data:image\\/png;base64,Qwen"',
        '"data:image/png;base64,Q\\u0077en"',
        '"\\u0064ata:;base64,QwenQwen"',
      ],
      ...[
        '"DATA:IMAGE/PNG;BASE64,Qwen"',
        '"data:image/png;base64,Qwen\\n"',
        '"data:image/png;base64,Qw\\/n"',
        '"data:image/png;base64,Qwe"',
      ],
    )
    .map(B);
  // (A slip in the structure, for bad lines: r picks one.)
  const { value } = fc.letrec<{ value: Uint8Array; obj: Uint8Array; arr: Uint8Array }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, string(12), number, literal, dataUri, tie('obj'), tie('arr')),
    obj: fc.tuple(fc.array(fc.tuple(ws, key, ws, tie('value')), { maxLength: 5 }), ws, fc.nat(bad ? 40 : 0)).map(([ms, w2, r]) => {
      const parts = ms.map(([w1, k, w3, v]) => cat([w1, k, B(r === 7 ? '' : ':'), w3, v]));
      return cat([joined('{', parts, r === 3 ? ',' : ''), w2, B(r === 5 ? ']' : '}')]);
    }),
    arr: fc.tuple(fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }), ws, fc.nat(bad ? 40 : 0)).map(([items, w2, r]) => {
      const parts = items.map(([w1, v, w3]) => cat([w1, v, w3]));
      return cat([joined('[', parts, r === 3 ? ',' : ''), w2, B(r === 5 ? '}' : ']')]);
    }),
  }));
  const member = (k: string, v: fc.Arbitrary<Uint8Array>) => v.map((x) => cat([B(`"${k}":`), x]));
  const str = string(6);
  const typeValue = fc.oneof(fc.constantFrom('"image"', '"audio"', '"text"', '"imag\\u0065"', '"image\\ud800"', '1', '{}').map(B), str);
  const dataValue = fc.oneof(
    fc
      .constantFrom(
        '"UXdlbg=="',
        '"data:image/png;base64,UXdlbg=="',
        '"DATA:IMAGE/PNG;BASE64,UXdlbg=="',
        '"data:text/plain;base64,Qwen"',
        '"data:;base64,"',
      )
      .map(B),
    dataUri,
    str,
    value,
  );
  const item = fc
    .array(
      fc.oneof(
        member('type', typeValue),
        member('data', dataValue),
        member('blob', dataValue),
        member('uri', str),
        member('text', str),
        member('_meta', value),
      ),
      { maxLength: 5 },
    )
    .map((ms) => joined('{', ms, '}'));
  const { schema } = fc.letrec<{ schema: Uint8Array }>((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small' },
      fc.constant(B('{"type":"string","maxLength":5}')),
      fc
        .array(
          fc.oneof(
            member('maxLength', fc.oneof(number, str, value)),
            member('type', str),
            fc
              .tuple(fc.constantFrom('properties', 'patternProperties', '$defs'), fc.array(fc.tuple(key, tie('schema')), { maxLength: 3 }))
              .map(([k, ps]) =>
                cat([
                  B(`"${k}":`),
                  joined(
                    '{',
                    ps.map(([n, s]) => cat([n, B(':'), s])),
                    '}',
                  ),
                ]),
              ),
            member('items', tie('schema')),
            fc.tuple(fc.constantFrom('const', 'default', 'enum', 'examples'), tie('schema')).map(([k, s]) => cat([B(`"${k}":`), s])),
          ),
          { maxLength: 4 },
        )
        .map((ms) => joined('{', ms, '}')),
    ),
  }));
  const tool = fc.tuple(str, schema).map(([n, s]) => cat([B('{"name":'), n, B(',"inputSchema":'), s, B('}')]));
  const payload = fc.oneof(
    fc.array(item, { maxLength: 3 }).map((a) => cat([B('{"content":'), joined('[', a, ']'), B('}')])),
    fc.array(item, { maxLength: 3 }).map((a) => cat([B('{"contents":'), joined('[', a, ']'), B('}')])),
    fc.array(tool, { maxLength: 3 }).map((a) => cat([B('{"tools":'), joined('[', a, ']'), B('}')])),
    value,
  );
  const envelope = fc
    .tuple(fc.constantFrom('result', 'params', 'error', 'other'), payload, fc.nat(100), fc.constantFrom('1', '"Qwen"', 'null'), ws)
    .map(([k, v, pad, id, w2]) => cat([B(`{"pad":"${'p'.repeat(pad)}","jsonrpc":"2.0","id":${id},"${k}":`), w2, v, w2, B('}'), w2]));
  return fc.oneof(
    { weight: 8, arbitrary: envelope },
    { weight: 2, arbitrary: fc.array(envelope, { minLength: 1, maxLength: 3 }).map((a) => joined('[', a, ']')) },
    { weight: 1, arbitrary: value },
    // cut short, or with a byte JSON does not allow between tokens
    { weight: w, arbitrary: fc.tuple(envelope, fc.nat()).map(([e, at]) => e.subarray(0, at % (e.length + 1))) },
    {
      weight: w,
      arbitrary: fc.tuple(envelope, fc.nat(), fc.constantFrom('\f', '\v', '\u00a0', '\u0000')).map(([e, at, b]) => {
        const c = at % (e.length + 1);
        return cat([e.subarray(0, c), B(b), e.subarray(c)]);
      }),
    },
  );
}
