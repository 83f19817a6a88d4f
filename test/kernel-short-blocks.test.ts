// The matcher on final strings of 17-64 bytes (assembly/match.ts shortBlocks: overlapping blocks,
// no loop), around them (0-16 bytes: one block; 65-80: the loop): generated term sets, a
// sequence of terms and near misses (their prefixes, their case changed) at every offset of a
// string of filler, the core's own scan (byte records) against the reference's leftmost-longest
// matches (test/reference.ts). Both builds (vitest projects): the scalar one has no blocks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { core, coreVariant } from '../src/core/instance.ts';
import { heap, heap32, workspace } from '../src/core/memory.ts';
import { runs } from './arbitraries.ts';
import { longestMatchAt, type ReferenceOptions } from './reference.ts';

const BYTE_RECORDS = 2;
const PREFIX = '__mcp_ref_';
const MAX = 80;

/** The core's matches in the final string s (ASCII), as [start, end) pairs. */
function scanned(desc: { ptr: number; matchCount(): number }, s: string): number[][] {
  const input = new TextEncoder().encode(s);
  const ws = workspace(Math.max(input.length, 64), 8 * input.length + 64);
  heap().set(input, ws.input);
  core.scan(desc.ptr, ws.input, input.length, ws.output, 1, BYTE_RECORDS);
  const words = heap32();
  return Array.from({ length: desc.matchCount() }, (_, k) => [words[(ws.output >> 2) + 2 * k]!, words[(ws.output >> 2) + 2 * k + 1]!]);
}

/** The reference's leftmost-longest matches. */
function expected(s: string, o: ReferenceOptions): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < s.length; ) {
    const n = longestMatchAt(s, i, o);
    if (n > 0) out.push([i, i + n]);
    i += n || 1;
  }
  return out;
}

describe(`final strings of 0-${MAX} bytes, a term sequence at every offset (${coreVariant} build)`, () => {
  // Terms from a few letters, so that near misses share fingerprints with them; 'z' is in none, 'q' in many.
  const term = fc.string({ unit: fc.constantFrom('q', 'w', 'n', 'g', '-'), minLength: 1, maxLength: 9 });
  const terms = fc.uniqueArray(term, { minLength: 1, maxLength: 6 });
  // A piece: a term, a near miss (all but its last byte), or either with its case changed.
  const piece = fc.tuple(fc.nat(), fc.constantFrom('whole', 'miss', 'upper', 'miss upper'));

  it('the core finds the reference matches', () => {
    fc.assert(
      fc.property(
        terms,
        fc.array(piece, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: MAX }),
        fc.constantFrom('z', 'q'),
        (list, pieces, length, filler) => {
          const ref: ReferenceOptions = { prefix: PREFIX, suffix: '__', upper: false, terms: { ascii: list, exact: [], pairs: [] } };
          const desc = compile(resolveOptions({ terms: ref.terms })).desc;
          let seq = '';
          for (const [i, kind] of pieces) {
            const t = list[i % list.length]!;
            const p = kind.startsWith('miss') ? t.slice(0, -1) : t;
            seq += kind.endsWith('upper') ? p.toUpperCase() : p;
          }
          seq = seq.slice(0, MAX);
          const n = Math.max(length, seq.length);
          for (let at = 0; at + seq.length <= n; at++) {
            const s = filler.repeat(at) + seq + filler.repeat(n - at - seq.length);
            expect(scanned(desc, s), JSON.stringify(s)).toEqual(expected(s, ref));
          }
        },
      ),
      runs(150),
    );
  });
});
