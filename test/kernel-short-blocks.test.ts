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
import { longestMatchAt, type ReferenceOptions, referenceEncode } from './reference.ts';
import { bytes, transformChunks } from './stream-helpers.ts';

const BYTE_RECORDS = 2;
const PREFIX = '__mcp_ref_';
const MAX = 80;

/** The core's matches in the final string s (or its UTF-8 bytes), as [start, end) pairs in bytes. */
function scanned(desc: { ptr: number; matchCount(): number }, s: string | Uint8Array): number[][] {
  const input = typeof s === 'string' ? new TextEncoder().encode(s) : s;
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

describe(`final strings of 1-3 bytes, a term as short (${coreVariant} build)`, () => {
  it('are read where they are, nothing before them (at the start of memory: no trap)', () => {
    // (The short path's blocks end at the string's end: under 16 bytes they would start before it.)
    const desc = compile(resolveOptions({ terms: { ascii: ['k'] } })).desc;
    const ws = workspace(64, 64);
    for (let at = 0; at < 16; at++) {
      for (let len = 1; len <= 3; len++) {
        const s = String.fromCharCode(...heap().subarray(at, at + len));
        core.scan(desc.ptr, at, len, ws.output, 1, BYTE_RECORDS);
        expect(desc.matchCount(), `${len} bytes at ${at}`).toBe(
          expected(s, { prefix: PREFIX, suffix: '__', upper: false, terms: { ascii: ['k'], exact: [], pairs: [] } }).length,
        );
      }
    }
  });
});

// Generated term sets as dense-terms.test.ts has them (ASCII terms of 1-64 bytes, longer than
// the string too; exact ones with 2-4 byte characters, whose fingerprints hold lone bytes of
// them), strings of 0-80 bytes built from terms, their cut prefixes, their upper case and filler,
// so that matches cross every overlap of the blocks and start in the last three bytes: the
// core's byte records against the reference's; and through a stream, the message whole or cut
// inside the string (its first part not final: no short path, a candidate held across the cut).
describe(`final strings of 0-${MAX} bytes under generated UTF-8 term sets (${coreVariant} build)`, () => {
  const word = (chars: string[], min: number, max: number) =>
    fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: max }).map((a) => a.join(''));
  const termSet = fc.record({
    ascii: fc.array(fc.oneof(word(['k', 'Q', 'w', '-', ' '], 1, 3), word(['k', 'Q', 'w', '-', ' '], 4, 64)), {
      minLength: 1,
      maxLength: 4,
    }),
    exact: fc.array(word(['k', '中', '文', 'é', '😀'], 1, 8), { maxLength: 3 }),
  });
  const enc = new TextEncoder();
  /** A string of pieces, stopped before it would pass n bytes. */
  const textOf = (all: string[], n: number) =>
    fc
      .array(
        fc.oneof(
          fc.constantFrom(...all),
          fc.constantFrom(...all).chain((w) => fc.nat(w.length).map((k) => w.slice(0, k))),
          fc.constantFrom(...all).map((w) => w.toUpperCase()),
          word(['z', 'K', '中', '😀', '.'], 0, 4),
        ),
        { maxLength: 24 },
      )
      .map((p) => {
        let s = '';
        for (const x of p) if (enc.encode(s + x).length <= n && (s + x).isWellFormed()) s += x;
        return s.padStart(s.length + n - enc.encode(s).length, 'z');
      });
  /** The reference's matches in s, in bytes. */
  const expectedBytes = (s: string, o: ReferenceOptions) =>
    expected(s, o).map(([a, b]) => [enc.encode(s.slice(0, a)).length, enc.encode(s.slice(0, b)).length]);

  it('the core and a stream, whole or cut, find the reference matches', () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        termSet.chain((t) =>
          fc.tuple(
            fc.constant(t),
            fc.integer({ min: 0, max: MAX }).chain((n) => textOf([...t.ascii, ...t.exact], n)),
          ),
        ),
        fc.double({ min: -1, max: 1, noNaN: true }),
        ([terms, s], cut) => {
          let desc: ReturnType<typeof compile>['desc'];
          try {
            desc = compile(resolveOptions({ terms })).desc;
          } catch (e) {
            expect(e).toBeInstanceOf(TypeError); // (a term the options refuse)
            return;
          }
          accepted++;
          const ref: ReferenceOptions = { prefix: PREFIX, suffix: '__', upper: false, terms: { ...terms, pairs: [] } };
          expect(scanned(desc, enc.encode(s)), JSON.stringify(s)).toEqual(expectedBytes(s, ref));
          // Through a stream, the message cut inside the string or not at all.
          const message = (x: string) => `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: x }] } })}\n`;
          const data = bytes(message(s));
          const at = data.length - 6 - Math.floor(cut * enc.encode(s).length);
          const chunks = cut < 0 ? [data] : [data.subarray(0, at), data.subarray(at)];
          expect(transformChunks('encode', { terms }, chunks)).toBe(message(referenceEncode(s, ref)));
        },
      ),
      runs(300),
    );
    expect(accepted).toBeGreaterThan(0); // (not every term set refused)
  });
});
