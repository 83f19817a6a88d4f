// Options that would break the round trip (or leave terms in encoded text) are refused up front.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { checkTermsAgainstTokens, resolveOptions } from '../src/codec/options.ts';
import { expandPatterns } from '../src/codec/terms.ts';
import { createCodec, DEFAULT_TERMS } from '../src/index.ts';

describe('createCodec options', () => {
  it.each([
    [{ prefix: '' }, /prefix must be a non-empty string/],
    [{ suffix: '' }, /suffix must be a non-empty string/],
    [{ suffix: 'a_' }, /suffix must not begin with a hex digit/],
    [{ suffix: '7' }, /suffix must not begin with a hex digit/],
    [{ prefix: 'abc' }, /not a hex digit/],
    [{ prefix: '#1_#' }, /overlaps itself/],
    [{ prefix: 'x1x1' }, /"wanx" could appear in encoded text/],
    [{ prefix: '前缀' }, /printable ASCII/],
    [{ prefix: 'a b' }, /without spaces/],
    [{ hexCase: 'mixed' }, /hexCase/],
    [{ terms: { ascii: [''] } }, /terms.ascii\[0\] must be a non-empty string/],
    [{ terms: { ascii: ['中'] } }, /terms.ascii\[0\] must be printable ASCII/],
    [{ terms: { exact: ['\uD800'] } }, /lone surrogate/],
    [{ terms: { pairs: [['a']] } }, /terms.pairs\[0\]/],
    [{ terms: {} }, /terms is empty/],
    [{ terms: { ascii: ['cafe'] } }, /"cafe" could appear in encoded text/],
    [{ terms: { ascii: ['ref'] } }, /"ref" could appear in encoded text/],
    [{ terms: { pairs: [['ref', 'a']] } }, /"ref_a" could appear in encoded text/],
    // Hex digits in both cases: decoding accepts either, so every check must too.
    [{ suffix: 'F_' }, /suffix must not begin with a hex digit/],
    [{ suffix: 'A' }, /suffix must not begin with a hex digit/],
    [{ suffix: 'e>' }, /suffix must not begin with a hex digit/],
    [{ prefix: 'ABC' }, /not a hex digit/],
    [{ prefix: 'CAFE' }, /not a hex digit/],
    [{ prefix: 'Ab12' }, /not a hex digit/],
    [{ prefix: 'X1X1' }, /could appear in encoded text/],
    [{ terms: { ascii: ['CAFE'] } }, /"CAFE" could appear in encoded text/],
    // (An exact term meets only the hex case encoding writes.)
    [{ hexCase: 'upper', terms: { exact: ['CAFE'] } }, /"CAFE" could appear in encoded text/],
    [{ terms: { exact: ['cafe'] } }, /"cafe" could appear in encoded text/],
    [{ terms: { ascii: ['BeEf'] } }, /"BeEf" could appear in encoded text/],
    [{ terms: { pairs: [['CA', 'FE']] } }, /"CAFE" could appear in encoded text/],
    [{ prefix: 'AB_', hexCase: 'upper', terms: { exact: ['F0_'] } }, /"F0_" could appear in encoded text/],
  ])('refuses %j', (options, message) => {
    expect(() => createCodec(options as never)).toThrow(TypeError);
    expect(() => createCodec(options as never)).toThrow(message);
  });

  it('accepts both hex cases, and writes hex digits in the one asked for', () => {
    for (const hexCase of ['lower', 'upper'] as const) {
      const codec = createCodec({ hexCase });
      expect(codec.options.hexCase).toBe(hexCase);
      const hex = codec.encodeText('qwen').slice('__mcp_ref_'.length, -2); // 7177656e: has a letter
      expect(hex).toBe(hexCase === 'upper' ? hex.toUpperCase() : hex.toLowerCase());
      expect(hex).toMatch(/[a-f]/i);
    }
  });

  it('has the default terms pass the token check in both wire formats (skipped at run time)', () => {
    for (const prefix of ['__mcp_ref_', '__cuaf_']) {
      expect(() => checkTermsAgainstTokens(expandPatterns(DEFAULT_TERMS, prefix), prefix, '__')).not.toThrow();
    }
    expect(() =>
      checkTermsAgainstTokens(expandPatterns({ ascii: ['cafe'], exact: [], pairs: [] }, '__mcp_ref_'), '__mcp_ref_', '__'),
    ).toThrow(TypeError);
  });

  it('compiles equal options once: codecs share the automaton', () => {
    const terms = { ascii: ['acme'] };
    expect(compile(resolveOptions({ terms }))).toBe(compile(resolveOptions({ terms: { ascii: ['acme'] } })));
    expect(compile(resolveOptions({ terms }))).not.toBe(compile(resolveOptions({})));
  });

  it('accepts custom terms of every kind and round-trips them', () => {
    const codec = createCodec({
      prefix: '<<ref:',
      suffix: '>>',
      terms: { ascii: ['acme'], exact: ['Zed', '株式会社'], pairs: [['big', 'corp']] },
    });
    const text = 'ACME, zed, Zed, 株式会社, big-corp, BigCorp, big  corp';
    const encoded = codec.encodeText(text);
    expect(encoded).toBe(
      '<<ref:41434d45>>, zed, <<ref:5a6564>>, <<ref:e6a0aae5bc8fe4bc9ae7a4be>>, <<ref:6269672d636f7270>>, <<ref:426967436f7270>>, big  corp',
    );
    expect(codec.decodeText(encoded)).toBe(text);
    expect(codec.options.terms.exact).toEqual(['Zed', '株式会社']);
  });

  it('keeps case-sensitive and case-insensitive terms that share a start apart', () => {
    const codec = createCodec({ terms: { ascii: ['ax'], exact: ['Axq'] } });
    expect(codec.encodeText('ax Axq axq AX')).toBe('__mcp_ref_6178__ __mcp_ref_417871__ __mcp_ref_6178__q __mcp_ref_4158__');
  });
});
