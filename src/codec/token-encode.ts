// Writing tokens: the prefix, the hex of the matched text's UTF-8 bytes, the suffix
// (token-decode.ts reads them back; the core writes the same in streams).
import { memoise } from '../util/memoise.js';

export const HEX_DIGITS = { lower: '0123456789abcdef', upper: '0123456789ABCDEF' } as const;

/** Tokens are memoised: terms repeat, so most lookups hit. Longer matches (a term spread by
 * ignorables under fold 'nfkc' has no length limit) are not kept. */
const CACHE_LIMIT = 4096;
const CACHED_TEXT = 256;

const encoder = new TextEncoder();

/** The token for a matched text. */
export function compileTokenEncode(prefix: string, suffix: string, hexCase: keyof typeof HEX_DIGITS): (text: string) => string {
  const digits = HEX_DIGITS[hexCase];
  const pairs = Array.from({ length: 256 }, (_, b) => digits[b >> 4]! + digits[b & 15]!);
  return memoise(
    (text) => {
      // Joined once, not grown a pair at a time: a long match (fold 'nfkc') stays linear.
      // One join, so the token is one flat string: built of three, it would stay a rope
      // that every result holding it walks into again when read.
      const bytes = encoder.encode(text);
      const parts = new Array<string>(bytes.length + 2);
      parts[0] = prefix;
      for (let i = 0; i < bytes.length; i++) parts[i + 1] = pairs[bytes[i]!]!;
      parts[bytes.length + 1] = suffix;
      return parts.join('');
    },
    CACHE_LIMIT,
    CACHED_TEXT,
  );
}
