// Pins both wire formats byte for byte, and the default term set, against the design card
// (docs/DESIGN.md, docs/GUARANTEES.md) and the README.
import { describe, expect, it } from 'vitest';
import { createCodec, DEFAULT_TERMS, decodeText, encodeText } from '../src/index.ts';

const hexOf = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const cua = createCodec({ prefix: '__cuaf_', hexCase: 'upper' });

describe('default term set', () => {
  it('is the list of the design card, frozen', () => {
    expect(DEFAULT_TERMS.ascii.join(' ')).toBe(
      'qwen dashscope alibaba aliyun aliyuncs alicloud tongyi qianwen antgroup bailian modelscope damo lingma wanx alipay antfin yuque dingtalk taobao tmall qoder maxcompute',
    );
    expect(DEFAULT_TERMS.exact.join(' ')).toBe('通义 千问 阿里 百炼 魔搭 达摩 灵码 万相 支付宝 蚂蚁 语雀 钉钉 淘宝 天猫');
    expect(DEFAULT_TERMS.pairs.map((p) => p.join('/')).join(' ')).toBe(
      'q/wen dash/scope ali/baba ali/yun ali/cloud tong/yi qian/wen ant/group',
    );
    expect(Object.isFrozen(DEFAULT_TERMS) && Object.isFrozen(DEFAULT_TERMS.ascii) && Object.isFrozen(DEFAULT_TERMS.pairs[0])).toBe(true);
  });
});

describe('mobile-mcp format', () => {
  it('encodes the README example', () => {
    expect(encodeText('Open Qwen in 阿里 Cloud')).toBe('Open __mcp_ref_5177656e__ in __mcp_ref_e998bfe9878c__ Cloud');
    expect(encodeText('qwen')).toBe('__mcp_ref_7177656e__');
  });

  it.each(DEFAULT_TERMS.ascii)('aliases %s in lower, upper and mixed case', (term) => {
    const mixed = [...term].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
    for (const spelling of [term, term.toUpperCase(), mixed]) {
      const encoded = encodeText(`<${spelling}>`);
      expect(encoded).toBe(`<__mcp_ref_${hexOf(spelling)}__>`);
      expect(decodeText(encoded)).toBe(`<${spelling}>`);
    }
  });

  it.each(DEFAULT_TERMS.exact)('aliases %s exactly', (term) => {
    expect(encodeText(`(${term})`)).toBe(`(__mcp_ref_${hexOf(term)}__)`);
    expect(decodeText(encodeText(`(${term})`))).toBe(`(${term})`);
  });

  it.each(DEFAULT_TERMS.pairs.flatMap(([a, b]) => ['-', '_', ' '].map((sep) => [a, sep, b] as const)))(
    'aliases %s%s%s with its separator, in any case',
    (a, sep, b) => {
      for (const spelling of [a + sep + b, (a + sep + b).toUpperCase(), a.toUpperCase() + sep + b]) {
        expect(encodeText(`x ${spelling} y`)).toBe(`x __mcp_ref_${hexOf(spelling)}__ y`);
      }
    },
  );

  it('does not treat two separators, or other separators, as a pair', () => {
    expect(encodeText('q--wen q.wen')).toBe('q--wen q.wen');
    expect(encodeText('ali__cloud')).toBe('ali__cloud');
  });

  it('takes the longest match at the leftmost position', () => {
    expect(encodeText('aliyuncs.com')).toBe('__mcp_ref_616c6979756e6373__.com');
    expect(encodeText('Alibaba Cloud')).toBe('__mcp_ref_416c6962616261__ Cloud');
    expect(encodeText('ali baba')).toBe('__mcp_ref_616c692062616261__');
    expect(encodeText('qianwen')).toBe('__mcp_ref_7169616e77656e__');
  });

  it('escapes the prefix in any ASCII case, so look-alike tokens survive', () => {
    const text = 'literal __mcp_ref_7177656e__ and __MCP_Ref_';
    const encoded = encodeText(text);
    expect(encoded).toBe('literal __mcp_ref_5f5f6d63705f7265665f__7177656e__ and __mcp_ref_5f5f4d43505f5265665f__');
    expect(decodeText(encoded)).toBe(text);
  });

  it('leaves invalid tokens literal', () => {
    for (const t of [
      '__mcp_ref_7__',
      '__mcp_ref_zz__',
      '__mcp_ref_ff__',
      '__mcp_ref___',
      '__mcp_ref_717__',
      '__mcp_ref_71_',
      '__mcp_ref_71',
      '__mcp_ref_edb080__',
    ]) {
      expect(decodeText(t)).toBe(t);
    }
  });

  it('decodes hex and prefix in either case, but not twice', () => {
    expect(decodeText('__MCP_REF_7177656E__')).toBe('qwen');
    expect(decodeText('__mcp_ref_5f5f6d63705f7265665f__7177656e__')).toBe('__mcp_ref_7177656e__');
  });

  it('resumes one character after a failed candidate', () => {
    // The failed candidate `__mcp_ref_` (no hex) overlaps a real token starting inside it.
    expect(decodeText('__mcp_ref__mcp_ref_7177656e__')).toBe('__mcp_refqwen');
    expect(decodeText('__mcp_ref_zz__mcp_ref_7177656e__')).toBe('__mcp_ref_zzqwen');
    expect(decodeText('__mcp_ref_71__mcp_ref_7177656e__')).toBe('qmcp_ref_7177656e__'); // the suffix belongs to the first token
  });

  it('returns the very same string when nothing matches', () => {
    const clean = 'Open Safari in Apple Cloud, /Applications/Utilities'.repeat(50);
    expect(encodeText(clean)).toBe(clean);
    expect(decodeText(clean)).toBe(clean);
  });
});

describe('cua-driver format', () => {
  it('uses __cuaf_ and upper-case hex', () => {
    expect(cua.encodeText('qwen')).toBe('__cuaf_7177656E__');
    expect(cua.encodeText('com.alibaba.Qwen 通义')).toBe('com.__cuaf_616C6962616261__.__cuaf_5177656E__ __cuaf_E9809AE4B989__');
    expect(cua.decodeText('__cuaf_7177656E__ __CUAF_7177656e__')).toBe('qwen qwen');
  });

  it('does not decode the other format', () => {
    expect(cua.decodeText('__mcp_ref_7177656e__')).toBe('__mcp_ref_7177656e__');
    expect(decodeText('__cuaf_7177656E__')).toBe('__cuaf_7177656E__');
  });
});
