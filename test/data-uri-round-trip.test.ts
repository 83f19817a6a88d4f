// A whole base64 data: URI that holds text spelt like a token (its media type, or the URL-safe
// alphabet's `_`): encoding keeps whole URIs and decoding restores tokens in them, so such a URI
// must not be kept as it is, or a round trip changes it. The object API and the streams.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, oneByteChunks, split, streamAgreesWithObjectApi, transformChunks } from './stream-helpers.ts';

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
