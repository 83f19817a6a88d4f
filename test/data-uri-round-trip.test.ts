// A whole base64 data: URI that holds text spelt like a token (its media type, or the URL-safe
// alphabet's `_`): encoding keeps whole URIs and decoding restores tokens in them, so such a URI
// must not be kept as it is, or a round trip changes it. The object API and the streams.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { runs } from './arbitraries.ts';
import { bytes, choices, oneByteChunks, split, streamAgreesWithObjectApi, text, transformChunks, writeJson } from './stream-helpers.ts';

const CASES: [string, object, string][] = [
  ['URL-safe base64', {}, 'data:image/png;base64,AB__mcp_ref_7177656e__CD'],
  ['the media type', {}, 'data:x/__mcp_ref_22__;base64,QUJD'],
  ['the prefix in upper case', {}, 'DATA:image/png;base64,__MCP_REF_0A__'],
  ['cua-driver', { prefix: '__cuaf_', hexCase: 'upper' }, 'data:image/png;base64,A__cuaf_7177656E__'],
];

describe('a data: URI holding text spelt like a token', () => {
  it.each(CASES)('survives a round trip (%s)', (_name, options, uri) => {
    const codec = createCodec(options);
    const m = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: uri }], icons: [{ src: uri }] } };
    expect(codec.decodeMessage(codec.encodeMessage(m))).toEqual(m);
    const line = `${JSON.stringify(m)}\n`;
    const encoded = transformChunks('encode', options, [bytes(line)]);
    expect(JSON.parse(encoded)).toEqual(codec.encodeMessage(m));
    expect(transformChunks('decode', options, [bytes(encoded)])).toBe(line);
  });

  it('the shortest whole URIs (13-16 bytes, `data:;base64,` and a body) are kept whole by the streams too', () => {
    // (with a one-letter term, a body byte read as text would be encoded: the core's length
    // guard before its URI run must let every whole one through)
    const options = { terms: { ascii: ['q'] } };
    for (const body of ['', 'q', 'qq', 'qq=']) {
      const uri = `data:;base64,${body}`;
      const line = `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { icons: [{ src: uri }] } })}\n`;
      streamAgreesWithObjectApi('encode', options, line, []);
      expect(transformChunks('encode', options, [bytes(line)])).toBe(line);
    }
  });

  it('is encoded like text when the prefix comes late in a long URI, cut anywhere (the streams defer it before)', () => {
    const codec = createCodec();
    // Small, past the lane's 16 KiB, past the large path's 256 KiB; the prefix cut by chunks.
    for (const size of [100, 20_000, 300_000]) {
      const uri = `data:image/png;base64,${'A'.repeat(size)}_${'__mcp_ref_7177656e__'}B`;
      const m = { jsonrpc: '2.0', id: 1, result: { icons: [{ src: uri }] } };
      const line = `${JSON.stringify(m)}\n`;
      const encoded = transformChunks('encode', {}, [bytes(line)]);
      expect(encoded).not.toBe(line);
      expect(JSON.parse(encoded)).toEqual(codec.encodeMessage(m));
      expect(transformChunks('decode', {}, [bytes(encoded)])).toBe(line);
      const at = line.indexOf('__mcp_ref_');
      for (const cut of [at + 1, at + 5, at + 9, at + 10]) {
        streamAgreesWithObjectApi('encode', {}, line, [cut]);
        expect(transformChunks('encode', {}, split(bytes(line), [cut]))).toBe(encoded);
      }
    }
    const small = `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { icons: [{ src: 'data:a/b;base64,___MCP_REF_41__' }] } })}\n`;
    expect(transformChunks('encode', {}, oneByteChunks(bytes(small)))).toBe(transformChunks('encode', {}, [bytes(small)]));
    expect(transformChunks('encode', {}, [bytes(small)])).not.toBe(small);
  });

  it('round trips, and the streams agree with the object API, for any prefix the codec takes, cut anywhere', () => {
    const prefix = fc.constantFrom('__mcp_ref_', '__cuaf_', '_x_', 'ab_', 'qq', '--q-');
    const piece = (p: string) => fc.constantFrom(p, p.toUpperCase(), p.slice(0, -1), p.slice(1), '_', 'A', '7177656e', '__', '-');
    fc.assert(
      fc.property(
        prefix.chain((p) =>
          fc.tuple(fc.constant(p), fc.array(piece(p), { maxLength: 8 }), fc.constantFrom('', '=', '=='), fc.array(fc.nat(200))),
        ),
        ([p, pieces, pad, cuts]) => {
          let codec: ReturnType<typeof createCodec>;
          try {
            codec = createCodec({ prefix: p });
          } catch {
            return; // (a prefix the codec refuses)
          }
          const uri = `data:image/png;base64,${pieces.join('')}${pad}`;
          const m = { jsonrpc: '2.0', id: 1, result: { icons: [{ src: uri }] } };
          const encoded = codec.encodeMessage(m);
          expect(codec.decodeMessage(encoded)).toEqual(m);
          const line = `${JSON.stringify(m)}\n`;
          streamAgreesWithObjectApi('encode', { prefix: p }, line, cuts);
          streamAgreesWithObjectApi('decode', { prefix: p }, `${JSON.stringify(encoded)}\n`, cuts);
        },
      ),
      runs(300),
    );
  });

  it('keeps a whole data: URI without such text as it is', () => {
    const codec = createCodec();
    const uri = 'data:image/png;base64,cXdlbg_qwen-QWEN+/==';
    const m = { jsonrpc: '2.0', id: 1, result: { icons: [{ src: uri }] } };
    expect(codec.encodeMessage(m)).toEqual(m);
    expect(transformChunks('encode', {}, [bytes(`${JSON.stringify(m)}\n`)])).toBe(`${JSON.stringify(m)}\n`);
  });
});

// Only a whole base64 data: URI's payload is opaque: its header (`data:`, the media type and
// parameters, `;base64,`) is text, so a term there becomes a token (it once reached the model
// whole); a URI with the prefix anywhere, or that is not whole, is all text.
describe("a whole base64 data: URI's header", () => {
  const codec = createCodec();
  const uri = 'data:text/plain;name=qwen-notes.txt;base64,aGk=';
  const wire = 'data:text/plain;name=__mcp_ref_7177656e__-notes.txt;base64,aGk=';

  it('is encoded like text, its base64 kept: the wire format', () => {
    expect(codec.encodeValue(uri)).toBe(wire);
    const m = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: uri }] } };
    const line = `${JSON.stringify(m)}\n`;
    const encoded = transformChunks('encode', {}, [bytes(line)]);
    expect(encoded).toBe(line.replace(uri, wire));
    expect(transformChunks('encode', {}, oneByteChunks(bytes(line)))).toBe(encoded);
    expect(transformChunks('decode', {}, [bytes(encoded)])).toBe(line);
    expect(codec.decodeValue(wire)).toBe(uri);
  });

  const B64 = /^data:[!#-+\--[\]-~]*;base64,[A-Za-z0-9+/_-]*={0,2}$/i;
  /** The reference: a whole base64 URI without the prefix keeps what follows its first comma. */
  const reference = (s: string) =>
    B64.test(s) && !s.toLowerCase().includes('__mcp_ref_')
      ? codec.encodeText(s.slice(0, s.indexOf(',') + 1)) + s.slice(s.indexOf(',') + 1)
      : codec.encodeText(s);

  const headerPiece = fc.constantFrom(
    'qwen',
    'QWEN',
    'Qwen',
    'ali',
    'baba',
    'ali-baba',
    'aliyuncs',
    'text/plain',
    'image/',
    'png',
    ';',
    '=',
    'name',
    '-',
    '.',
    '%71wen',
    'q',
    'wen',
    '+',
    '_',
    '__mcp_ref_',
    '__MCP',
    '通义',
    ' ',
    'base64',
    ';base64',
    '\\',
    '"',
  );
  const dataUri = fc
    .tuple(
      fc.constantFrom('data:', 'DATA:', 'Data:', 'data'),
      fc.array(headerPiece, { maxLength: 6 }),
      fc.constantFrom(';base64,', ';BASE64,', ';Base64,', ',', ';base64'),
      fc.oneof(
        {
          weight: 6,
          arbitrary: fc
            .array(fc.constantFrom('aGk', 'cXdlbg', 'qwen', 'QWEN', 'A', '_', '-', '+', '/', 'ali', '__mcp_ref_', ' '), { maxLength: 8 })
            .map((p) => p.join('')),
        },
        // (Past the 16 KiB a core call takes: the string is deferred across calls and chunks.)
        { weight: 1, arbitrary: fc.constant('cXdlbg'.repeat(3000)) },
      ),
      fc.constantFrom('', '=', '=='),
    )
    .map((parts) => parts.flat().join(''));

  /** The message in each framing, and how to read the bodies back out of a stream's output. */
  const FRAMINGS = {
    ndjson: { frame: (b: string) => `${b}\n`, bodies: (o: string) => o.split('\n').slice(0, -1) },
    sse: {
      frame: (b: string) => `event: message\ndata: ${b.replace(/\r/g, '')}\n\n`, // (a CR would end the line)
      bodies: (o: string) =>
        o
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6)),
    },
    'content-length': {
      frame: (b: string) => `Content-Length: ${bytes(b).length}\r\n\r\n${b}`,
      bodies: (o: string) => [o.slice(o.indexOf('\r\n\r\n') + 4)],
    },
  } as const;

  it('is encoded like text in values, keys and deferred values, through the object API and every stream however cut', () => {
    fc.assert(
      fc.property(
        fc.array(dataUri, { minLength: 1, maxLength: 3 }),
        choices,
        fc.array(fc.nat(70_000), { maxLength: 6 }),
        fc.constantFrom(...(Object.keys(FRAMINGS) as (keyof typeof FRAMINGS)[])),
        fc.boolean(),
        (uris, ch, cuts, framing, lines) => {
          const a = uris[0]!;
          const [, b = a, c = a] = uris;
          const m = {
            jsonrpc: '2.0',
            id: 1,
            result: {
              content: [
                { type: 'text', text: a },
                { data: b, type: 'text' },
              ],
              icons: [{ src: c }],
              [b]: 1,
            },
          };
          const want = codec.encodeMessage(m);
          expect(want.result.content[0]!.text).toBe(reference(a));
          expect(want.result.content[1]!.data).toBe(reference(b));
          expect(want.result.icons[0]!.src).toBe(reference(c));
          expect(Object.keys(want.result)).toContain(codec.encodeText(b)); // a key is text
          expect(codec.decodeMessage(want)).toEqual(m);
          const { frame, bodies } = FRAMINGS[framing];
          const data = bytes(frame(writeJson(m, ch)));
          const parts: Uint8Array[] = [];
          const t = byteTransformer('encode', { framing }, (o) => void parts.push(o.slice()), { lines });
          for (const piece of split(
            data,
            cuts.map((k) => k % (data.length + 1)),
          ))
            t.push(piece);
          t.close();
          const out = bodies(text(Buffer.concat(parts)));
          expect(out.map((o) => JSON.parse(o))).toEqual([want]);
          const back = transformChunks('decode', {}, [bytes(`${out[0]}\n`)]);
          expect(JSON.parse(back)).toEqual(m);
        },
      ),
      runs(200),
    );
  });

  // The indexed path matches a long message in one pass; a match of the whole text may run from
  // the header into the base64, where the header alone matches otherwise.
  it('is matched on its own when a term could run on into the base64, however long the message', () => {
    for (const terms of [{ ascii: ['64,ab', 'qwen'] }, { exact: ['e64,A', 'qwen'] }]) {
      const custom = createCodec({ terms });
      for (const pad of [10, 3000]) {
        const uri = 'data:image/qwen;base64,abAAqwen';
        const m = {
          jsonrpc: '2.0',
          id: 1,
          result: {
            content: [
              { type: 'text', text: `${'x'.repeat(pad)} qwen` },
              { type: 'text', text: uri },
            ],
          },
        };
        expect(custom.encodeMessage(m).result.content[1]!.text).toBe('data:image/__mcp_ref_7177656e__;base64,abAAqwen');
        streamAgreesWithObjectApi('encode', { terms }, `${JSON.stringify(m)}\n`, []);
      }
    }
  });
});
