// The term sets a codec aliases, and their expansion into byte patterns.

/** A set of terms to alias. Every field is optional in user input; see {@link TermSetInput}. */
export interface TermSet {
  /** Printable ASCII terms, matched ignoring ASCII case (`qwen` matches `QWEN`, `Qwen`). */
  readonly ascii: readonly string[];
  /** Terms matched exactly, code point for code point (CJK names, for example). */
  readonly exact: readonly string[];
  /**
   * Two-part names, ASCII, matched ignoring ASCII case with zero or one separator
   * (`-`, `_` or a space) between the parts: `['ali', 'cloud']` matches `alicloud`,
   * `Ali-Cloud`, `ali_cloud` and `ALI CLOUD`.
   */
  readonly pairs: readonly (readonly [string, string])[];
}

export type TermSetInput = Partial<TermSet>;

function deepFreeze(set: TermSet): TermSet {
  for (const pair of set.pairs) Object.freeze(pair);
  Object.freeze(set.ascii);
  Object.freeze(set.exact);
  Object.freeze(set.pairs);
  return Object.freeze(set);
}

/** The default term set (wire-compatible with mobile-mcp and cua-driver). Frozen. */
export const DEFAULT_TERMS: TermSet = deepFreeze({
  ascii: [
    'qwen', 'dashscope', 'alibaba', 'aliyun', 'aliyuncs', 'alicloud', 'tongyi', 'qianwen',
    'antgroup', 'bailian', 'modelscope', 'damo', 'lingma', 'wanx', 'alipay', 'antfin', 'yuque',
    'dingtalk', 'taobao', 'tmall', 'qoder', 'maxcompute',
  ],
  exact: ['通义', '千问', '阿里', '百炼', '魔搭', '达摩', '灵码', '万相', '支付宝', '蚂蚁', '语雀', '钉钉', '淘宝', '天猫'],
  pairs: [
    ['q', 'wen'], ['dash', 'scope'], ['ali', 'baba'], ['ali', 'yun'], ['ali', 'cloud'],
    ['tong', 'yi'], ['qian', 'wen'], ['ant', 'group'],
  ],
});

/** Separators allowed between the two parts of a pair ('' = joined). */
export const PAIR_SEPARATORS: readonly string[] = Object.freeze(['', '-', '_', ' ']);

/** One literal pattern: its text, and whether ASCII letters match in either case. */
export interface Pattern {
  readonly text: string;
  readonly ignoreCase: boolean;
}

/** Every pattern a term set and prefix stand for (duplicates removed). */
export function expandPatterns(terms: TermSet, prefix: string): Pattern[] {
  const seen = new Set<string>();
  const out: Pattern[] = [];
  const add = (text: string, ignoreCase: boolean) => {
    const key = (ignoreCase ? 'i:' + text.toLowerCase() : 'x:' + text);
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ text, ignoreCase });
    }
  };
  for (const t of terms.ascii) add(t, true);
  for (const t of terms.exact) add(t, false);
  for (const [a, b] of terms.pairs) for (const sep of PAIR_SEPARATORS) add(a + sep + b, true);
  add(prefix, true);
  return out;
}
