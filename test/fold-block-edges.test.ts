// fold 'nfkc' where its ASCII masks stop (assembly/match.ts scanHeld: shortBlocks on 17-64
// bytes with the ASCII masks when all ASCII; from 65 the run up to `asciiBlocksEnd`, four
// blocks a test, two blocks a step, then the general masks): the first byte >= 0x80 at and
// around every block edge (15-17, 31-33, ..., 63-65, 127-129, 191-193), a term straddling
// it (its ASCII first letters, then a fullwidth letter, an ignorable or an accent), another
// ending at a block edge before it; strings of 16-260 bytes. Final scans against the
// automaton walked in JS; scans that are not final against the general masks throughout; the
// default fold on the same strings; and streams cut inside them (the held candidate handed to
// scanHeld) against the object API. Both builds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../src/codec/options.ts';
import { type Automaton, compileAutomaton } from '../src/compile/index.ts';
import { MODE_BYTE_RECORDS } from '../src/core/abi.ts';
import { type Descriptor, writeDescriptor } from '../src/core/descriptor.ts';
import { core, coreVariant } from '../src/core/instance.ts';
import { heap, heap32, workspace } from '../src/core/memory.ts';
import { createCodec, DEFAULT_TERMS } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { foldedPatterns } from './fold-reference.ts';
import { split, transformChunks } from './stream-helpers.ts';

const utf8 = new TextEncoder();

// `℡` is all of `tel`, `ﬁ` starts `fin`, `㎪` is `kpa` (as in fold-properties).
const CUSTOM = { ascii: ['tel', 'fin', 'in-x', 'kpa'], exact: ['⾥⾥', 'Ｔｍａｌｌ'], pairs: [['ok', 'go']] as [string, string][] };

/** [records..., consumed] of one scan. */
function scan(desc: Descriptor, input: Uint8Array, final: number): number[] {
  const ws = workspace(Math.max(input.length, 64), 8 * input.length + 64);
  heap().set(input, ws.input);
  const consumed = core.scan(desc.ptr, ws.input, input.length, ws.output, final, MODE_BYTE_RECORDS);
  return [...heap32().subarray(ws.output >> 2, (ws.output >> 2) + 2 * desc.matchCount()), consumed];
}

/** The reference: the automaton walked from every position, the longest match taken and skipped; then the length. */
function walked(a: Automaton, input: Uint8Array): number[] {
  const out: number[] = [];
  for (let p = 0; p < input.length; p++) {
    let best = 0;
    for (let j = p, s = 1; j < input.length; j++) {
      s = a.transitions[s * a.classCount + a.classes[input[j]!]!]!;
      if (s === 0) break;
      if (a.accepting[s]) best = j + 1;
    }
    if (best > 0) {
      out.push(p, best);
      p = best - 1;
    }
  }
  return [...out, input.length];
}

// Lengths and places where the paths and blocks meet.
const LENGTHS = [
  16, 17, 18, 31, 32, 33, 47, 48, 49, 63, 64, 65, 66, 79, 80, 81, 95, 96, 97, 127, 128, 129, 143, 144, 191, 192, 193, 255, 256, 257,
];
const EDGES = [
  0, 1, 2, 3, 4, 12, 13, 14, 15, 16, 17, 18, 19, 29, 30, 31, 32, 33, 34, 35, 47, 48, 49, 50, 60, 61, 62, 63, 64, 65, 66, 67, 79, 80, 81,
];
const MORE_EDGES = [
  95, 96, 97, 111, 112, 113, 125, 126, 127, 128, 129, 130, 131, 143, 144, 145, 189, 190, 191, 192, 193, 194, 253, 254, 255, 256,
];
// (negative: that far before the string's end, so that a term ends at its last bytes)
const place = fc.oneof(fc.constantFrom(...EDGES), fc.constantFrom(...MORE_EDGES), fc.nat(260), fc.integer({ min: -8, max: -1 }));

/** A non-ASCII spelling of an ASCII character: fullwidth, or the character with an ignorable or accent after it. */
const nonAscii = (c: string) =>
  fc.constantFrom(
    String.fromCharCode(c.charCodeAt(0) - 0x20 + 0xff00),
    `${c}\u00ad`,
    `${c}\u200b`,
    `${c}\u{e0041}`,
    `${c}\u0301`,
    '\u00e9',
  );

for (const [name, terms] of [
  ['default terms', DEFAULT_TERMS],
  ['letters that fold to several', CUSTOM],
] as const) {
  const automaton = compileAutomaton(resolveOptions({ fold: 'nfkc', terms }).patterns);
  const withRun = writeDescriptor(automaton, 'x', 'y', '0123456789abcdef', 1);
  const without = writeDescriptor({ ...automaton, teddyAscii: undefined }, 'x', 'y', '0123456789abcdef', 1);
  const plain = compileAutomaton(resolveOptions({ terms }).patterns);
  const plainDesc = writeDescriptor(plain, 'x', 'y', '0123456789abcdef', 1);
  const patterns = foldedPatterns(terms).filter((p) => /^[\x20-\x7e]+$/.test(p));
  const cased = (p: string, upper: boolean[]) => Array.from(p, (c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join('');

  // A term whose first `cut` letters are ASCII, then a non-ASCII spelling of the next (or a
  // multi-letter fold: `ﬁ`, `℡`), then the rest; its first byte >= 0x80 is its ASCII prefix's length in.
  const straddling = fc
    .tuple(fc.constantFrom(...patterns), fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), fc.nat(), fc.boolean())
    .chain(([p, upper, k, miss]) => {
      const cut = k % p.length;
      const word = cased(miss ? p.slice(0, -1) : p, upper);
      return fc.oneof(
        nonAscii(word[cut] ?? 'z').map((c) => ({ prefix: word.slice(0, cut), rest: c + word.slice(cut + 1) })),
        fc.constantFrom('ﬁ', '℡', '㎪', 'ｑ', '\u200b', '中').map((c) => ({ prefix: word.slice(0, cut), rest: c + word.slice(cut) })),
      );
    });
  const ascii = fc.tuple(fc.constantFrom(...patterns), fc.array(fc.boolean(), { minLength: 1, maxLength: 4 })).map(([p, u]) => cased(p, u));

  // A string of n bytes: filler, the straddling term's first byte >= 0x80 at `at` (none if
  // past the end: then the string is all ASCII but for what the cut left), an ASCII term ending
  // at `end` (negative places: from the string's end, a non-ASCII last letter its last bytes).
  const edgeString = fc
    .record({
      n: fc.oneof(fc.constantFrom(...LENGTHS), fc.integer({ min: 17, max: 260 })),
      at: place,
      end: place,
      term: straddling,
      other: fc.option(ascii),
      filler: fc.constantFrom(0x7a, 0x20, 0x2d),
    })
    .map(({ n, at, end, term, other, filler }) => {
      [at, end] = [at < 0 ? n + at : at, end < 0 ? n + end + 1 : end];
      const out = new Uint8Array(n).fill(filler);
      const put = (bytes: Uint8Array, from: number) => {
        for (let i = Math.max(-from, 0); i < bytes.length && from + i < n; i++) out[from + i] = bytes[i]!;
      };
      const starts = [at - utf8.encode(term.prefix).length];
      if (other !== null) {
        starts.push(end - utf8.encode(other).length);
        put(utf8.encode(other), starts[1]!);
      }
      put(utf8.encode(term.prefix + term.rest), starts[0]!);
      return { input: out, starts };
    });

  describe(`fold 'nfkc' at block edges, ${name} (${coreVariant} build)`, () => {
    it('final: the records are the automaton walked in JS, for fold nfkc and the default', () => {
      fc.assert(
        fc.property(edgeString, ({ input }) => {
          expect(scan(withRun, input, 1), `${input}`).toEqual(walked(automaton, input));
          expect(scan(plainDesc, input, 1), `${input}`).toEqual(walked(plain, input));
        }),
        runs(400),
      );
    });

    it('not final: the same records and undecided bytes as the general masks throughout', () => {
      fc.assert(
        fc.property(edgeString, ({ input }) => {
          expect(scan(withRun, input, 0), `${input}`).toEqual(scan(without, input, 0));
        }),
        runs(300),
      );
    });

    // The stream: a string cut inside, near the edges or 1-6 bytes into a term (a held
    // candidate carried to the next chunk, the rest often 17-64 bytes; negative cuts: from the
    // string's end); per message only (`lines: false`) and with the lines lane.
    for (const options of [{ fold: 'nfkc', terms } as const, { terms }]) {
      const codec = createCodec(options);
      it(`streams cut inside those strings as the object API encodes them (fold ${options.fold ?? 'default'})`, () => {
        fc.assert(
          fc.property(
            edgeString,
            fc.array(place, { maxLength: 3 }),
            fc.nat(1),
            fc.integer({ min: 1, max: 6 }),
            fc.boolean(),
            ({ input, starts }, cuts, which, into, lines) => {
              const s = new TextDecoder().decode(input); // (a string cut inside a character: U+FFFD, as the object API has it)
              const message = { jsonrpc: '2.0', id: 1, result: { text: s } };
              const data = utf8.encode(`${JSON.stringify(message)}\n`);
              const at = Buffer.from(data).indexOf('"text":"') + 8; // the string's first byte
              const end = at + utf8.encode(s).length; // (no character in it is escaped)
              const inTerm = at + (starts[which] ?? starts[0]!) + into;
              const chunks = split(data, [inTerm, ...cuts.map((c) => (c < 0 ? end + c : at + c))]);
              const got = transformChunks('encode', options, chunks, { lines });
              expect(JSON.parse(got)).toEqual(codec.encodeMessage(message));
              expect(got).toBe(transformChunks('encode', options, [data], { lines }));
            },
          ),
          runs(150),
        );
      });
    }
  });
}
