// The UTF-8 validator of the JSON transducer (assembly/utf8-simd.ts under SIMD, utf8.ts in
// the scalar build), tested in the simdutf manner: exhaustively over short byte sequences, at
// every position of a 16-byte block, against a scalar reference (TextDecoder, fatal). The core
// has no export for the kernel alone, so each case is one JSON string through the transducer
// itself (the smallest path there is: one reused instance, reset between cases), placed so the
// sequence starts at lane k of a block: the string starts a block and is long enough that the
// blocks before and after the sequence go through the 16-byte loop too.
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { PayloadStreamError } from '../src/stream/stream-error.ts';
import { Transducer } from '../src/stream/transducer.ts';
import { withoutStacks } from './no-stacks.ts';
import { firstBadByte } from './utf8-reference.ts';

const compiled = compile(resolveOptions({}));
const enc = new TextEncoder();
// Bytes a JSON string cannot hold raw (they end the plain run for other reasons).
const special = (b: number) => b < 0x20 || b === 0x22 || b === 0x5c;
const BLOCK = 16;
const ALL_LANES = Array.from({ length: BLOCK }, (_, lane) => lane);
// Pairs (54k of them; at every lane, 870k cases) at half the lanes: a vector's first four (the
// bytes before come from the vector before) and last four (a pair across two vectors), which
// between them put a pair at every offset of an 8-byte word (the scalar build reads ASCII a word
// at a time); lanes 4-11 compute as 3 and 12 do. Three- and four-byte sequences run at every lane.
const PAIR_LANES = [0, 1, 2, 3, 12, 13, 14, 15];
// The reference's verdict on each sequence, found once: both kinds of string and every `before`
// check the same sequences, and a refusal costs the decoder a thrown error or two.
const verdicts = new Map<string, number>();
function reference(bytes: Uint8Array): number {
  const key = bytes.join();
  let bad = verdicts.get(key);
  if (bad === undefined) {
    bad = firstBadByte(bytes);
    verdicts.set(key, bad);
  }
  return bad;
}

for (const [what, head] of [
  ['envelope', '{"method":"'],
  ['payload', '{"result":"'],
] as const) {
  describe(`UTF-8 validation, ${what} strings`, () => {
    const t = new Transducer({ desc: compiled.desc, mode: 'encode', expansion: compiled.expansion });
    afterAll(() => t.release());
    const prefix = enc.encode(head);
    const tail = enc.encode('"}');
    const sink = () => {};

    /**
     * The offset in the message of the error the transducer reports, or -1 when it accepts.
     * (Millions of refusals: errors without stack traces keep each case to a few microseconds.)
     */
    function verdict(message: Uint8Array): number {
      return withoutStacks(() => {
        t.begin();
        try {
          t.write(message, sink, 1, 0);
          t.finish(sink, 1, message.length);
          return -1;
        } catch (e) {
          if (!(e instanceof PayloadStreamError) || e.reason !== 'invalid UTF-8') throw e;
          return e.byteOffset;
        }
      });
    }

    /**
     * Runs every sequence at every lane (with a whole block of ASCII, then `before`, ahead of
     * it, and two blocks after) and returns the cases where the core and the reference disagree.
     * The message for a lane is built once; only the sequence's bytes change.
     */
    function check(
      seqs: Iterable<ArrayLike<number>>,
      width: number,
      before: ArrayLike<number> = [],
      endsString = false,
      lanes: readonly number[] = ALL_LANES,
    ): string[] {
      const wrong: string[] = [];
      // With `endsString`, the closing quote follows the sequence in the same block (another
      // member follows, so the block is whole): a sequence cut off by the quote must be seen.
      const after = endsString ? enc.encode(`","more":"${'b'.repeat(2 * BLOCK)}`) : new Uint8Array(2 * BLOCK).fill(0x62);
      const messages = Array.from({ length: BLOCK }, (_, lane) => {
        const m = new Uint8Array(prefix.length + BLOCK + lane + width + after.length + tail.length).fill(0x61);
        m.set(prefix, 0);
        m.set(before, prefix.length + BLOCK + lane - before.length);
        m.set(after, prefix.length + BLOCK + lane + width);
        m.set(tail, m.length - tail.length);
        return m;
      });
      for (const seq of seqs) {
        const bytes = Uint8Array.from(seq);
        const bad = reference(bytes);
        for (const lane of lanes) {
          const m = messages[lane]!;
          const at = prefix.length + BLOCK + lane;
          m.set(bytes, at);
          const want = bad < 0 ? -1 : at + bad;
          const got = verdict(m);
          if (got !== want && wrong.length < 10)
            wrong.push(`[${Array.from(bytes, (b) => b.toString(16)).join(' ')}] at lane ${lane}: core ${got}, reference ${want}`);
        }
      }
      return wrong;
    }

    it('agrees with the reference on every single byte', () => {
      const seqs = [];
      for (let b = 0; b < 256; b++) if (!special(b)) seqs.push([b]);
      expect(check(seqs, 1)).toEqual([]);
    });

    // (Envelope strings only: the payload path runs the same loop, and pairs are 435k cases.)
    it.runIf(what === 'envelope')('agrees with the reference on every pair of bytes', () => {
      const seqs = function* () {
        for (let a = 0; a < 256; a++) for (let b = 0; b < 256; b++) if (!special(a) && !special(b)) yield [a, b];
      };
      expect(check(seqs(), 2, [], false, PAIR_LANES)).toEqual([]);
    });

    // Every lead byte, with second, third and fourth bytes at the edges of the ranges the
    // lead allows (overlongs, surrogates, past U+10FFFF, missing or extra continuations).
    const edges = [0x61, 0x7f, 0x80, 0x81, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xff];
    // Every lead of a three-byte sequence, and the edges of the other kinds.
    const leads = [0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, ...Array.from({ length: 16 }, (_, k) => 0xe0 + k), 0xf0, 0xf4, 0xf5, 0xff];

    it('agrees with the reference on structured three-byte sequences', () => {
      const seqs = function* () {
        for (const a of leads) for (const b of edges) for (const c of edges) yield [a, b, c];
      };
      expect(check(seqs(), 3)).toEqual([]);
    });

    it('agrees with the reference on structured four-byte sequences', () => {
      const fourLeads = [0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf7, 0xf8, 0xff, 0x80];
      const cont = [0x7f, 0x80, 0xbf, 0xc0];
      const seqs = function* () {
        for (const a of fourLeads) for (const b of edges) for (const c of cont) for (const d of cont) yield [a, b, c, d];
      };
      expect(check(seqs(), 4)).toEqual([]);
    });

    it('agrees with the reference when the string ends right after the sequence', () => {
      const seqs = function* () {
        for (let a = 0x20; a < 256; a++) for (const b of edges) if (!special(a)) yield [a, b];
      };
      expect(check(seqs(), 2, [], true)).toEqual([]);
      expect(
        check(
          leads.map((a) => [0x61, a]),
          2,
          [],
          true,
        ),
      ).toEqual([]);
      expect(
        check(
          leads.flatMap((a) => edges.map((b) => [a, b, 0x80])),
          3,
          [],
          true,
        ),
      ).toEqual([]);
    });

    it('agrees with the reference after a multi-byte character that ends just before the sequence', () => {
      const seqs = function* () {
        for (let a = 0x80; a < 256; a++) for (const b of edges) yield [a, b];
      };
      for (const before of ['é', '中', '😀'].map((c) => enc.encode(c))) expect(check(seqs(), 2, before)).toEqual([]);
    });
  });
}
