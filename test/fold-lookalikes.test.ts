// The lookalike families of the issue: encoded with fold 'nfkc', untouched with the default
// fold (whose wire format does not change), and what 'nfkc' deliberately does not catch.
import { describe, expect, it } from 'vitest';
import { createCodec, DEFAULT_TERMS, decodeText, encodeText } from '../src/index.ts';
import { createDecodeStream, createEncodeStream } from '../src/stream/index.ts';
import { foldedOccurrences, foldedPatterns, refFold } from './fold-reference.ts';
import { bytes, run, text } from './stream-helpers.ts';

const nfkc = createCodec({ fold: 'nfkc' });
const ascii = createCodec({ fold: 'ascii' });

// Each is a default term (or pair) in disguise; the expected result is computed, not listed:
// the whole text is one token holding its own bytes.
const CAUGHT: [string, string][] = [
  ['fullwidth letters', 'ｑｗｅｎ'],
  ['fullwidth capitals', 'ＴＡＯＢＡＯ'],
  ['Kelvin sign', 'dingtal\u212A'],
  ['long s', 'dashſcope'],
  ['zero-width space inside', 'q\u200Bwen'],
  ['zero-width joiner and non-joiner', 'ali\u200Dba\u200Cba'],
  ['soft hyphen inside', 'ali\u00ADpay'],
  ['word joiner and BOM inside', 'tm\u2060al\uFEFFl'],
  ['variation selector inside', 'ba\uFE0Filian'],
  ['tag character inside', 'yu\u{E0041}que'],
  ['no-break space between a pair', 'ali\u00A0cloud'],
  ['ideographic space between a pair', 'qian\u3000wen'],
  ['em dash between a pair', 'ant\u2014group'],
  ['non-breaking hyphen between a pair', 'tong\u2011yi'],
  ['fullwidth hyphen between a pair', 'dash\uFF0Dscope'],
  ['mathematical bold', '𝐪𝐰𝐞𝐧'],
  ['mathematical fraktur', '𝔞𝔩𝔦𝔭𝔞𝔶'],
  ['mathematical double-struck', '𝕢𝕨𝕖𝕟'],
  ['circled letters', 'ⓠⓦⓔⓝ'],
  ['superscript and modifier letters', 'ᵃˡⁱᵖᵃʸ'],
  ['subscript letters', 'ₐₗᵢₚₐy'],
  ['mixed families', 'Ｑ𝐰\u200Bⓔn'],
  ['Kangxi radical in an exact term (⽀ is 支)', '\u2F40付宝'],
  ['CJK compatibility ideograph in an exact term (U+F9E9 is 里)', '阿\uF9E9'],
  ['supplementary compatibility ideograph (U+2F8C3 is 摩)', '达\u{2F8C3}'],
  ['fullwidth low lines in the escape prefix (escaped like the prefix)', '＿＿mcp_ref_'],
];

describe('fold nfkc: lookalike families', () => {
  it.each(CAUGHT)('encodes %s', (_, s) => {
    const token = '__mcp_ref_' + Buffer.from(s, 'utf8').toString('hex') + '__';
    expect(nfkc.encodeText(s)).toBe(token);
    expect(nfkc.encodeText(`see ${s}, please`)).toBe(`see ${token}, please`);
    expect(nfkc.decodeText(token)).toBe(s);
  });

  it.each(CAUGHT.filter(([, s]) => refFold(s) !== s.toLowerCase() || /\p{Default_Ignorable_Code_Point}/u.test(s)))(
    'leaves %s alone with the default fold',
    (_, s) => {
      expect(ascii.encodeText(s)).toBe(s);
      expect(encodeText(s)).toBe(s);
    },
  );

  it('folds exact terms too: a Kangxi radical is its ideograph', () => {
    const codec = createCodec({ fold: 'nfkc', terms: { exact: ['里'] } });
    expect(refFold('\u2FA5')).toBe('里'); // (the Kangxi radical ⾥, by the engine's own NFKC)
    expect(codec.encodeText('\u2FA5')).toBe('__mcp_ref_e2bea5__');
    expect(createCodec({ terms: { exact: ['里'] } }).encodeText('\u2FA5')).toBe('\u2FA5');
  });

  it('encodes the whole code point when a term starts or ends inside its fold', () => {
    const codec = createCodec({ fold: 'nfkc', terms: { ascii: ['tel', 'inx', 'kpa'] } });
    expect(codec.encodeText('\u2121')).toBe('__mcp_ref_e284a1__'); // ℡ is all of "tel"
    expect(codec.encodeText('\uFB01nx')).toBe('__mcp_ref_efac816e78__'); // ﬁnx: "inx" starts inside ﬁ
    expect(codec.encodeText('kp\u33C2')).toBe('__mcp_ref_6b70e38f82__'); // kp㏂ ("a.m."): "kpa" ends inside ㏂
  });

  // What NFKC plus case folding does not make equal, and 'nfkc' therefore leaves alone.
  const MISSED: [string, string][] = [
    ['Cyrillic lookalikes (cross-script homoglyphs)', 'аlіbаbа'],
    ['Greek lookalikes', 'ΑΝΤgroup'],
    ['dotless i', 'alıbaba'],
    ['dotted capital I (folds to i + combining dot)', 'alİbaba'],
    ['a combining mark inside', 'q\u0301wen'],
    ['two separators in a pair', 'ali--cloud'],
    ['parenthesized letters (they fold with their parentheses)', '⒬⒲⒠⒩'],
  ];
  it.each(MISSED)('does not catch %s, like the reference', (_, s) => {
    expect(foldedOccurrences(refFold(s), foldedPatterns(DEFAULT_TERMS))).toEqual([]);
    expect(nfkc.encodeText(s)).toBe(s);
  });
});

describe('fold option', () => {
  it('defaults to ascii: same wire format, same codec', () => {
    expect(createCodec().options.fold).toBe('ascii');
    expect(nfkc.options.fold).toBe('nfkc');
    expect(createCodec({ fold: 'ascii' }).encodeText('Qwen ｑｗｅｎ')).toBe(encodeText('Qwen ｑｗｅｎ'));
  });

  it('is part of the compiled-codec cache key, whichever is compiled first', () => {
    const terms = { ascii: ['zorblat'] };
    const first = createCodec({ terms }).encodeText('ｚｏｒｂｌａｔ');
    const second = createCodec({ terms, fold: 'nfkc' }).encodeText('ｚｏｒｂｌａｔ');
    expect(first).toBe('ｚｏｒｂｌａｔ');
    expect(second).not.toBe('ｚｏｒｂｌａｔ');
    const terms2 = { ascii: ['quuxly'] };
    expect(createCodec({ terms: terms2, fold: 'nfkc' }).encodeText('ｑｕｕｘｌｙ')).not.toBe('ｑｕｕｘｌｙ');
    expect(createCodec({ terms: terms2 }).encodeText('ｑｕｕｘｌｙ')).toBe('ｑｕｕｘｌｙ');
  });

  it.each([
    [{ fold: 'nfkd' }, /fold must be 'ascii' or 'nfkc'/],
    [{ fold: 'nfkc', terms: { exact: ['한국'] } }, /terms.exact\[0\] holds a character fold 'nfkc' cannot match soundly/],
    [{ fold: 'nfkc', terms: { exact: ['café'] } }, /terms.exact\[0\] holds a character/],
    [{ fold: 'nfkc', terms: { exact: ['\u200B\u00AD'] } }, /terms.exact\[0\] folds to nothing/],
    [{ fold: 'nfkc', terms: { exact: ['ｒｅｆ'] } }, /"ref" could appear in encoded text/],
  ])('refuses %j', (options, message) => {
    expect(() => createCodec(options as never)).toThrow(TypeError);
    expect(() => createCodec(options as never)).toThrow(message);
  });

  it('accepts the same terms with the default fold', () => {
    expect(() => createCodec({ terms: { exact: ['한국', 'café'] } })).not.toThrow();
  });

  it('flows into the streams', async () => {
    const line =
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ｑｗｅｎ and ali\u00A0cloud' }] } }) + '\n';
    // Escaped in the JSON text as well: the transducer folds what the escapes stand for.
    const escaped = line.replace('ｑ', '\\uff51').replace('\u00A0', '\\u00a0');
    for (const input of [line, escaped]) {
      const out = text(await run(createEncodeStream({ fold: 'nfkc' }), [bytes(input)]));
      expect(JSON.parse(out)).toEqual(nfkc.encodeMessage(JSON.parse(line)));
      expect(out).not.toContain('ｑｗｅｎ');
      expect(text(await run(createEncodeStream(), [bytes(input)]))).toBe(input);
      expect(JSON.parse(text(await run(createDecodeStream({ fold: 'nfkc' }), [bytes(out)])))).toEqual(JSON.parse(line));
    }
  });

  it('round-trips through the default decoder too (tokens are the same format)', () => {
    expect(decodeText(nfkc.encodeText('ｑｗｅｎ q\u200Bwen'))).toBe('ｑｗｅｎ q\u200Bwen');
  });
});
