// The compiler's filter tables (src/compile/teddy.ts, start-set.ts) against a reference of how
// the core reads them (assembly/match.ts, filter.ts): every spelling of every pattern, followed
// by any bytes, passes both stages where it starts. A table that dropped one would make the
// core skip a match; the property tests through the core find that only if they hit it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePatternDfa } from '../src/compile/dfa.ts';
import { gramHash } from '../src/compile/start-set.ts';
import type { Pattern } from '../src/terms.ts';
import { runs } from './arbitraries.ts';

/** Stage 1 as the core reads the masks: some bucket admits the three bytes, each `| 0x20`. */
function teddyPasses(teddy: Uint8Array, b: Uint8Array): boolean {
  let buckets = 0xff;
  for (let j = 0; j < 3; j++) {
    const f = b[j]! | 0x20;
    buckets &= teddy[j * 32 + (f & 15)]! & teddy[j * 32 + 16 + (f >> 4)]!;
  }
  return buckets !== 0;
}

/** Stage 2 as the core reads the set: four bytes little-endian, `| 0x20` each, masked, hashed. */
function startSetPasses(grams: Uint8Array, mask: number, b: Uint8Array): boolean {
  const key = ((b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24) | 0x20202020) & mask) >>> 0;
  const h = gramHash(key);
  return (grams[h >> 3]! & (1 << (h & 7))) !== 0;
}

const utf8 = new TextEncoder();

/** One spelling of a pattern: each ASCII letter of an ignoreCase pattern in the case `upper` says. */
function spell(p: Pattern, upper: readonly boolean[]): string {
  if (!p.ignoreCase) return p.text;
  return Array.from(p.text, (c, i) => (upper[i % upper.length] ? c.toUpperCase() : c.toLowerCase())).join('');
}

// Short patterns (1-5 bytes: the masks' and the set's edge cases) over letters, digits,
// punctuation that `| 0x20` moves (@ [ ^ _) and non-ASCII characters.
const patternText = fc.array(fc.constantFrom(...'aqZ9@[^_-. é通😀'), { minLength: 1, maxLength: 4 }).map((a) => a.join(''));
const pattern = fc.record({ text: patternText, ignoreCase: fc.boolean() }).filter((p) => !p.ignoreCase || /^[\x20-\x7e]+$/.test(p.text));

describe('compiled filter tables', () => {
  it('admit every spelling of every pattern at its start, whatever follows', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(pattern, { minLength: 1, maxLength: 24, selector: (p) => `${p.ignoreCase}:${p.text}` }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.uint8Array({ minLength: 4, maxLength: 4 }),
        (patterns, upper, after) => {
          const a = compilePatternDfa(patterns);
          for (const p of patterns) {
            const bytes = new Uint8Array([...utf8.encode(spell(p, upper)), ...after]);
            expect(teddyPasses(a.teddy, bytes), `stage 1, pattern #${patterns.indexOf(p)}`).toBe(true);
            expect(startSetPasses(a.grams, a.gramMask, bytes), `stage 2, pattern #${patterns.indexOf(p)}`).toBe(true);
          }
        },
      ),
      runs(200),
    );
  });

  it('keep stage 1 selective: a set of lowercase words rejects most other trigrams', () => {
    const words = ['qwen', 'tongyi', 'dingtalk', 'alipay', 'bailian'];
    const a = compilePatternDfa(words.map((text) => ({ text, ignoreCase: true })));
    let passed = 0;
    for (let x = 0x61; x <= 0x7a; x++)
      for (let y = 0x61; y <= 0x7a; y++) for (let z = 0x61; z <= 0x7a; z++) if (teddyPasses(a.teddy, Uint8Array.of(x, y, z))) passed++;
    // One bucket per first letter here (5 words, 8 buckets): exactly the 5 trigrams pass.
    expect(passed).toBe(words.length);
  });
});
