// Strings larger than the WASM work regions: matches and tokens that straddle a region
// boundary, carried-over candidates, and regions that must grow for one huge token.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { DEFAULT_CHUNK_BYTES, encodeString } from '../src/core/encode-string.ts';
import { decodeText, encodeText } from '../src/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { referenceEncode } from './reference.ts';
import { MOBILE_MCP } from './reference-options.ts';

const { encodeJob } = compile(resolveOptions());
const wellFormed = fc.oneof(fragmentString(60), fc.string({ unit: 'grapheme', maxLength: 120 })).filter((s) => s.isWellFormed());

describe('tiny work regions', () => {
  it.each([8, 9, 13, 16, 17, 32, 61])('agree with the reference with %i-byte regions', (chunk) => {
    fc.assert(
      fc.property(wellFormed, (s) => {
        const encoded = encodeString(encodeJob, s, chunk)!;
        expect(encoded).toBe(referenceEncode(s, MOBILE_MCP));
        expect(decodeText(encoded)).toBe(s);
      }),
      runs(300),
    );
  });
});

describe('lone surrogates', () => {
  it.each([8, 13, 61])('are found in any region (%i bytes), U+FFFD or not', (chunk) => {
    fc.assert(
      fc.property(fragmentString(60), (s) => {
        expect(encodeString(encodeJob, s, chunk) === undefined).toBe(!s.isWellFormed());
      }),
      runs(300),
    );
  });

  it('past the first region, are kept in place while the terms around them are encoded', () => {
    const [head, tail] = ['Qwen \uFFFD', ' Qwen \uFFFD '];
    const s = head + 'x'.repeat(DEFAULT_CHUNK_BYTES) + '\uD800' + tail + '\uDC00';
    const expected =
      referenceEncode(head, MOBILE_MCP) + 'x'.repeat(DEFAULT_CHUNK_BYTES) + '\uD800' + referenceEncode(tail, MOBILE_MCP) + '\uDC00';
    expect(encodeText(s)).toBe(expected);
  });
});

describe('strings far larger than the work regions', () => {
  const hex = (s: string) => Buffer.from(s).toString('hex');

  it('finds terms at every offset around a region boundary', () => {
    for (const term of ['Qwen', '通义', 'aliyuncs', '__MCP_REF_', 'dash scope']) {
      for (let k = -12; k <= 12; k++) {
        const head = 'x'.repeat(DEFAULT_CHUNK_BYTES + k);
        const text = head + term + 'tail';
        const encoded = encodeText(text);
        expect(encoded).toBe(`${head}__mcp_ref_${hex(term)}__tail`);
        expect(decodeText(encoded)).toBe(text);
      }
    }
  });

  it('keeps CJK text whole across boundaries', () => {
    const text = '中文，阿里巴巴与通义千问。'.repeat(60000) + '😀';
    const encoded = encodeText(text);
    expect(encoded).toBe(referenceEncode(text.slice(0, 13), MOBILE_MCP).repeat(60000) + '😀');
    expect(decodeText(encoded)).toBe(text);
  });

  it('places terms after long runs of 4-byte characters at their UTF-16 offsets', () => {
    // (the core counts a gap's units in vector lanes, each up to 2 a block, summed every 127
    // blocks: runs of emoji fill lanes fastest)
    const mixed = fc.array(fc.constantFrom('😀', '通', 'é', 'x'), { maxLength: 300 }).map((a) => a.join(''));
    const gap = fc
      .tuple(fc.nat(3), fc.integer({ min: 0, max: 1500 }), mixed)
      .map(([shift, emoji, rest]) => 'x'.repeat(shift) + '😀'.repeat(emoji) + rest);
    fc.assert(
      fc.property(fc.array(fc.tuple(gap, fc.constantFrom('Qwen', '通义', 'x')), { minLength: 1, maxLength: 3 }), (parts) => {
        const text = parts.map(([g, t]) => g + t).join('');
        expect(encodeText(text)).toBe(referenceEncode(text, MOBILE_MCP));
      }),
      runs(30),
    );
  });

  it('restores a token longer than a region', () => {
    const token = '__mcp_ref_' + '71'.repeat(DEFAULT_CHUNK_BYTES) + '__';
    expect(decodeText(`a${token}b`)).toBe(`a${'q'.repeat(DEFAULT_CHUNK_BYTES)}b`);
  });

  it('keeps a huge failed candidate literal and finds the token after it', () => {
    const text = '__mcp_ref_' + '7'.repeat(DEFAULT_CHUNK_BYTES + 1) + '__ __mcp_ref_7177656e__';
    expect(decodeText(text)).toBe(text.slice(0, -20) + 'qwen');
  });

  it('returns a large clean string itself', () => {
    const clean = 'Safari, Chrome, /Applications/Xcode.app; '.repeat(20000);
    expect(encodeText(clean)).toBe(clean);
    expect(decodeText(clean)).toBe(clean);
  });
});
