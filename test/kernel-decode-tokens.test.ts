// The token decoder of the WASM core (assembly/decode.ts: a SIMD search for the prefix's first
// two bytes, then prefix, hex pairs, suffix and the UTF-8 check of the decoded bytes), in the
// simdutf manner: every short sequence of token fragments (prefixes in any case, cut prefixes,
// hex pairs and odd digits, bytes that are not UTF-8, a quote, suffixes), at every position of
// a 16-byte block, against the scalar reference (test/reference.ts). The core has no export for
// the decoder alone, so each case is one JSON string through the transducer (one reused
// instance), placed so that the sequence starts at lane k after a whole block; the string goes
// on for two more blocks, or ends right after the sequence. Both builds (the vitest projects).
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { Transducer } from '../src/stream/transducer.ts';
import { referenceDecode } from './reference.ts';
import { CUA_DRIVER, MOBILE_MCP } from './reference-options.ts';

const BLOCK = 16;
const FILLER = 'z'; // not a hex digit, not in any prefix or suffix
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Every sequence of `length` fragments. */
function* sequences(alphabet: string[], length: number): Generator<string> {
  if (length === 0) return yield '';
  for (const head of sequences(alphabet, length - 1)) for (const f of alphabet) yield head + f;
}

const FORMATS = [
  ['default', {}, MOBILE_MCP, '__MCP_Ref_', '__mcp_re'],
  ['cua-driver', { prefix: '__cuaf_', hexCase: 'upper' as const }, CUA_DRIVER, '__CuAF_', '__cua'],
] as const;

describe.each(FORMATS)('token decoder, %s format', (_name, options, ref, otherCase, cutPrefix) => {
  const compiled = compile(resolveOptions(options));
  const t = new Transducer({ desc: compiled.desc, mode: 'decode', expansion: compiled.expansion }, 'text');
  afterAll(() => t.release());

  /** The JSON string `s` (ASCII) through the decoder, fed in the given pieces; its value. */
  function decoded(s: string, cuts: number[] = []): string {
    const message = utf8.encode(JSON.stringify(s));
    const out: Uint8Array[] = [];
    const sink = (b: Uint8Array) => {
      out.push(b.slice()); // (a view of the core's memory, reused by the next write)
    };
    t.begin();
    let from = 0;
    for (const c of [...cuts, message.length]) {
      t.write(message.subarray(from, c), sink, 1, from);
      from = c;
    }
    t.finish(sink, 1, message.length);
    return JSON.parse(strictUtf8.decode(Buffer.concat(out))) as string;
  }

  /** Each sequence at every lane, the string going on or ending after it; the disagreements. */
  function check(seqs: Iterable<string>, cutsOf: (at: number, seq: string) => number[][] = () => [[]]): string[] {
    const wrong: string[] = [];
    for (const seq of seqs) {
      // (No token holds the filler, so the reference decodes the sequence and what follows once,
      // whatever the lane.)
      const tails = [FILLER.repeat(2 * BLOCK), ''].map((after) => [after, referenceDecode(seq + after, ref)] as const);
      for (let lane = 0; lane < BLOCK; lane++) {
        for (const [after, tail] of tails) {
          const s = FILLER.repeat(BLOCK + lane) + seq + after;
          const want = FILLER.repeat(BLOCK + lane) + tail;
          for (const cuts of cutsOf(1 + BLOCK + lane, seq)) {
            let got: string;
            try {
              got = decoded(s, cuts);
            } catch (e) {
              got = `error: ${(e as Error).message}`;
            }
            if (got !== want && wrong.length < 10)
              wrong.push(
                `${JSON.stringify(seq)} at lane ${lane}${after ? '' : ', ending the string'}${cuts.length ? ` cut at ${cuts}` : ''}: core ${JSON.stringify(got)}, reference ${JSON.stringify(want)}`,
              );
          }
        }
      }
    }
    return wrong;
  }

  const prefix = ref.prefix;
  const hexCase = (h: string) => (ref.upper ? h.toUpperCase() : h);
  // 中 (e4 b8 ad), é in mixed case (c3 A9), a quote (22: written back escaped), not UTF-8 (FF),
  // an odd digit (7), the suffix and half of it.
  const fragments = [prefix, otherCase, '_', '__', '7', hexCase('71'), 'e4b8ad', 'c3', 'A9', 'FF', '22'];

  it('every sequence of up to three fragments, at every lane', () => {
    for (let n = 1; n <= 3; n++) expect(check(sequences(fragments, n))).toEqual([]);
  });

  it('every sequence of four fragments that can spell a two-byte token or miss it by one', () => {
    expect(check(sequences([prefix, cutPrefix, 'c3', 'A9', '7', '__'], 4))).toEqual([]);
  });

  it('long runs of hex digits (the SIMD run finder, 16 at a time, and its scalar tail), at every lane', () => {
    // Runs of 2 to 43 digits: valid tokens, an odd digit more, bytes that are not UTF-8, a
    // half suffix, and 'g' (not hex: counted, it would make an even run of valid UTF-8).
    const seqs: string[] = [];
    for (let k = 1; k <= 7; k++) {
      const run = hexCase('e4b8ad'.repeat(k));
      seqs.push(
        `${prefix}${run}__`,
        `${prefix}${run}7__`,
        `${prefix}${hexCase('41'.repeat(k))}FF__`,
        `${otherCase}${run}_`,
        `${prefix}${run}4g__`,
      );
    }
    expect(check(seqs)).toEqual([]);
    // The prefix with one byte changed (to a hex digit, then to the next byte), before a token's digits.
    const nearMisses = Array.from(prefix, (_, i) => [
      `${prefix.slice(0, i)}7${prefix.slice(i + 1)}${hexCase('e4b8ad')}__`,
      `${prefix.slice(0, i)}${String.fromCharCode(prefix.charCodeAt(i) + 1)}${prefix.slice(i + 1)}${hexCase('c3a9')}__`,
    ]).flat();
    expect(check(nearMisses)).toEqual([]);
    const cutsOf = (at: number, seq: string) => Array.from({ length: seq.length + 1 }, (_, k) => [at + k]);
    expect(check([`${prefix}${hexCase('e4b8ad'.repeat(6))}__`], cutsOf)).toEqual([]);
  });

  it('tokens and near misses fed in two pieces, cut at every byte of the sequence', () => {
    const seqs = [
      `${prefix}e4b8ad__`,
      `${otherCase}C3a9__`,
      `${prefix}c3a9_`,
      `${prefix}FF__`,
      `${prefix}7__`,
      `${prefix}${prefix}71__`,
      `${cutPrefix}${prefix}22__`,
    ];
    const cutsOf = (at: number, seq: string) => Array.from({ length: seq.length + 1 }, (_, k) => [at + k]);
    expect(check(seqs, cutsOf)).toEqual([]);
  });
});
