// Baseline: encodeText with an Aho-Corasick package from npm (leftmost-longest variant).
// Case-insensitive terms are matched on an ASCII-lowercased copy of the text.
import { AhoCorasick } from '@monyone/aho-corasick/greedy';
import { DEFAULT_TERMS } from '../src/index.ts';

export function createAhoCodec(prefix = '__mcp_ref_', suffix = '__') {
  const keywords = [
    ...DEFAULT_TERMS.ascii,
    ...DEFAULT_TERMS.exact,
    ...DEFAULT_TERMS.pairs.flatMap(([a, b]) => ['', '-', '_', ' '].map((sep) => a + sep + b)),
    prefix,
  ];
  const ac = new AhoCorasick(keywords);
  const lower = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  return {
    encodeText(s: string): string {
      const matches = ac.matchInText(lower(s));
      if (matches.length === 0) return s;
      let out = '';
      let from = 0;
      for (const m of matches) {
        out += s.slice(from, m.begin) + prefix + Buffer.from(s.slice(m.begin, m.end)).toString('hex') + suffix;
        from = m.end;
      }
      return out + s.slice(from);
    },
  };
}
