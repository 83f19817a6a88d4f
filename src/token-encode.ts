// Writing tokens: the prefix, the hex of the matched text's UTF-8 bytes, the suffix
// (token-decode.ts reads them back; the core writes the same in streams).
import { memoise } from './memoise.js';

export const HEX_DIGITS = { lower: '0123456789abcdef', upper: '0123456789ABCDEF' } as const;

/** Tokens are memoised: terms repeat, so most lookups hit. */
const CACHE_LIMIT = 4096;

const encoder = new TextEncoder();

/** The token for a matched text. */
export function compileTokenEncode(prefix: string, suffix: string, hexCase: keyof typeof HEX_DIGITS): (text: string) => string {
  const digits = HEX_DIGITS[hexCase];
  return memoise((text) => {
    let hex = '';
    for (const b of encoder.encode(text)) hex += digits[b >> 4]! + digits[b & 15]!;
    return prefix + hex + suffix;
  }, CACHE_LIMIT);
}
