// The baseline: the same semantics written the way people write them today. One alternation
// regex (longest alternatives first, so the leftmost match is the longest), String.replace,
// Buffer hex. This is what the library is measured against, never what it runs.
import { DEFAULT_TERMS, type TermSet } from '../src/index.ts';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function createRegexCodec(prefix = '__mcp_ref_', suffix = '__', terms: TermSet = DEFAULT_TERMS, upper = false) {
  const alternatives = [
    ...terms.ascii.map((t) => ({ source: escapeRegex(t), max: t.length })),
    ...terms.exact.map((t) => ({ source: escapeRegex(t), max: t.length })),
    ...terms.pairs.map(([a, b]) => ({ source: `${escapeRegex(a)}[-_ ]?${escapeRegex(b)}`, max: a.length + b.length + 1 })),
    { source: escapeRegex(prefix), max: prefix.length },
  ].sort((x, y) => y.max - x.max);
  const termRe = new RegExp(alternatives.map((a) => a.source).join('|'), 'gi');
  const tokenRe = new RegExp(`${escapeRegex(prefix)}((?:[0-9a-f]{2})+)${escapeRegex(suffix)}`, 'gi');
  const toHex = (m: string) => {
    const h = Buffer.from(m, 'utf8').toString('hex');
    return prefix + (upper ? h.toUpperCase() : h) + suffix;
  };
  const fromHex = (m: string, hex: string) => {
    const bytes = Buffer.from(hex, 'hex');
    const text = bytes.toString('utf8');
    return Buffer.from(text, 'utf8').equals(bytes) ? text : m; // invalid UTF-8 stays literal
  };
  return {
    encodeText: (s: string) => s.replace(termRe, toHex),
    decodeText: (s: string) => s.replace(tokenRe, fromHex),
  };
}
