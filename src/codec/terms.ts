// The term sets a codec aliases, and their expansion into byte patterns.
import { foldData, foldText } from '../fold/unicode.js';

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
    'qwen',
    'dashscope',
    'alibaba',
    'aliyun',
    'aliyuncs',
    'alicloud',
    'tongyi',
    'qianwen',
    'antgroup',
    'bailian',
    'modelscope',
    'damo',
    'lingma',
    'wanx',
    'alipay',
    'antfin',
    'yuque',
    'dingtalk',
    'taobao',
    'tmall',
    'qoder',
    'maxcompute',
  ],
  exact: ['通义', '千问', '阿里', '百炼', '魔搭', '达摩', '灵码', '万相', '支付宝', '蚂蚁', '语雀', '钉钉', '淘宝', '天猫'],
  pairs: [
    ['q', 'wen'],
    ['dash', 'scope'],
    ['ali', 'baba'],
    ['ali', 'yun'],
    ['ali', 'cloud'],
    ['tong', 'yi'],
    ['qian', 'wen'],
    ['ant', 'group'],
  ],
});

/** Separators allowed between the two parts of a pair ('' = joined). */
export const PAIR_SEPARATORS: readonly string[] = Object.freeze(['', '-', '_', ' ']);

/**
 * How text is compared with terms: `ascii` (ASCII case only) or `nfkc` (a substring matches
 * when its NFKC case fold, default-ignorable code points removed, holds a term).
 */
export type Fold = 'ascii' | 'nfkc';

/** One literal pattern: its text, and whether ASCII letters match in either case. */
export interface Pattern {
  readonly text: string;
  readonly ignoreCase: boolean;
  /** fold 'nfkc': `text` is folded, and matches every text that folds to it. */
  readonly folded?: boolean;
}

/** Every pattern a term set and prefix stand for (duplicates removed). */
export function expandPatterns(terms: TermSet, prefix: string, fold: Fold = 'ascii'): Pattern[] {
  if (fold === 'nfkc') return expandFolded(terms, prefix);
  const seen = new Set<string>();
  const out: Pattern[] = [];
  const add = (text: string, ignoreCase: boolean) => {
    const key = ignoreCase ? 'i:' + text.toLowerCase() : 'x:' + text;
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

/**
 * fold 'nfkc': every term folded (exact ones too: `⾥` is `里`), pairs joined by nothing or by
 * the fold of any space or dash, and the prefix folded as well (escaping more is harmless).
 * A term is refused if folding the text one code point at a time could miss it: a combining
 * mark, a character that composes or decomposes (Hangul syllables, accented letters) or sigma.
 */
function expandFolded(terms: TermSet, prefix: string): Pattern[] {
  const { safe, separators } = foldData();
  const seen = new Set<string>();
  const out: Pattern[] = [];
  const add = (text: string) => {
    if (!seen.has(text)) {
      seen.add(text);
      out.push({ text, ignoreCase: true, folded: true });
    }
  };
  const folded = (term: string, field: string) => {
    const f = foldText(term);
    if (f === '') throw new TypeError(`createCodec: ${field} folds to nothing under fold 'nfkc'`);
    for (const c of f) {
      if (!safe(c.codePointAt(0)!)) {
        throw new TypeError(
          `createCodec: ${field} holds a character fold 'nfkc' cannot match soundly (a combining mark, a composed or composing character such as a Hangul syllable, or sigma)`,
        );
      }
    }
    return f;
  };
  terms.ascii.forEach((t, i) => {
    add(folded(t, `terms.ascii[${i}]`));
  });
  terms.exact.forEach((t, i) => {
    add(folded(t, `terms.exact[${i}]`));
  });
  terms.pairs.forEach(([a, b], i) => {
    const [fa, fb] = [folded(a, `terms.pairs[${i}]`), folded(b, `terms.pairs[${i}]`)];
    for (const sep of [...PAIR_SEPARATORS, ...separators]) add(fa + sep + fb);
  });
  add(folded(prefix, 'prefix'));
  return out;
}
