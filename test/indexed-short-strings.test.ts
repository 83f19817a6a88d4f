// Short strings on the indexed path (assembly/json/indexed-rewrite.ts): encoding, a key or value
// of up to 16 bytes is looked at by the start filter (assembly/filter.ts mayStartIn; with SIMD,
// from 10 to 32 bytes Teddy's fingerprints in blocks, mayStartInBlocks) and the matcher is
// called only when a match may start in it; decoding (SIMD), the token decoder only when the
// prefix's first two bytes occur in a string of up to 128 bytes (mayHoldToken). Strings made
// of terms cut, joined and
// placed at every offset, in either case, under term sets of every shortest length (3 bytes:
// no filter; 4, the default's; longer; multi-byte; folded), must come out as the per-message
// path (`lines: false`) writes them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import type { StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { expectBe, expectEqual } from './quick-expect.ts';

const CODECS: StreamOptions[] = [
  {},
  { terms: { ascii: ['wanx', 'damo'] } },
  { terms: { ascii: ['xyz', 'tongyi'] } },
  { terms: { ascii: ['maxcompute', 'qwen'], exact: ['通义'] } },
  { terms: { exact: ['通义', '阿里'] } },
  { fold: 'nfkc', terms: { ascii: ['qwen', 'wanx'] } },
];
const pieces = [
  'wanx',
  'WanX',
  'wan',
  'anx',
  'damo',
  'dam',
  'qwen',
  'Qwen',
  'wen',
  'xyz',
  'xy',
  'tongyi',
  'tong',
  '通义',
  '通',
  '阿里',
  'x',
  'é',
  ' ',
  '-',
];
const short = fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((p) => p.join(''));
const message = fc
  .array(fc.tuple(short, short), { minLength: 1, maxLength: 6 })
  .map((members) => JSON.stringify({ jsonrpc: '2.0', id: 1, result: Object.fromEntries(members) }));

/** `input` through one byteTransformer in `direction`, the output as text. */
function transformed(direction: 'encode' | 'decode', input: Uint8Array, codec: StreamOptions, lines: boolean): string {
  const out: Uint8Array[] = [];
  const t = byteTransformer(direction, { ...codec, onInvalidMessage: () => {} }, (b) => void out.push(b.slice()), { lines });
  t.push(input);
  t.close();
  return Buffer.concat(out).toString();
}
const encoded = (input: Uint8Array, codec: StreamOptions, lines: boolean) => transformed('encode', input, codec, lines);
const decoded = (input: Uint8Array, codec: StreamOptions, lines: boolean) => transformed('decode', input, codec, lines);

describe('short strings on the indexed path', () => {
  for (const [c, codec] of CODECS.entries())
    it(`codec ${c}: the per-message path's output`, () => {
      let changed = 0;
      fc.assert(
        fc.property(fc.array(message, { minLength: 1, maxLength: 4 }), (lines) => {
          const text = `${lines.join('\n')}\n`;
          const input = new TextEncoder().encode(text);
          const on = encoded(input, codec, true);
          expectBe(on, encoded(input, codec, false));
          if (on !== text) changed++;
        }),
        runs(150),
      );
      expect(changed).toBeGreaterThan(0); // (terms were found)
    });
});

// Each key and value against createCodec().encodeText of its text: strings padded to 9-17 and
// 29-33 bytes (the filters' last lengths, one past them; 29 and 30, where a third block starts),
// the pad split around the terms, letters written as \u escapes, terms of one
// byte and terms whose folded matches (`nfkc`: fullwidth, a roman numeral of one character) are
// longer or shorter in their source than the term.
const REFERENCE: StreamOptions[] = [
  {},
  { terms: { ascii: ['q', 'wanx'] } },
  { terms: { ascii: ['qwe', 'tongyi', 'damo'] } },
  { terms: { exact: ['通义', 'é'] } },
  { fold: 'nfkc', terms: { ascii: ['qwen', 'viii'] } },
  { fold: 'nfkc', terms: { ascii: ['wanx', 'damo'], exact: ['通义'] } },
];
const more = [...pieces, 'QWEN', 'ｑｗｅｎ', 'ｑ', 'ⅷ', 'Ⅷ', 'viii', 'ＷａｎＸ', 'q'];
const LENGTHS = [0, 9, 10, 12, 15, 16, 17, 20, 26, 29, 30, 31, 32, 33];
/** The pieces joined, padded with `-` to `to` bytes, `at` deciding how much of the pad goes first. */
function padTo(p: string[], to: number, at: number): string {
  const s = p.join('');
  const pad = Math.max(0, to - Buffer.byteLength(s));
  const front = at % (pad + 1);
  return '-'.repeat(front) + s + '-'.repeat(pad - front);
}
const padded = fc
  .tuple(fc.array(fc.constantFrom(...more), { maxLength: 5 }), fc.constantFrom(...LENGTHS), fc.nat())
  .map(([p, to, at]) => padTo(p, to, at));
/** s as a JSON string, the letters whose bit in `mask` is set written as \u escapes. */
function written(s: string, mask: number): string {
  let out = '"';
  let i = 0;
  for (const ch of s) {
    const e = JSON.stringify(ch).slice(1, -1);
    out += /[a-z]/i.test(ch) && (mask >>> (i++ % 31)) & 1 ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : e;
  }
  return `${out}"`;
}

/**
 * The message holding `body` as an object's members, through `transform` with lines on and off:
 * the same output, each member's key and value as `ref` writes it. Whether it changed.
 */
function holdsMembers(
  body: string,
  members: readonly (readonly [string, string, ...unknown[]])[],
  transform: (input: Uint8Array, lines: boolean) => string,
  ref: (s: string) => string,
): boolean {
  const line = `{"jsonrpc":"2.0","id":1,"result":{"items":[{${body}}]}}\n`;
  const input = new TextEncoder().encode(line);
  const on = transform(input, true);
  expectBe(on, transform(input, false));
  expectEqual(
    Object.entries(JSON.parse(on).result.items[0]),
    members.map(([k, v]) => [ref(k), ref(v)]),
  );
  return on !== line;
}

describe('short strings on the indexed path, string by string', () => {
  for (const [c, codec] of REFERENCE.entries())
    it(`codec ${c}: each key and value as encodeText writes it`, () => {
      const reference = createCodec({ terms: codec.terms, fold: codec.fold });
      let changed = 0;
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.tuple(padded, padded, fc.nat(), fc.nat()), { minLength: 1, maxLength: 6, selector: (m) => m[0] }),
          (members) => {
            const body = members.map(([k, v, mk, mv]) => `${written(k, mk)}:${written(v, mv)}`).join(',');
            const encode = (input: Uint8Array, lines: boolean) => encoded(input, codec, lines);
            if (holdsMembers(body, members, encode, (t) => reference.encodeText(t))) changed++;
          },
        ),
        runs(150),
      );
      expect(changed).toBeGreaterThan(0); // (terms were found)
    });
});

// Decoding, each key and value against createCodec().decodeText of its text: tokens (the
// shortest too), their prefixes cut short or in upper case, and the prefix's first two bytes alone, padded to the
// same lengths, under prefixes of one, two and more bytes.
const DECODING: StreamOptions[] = [
  {},
  { prefix: '__cuaf_', hexCase: 'upper' },
  { prefix: 'g', suffix: '_' },
  { prefix: 'zq', suffix: '!' },
];

describe('short strings on the indexed path, decoding', () => {
  for (const [c, codec] of DECODING.entries())
    it(`codec ${c}: each key and value as decodeText writes it`, () => {
      const reference = createCodec({ prefix: codec.prefix, suffix: codec.suffix, hexCase: codec.hexCase });
      const token = reference.encodeText('qwen');
      expect(token).not.toBe('qwen');
      const prefix = codec.prefix ?? '__mcp_ref_';
      const shortest = `${prefix}41${codec.suffix ?? '__'}`; // ("A": the shortest token)
      const bits = [
        token,
        shortest,
        token.toUpperCase(),
        token.slice(0, -1),
        prefix,
        prefix.slice(0, 2),
        prefix.slice(0, 1),
        'ab',
        'x',
        'é',
        '_',
      ];
      const text = fc
        .tuple(fc.array(fc.constantFrom(...bits), { maxLength: 3 }), fc.constantFrom(...LENGTHS), fc.nat())
        .map(([p, to, at]) => padTo(p, to, at));
      let changed = 0;
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.tuple(text, text), { minLength: 1, maxLength: 6, selector: (m) => reference.decodeText(m[0]) }),
          (members) => {
            const body = members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',');
            const decode = (input: Uint8Array, lines: boolean) => decoded(input, codec, lines);
            if (holdsMembers(body, members, decode, (t) => reference.decodeText(t))) changed++;
          },
        ),
        runs(150),
      );
      expect(changed).toBeGreaterThan(0); // (tokens were found)
    });
});

// Generated term sets and prefixes (the sets above are fixed): terms of 1-8 bytes from a small
// alphabet (so text made of their pieces meets them), pairs with their separators, exact
// non-ASCII terms, either fold, and, decoding, prefixes of one to four bytes in either case;
// each string padded to the filters' edge lengths, any of its characters written as a \u
// escape (a token cut by `\u005f` in the raw JSON is whole in the decoded bytes the checks read).
const ALPHA = 'abqwxz_-.';
const word = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...ALPHA), minLength: min, maxLength: max });
const termSet = fc.record({
  fold: fc.constantFrom<'ascii' | 'nfkc'>('ascii', 'nfkc'),
  ascii: fc.array(fc.oneof({ arbitrary: word(4, 6), weight: 3 }, word(1, 8)), { maxLength: 3 }),
  exact: fc.array(fc.constantFrom('通义', 'é', 'éa', 'ｑw', 'Ⅷab', 'aé', 'qq通'), { maxLength: 2 }),
  pairs: fc.array(fc.tuple(word(1, 4), word(1, 4)), { maxLength: 2 }),
});
const fullwidth = (s: string) => s.replace(/[a-z]/gi, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
/** s as a JSON string, the characters whose bit in `mask` is set written as \u escapes. */
function escaped(s: string, mask: number): string {
  let out = '"';
  let i = 0;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    out += code < 0x10000 && (mask >>> (i++ % 31)) & 1 ? `\\u${code.toString(16).padStart(4, '0')}` : JSON.stringify(ch).slice(1, -1);
  }
  return `${out}"`;
}
const EDGES = [4, 9, 10, 11, 13, 15, 16, 17, 18, 19, 28, 29, 30, 31, 32, 33, 34, 127, 128, 129];
/** padTo, the pieces `at` bytes from either end (where blocks start and end) or anywhere. */
function padAt(p: string[], to: number, at: number): string {
  const pad = Math.max(0, to - Buffer.byteLength(p.join('')));
  const k = [0, 1, 2, 3, 12, 13, 14, 15, 16, 17, 26, 29][(at >>> 2) % 12]!;
  const front = at % 4 === 0 ? Math.min(pad, k) : at % 4 === 1 ? Math.max(0, pad - k) : at >>> 2;
  return padTo(p, to, front);
}

/** Spec of a member: which pieces, the length padded to, where they sit, which characters escaped. */
type MemberSpec = [number[], number, number, number];
const memberSpecs = (maxPieces: number) =>
  fc.array(fc.tuple(fc.array(fc.nat(), { maxLength: maxPieces }), fc.constantFrom(...EDGES), fc.nat(), fc.nat()), {
    minLength: 1,
    maxLength: 8,
  });

/** Members made of `pieces` by `specs`: each key and value, and the members as written. */
function membersOf(specs: MemberSpec[], pieces: string[]) {
  const members = specs.map(([picks, to, at, mask], i) => {
    const s = padAt(
      picks.map((k) => pieces[k % pieces.length]!),
      to,
      at,
    );
    return [`${i}${s}`, s, mask] as const;
  });
  return { members, body: members.map(([k, v, mask]) => `${escaped(k, mask >>> 3)}:${escaped(v, mask)}`).join(',') };
}

describe('short strings on the indexed path, generated terms', () => {
  it('each key and value as encodeText writes it, on both paths', () => {
    let changed = 0;
    fc.assert(
      fc.property(termSet, memberSpecs(5), (t, specs) => {
        const terms = { ascii: t.ascii, exact: t.exact, pairs: t.pairs };
        let reference: ReturnType<typeof createCodec>;
        try {
          reference = createCodec({ terms, fold: t.fold });
        } catch {
          return; // (a term set the codec refuses)
        }
        const seps = ['', '-', '_', ' '];
        const variants = [
          ...t.ascii.flatMap((w) => [w, w.toUpperCase(), w.slice(1), w.slice(0, -1), fullwidth(w)]),
          ...t.exact,
          ...t.pairs.flatMap(([a, b]) => seps.map((s) => `${a}${s}${b.toUpperCase()}`)),
          'a',
          'é',
          ' ',
        ];
        const { members, body } = membersOf(specs, variants);
        const encode = (input: Uint8Array, lines: boolean) => encoded(input, { terms, fold: t.fold }, lines);
        if (holdsMembers(body, members, encode, (x) => reference.encodeText(x))) changed++;
      }),
      runs(300),
    );
    expect(changed).toBeGreaterThan(30);
  });

  it('each key and value as decodeText writes it, under generated prefixes', () => {
    let changed = 0;
    const affix = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'_zqgZQ-.~#A'), minLength: min, maxLength: max });
    fc.assert(
      fc.property(
        affix(1, 4),
        affix(1, 3),
        fc.constantFrom<'lower' | 'upper'>('lower', 'upper'),
        memberSpecs(3),
        (prefix, suffix, hexCase, specs) => {
          let reference: ReturnType<typeof createCodec>;
          try {
            reference = createCodec({ prefix, suffix, hexCase, terms: { ascii: ['qwen'] } });
          } catch {
            return;
          }
          const token = reference.encodeText('qwen');
          const shortest = `${prefix}41${suffix}`;
          const upper = prefix.toUpperCase() + token.slice(prefix.length); // (the prefix in upper case)
          const lower = prefix.toLowerCase() + token.slice(prefix.length);
          const bits = [
            token,
            shortest,
            upper,
            lower,
            token,
            shortest,
            token.toUpperCase(),
            token.slice(0, -1),
            prefix,
            prefix.slice(0, 2),
            'ab',
            'é',
          ];
          const { members, body } = membersOf(specs, bits);
          const codec = { prefix, suffix, hexCase, terms: { ascii: ['qwen'] } };
          const decode = (input: Uint8Array, lines: boolean) => decoded(input, codec, lines);
          if (holdsMembers(body, members, decode, (x) => reference.decodeText(x))) changed++;
        },
      ),
      runs(800),
    );
    expect(changed).toBeGreaterThan(30);
  });
});

// `nfkc` matches shorter in the text than their term (a ligature, a roman numeral, a
// digraph: 3 bytes for "ffi", 2 for "dz"), at every offset near a block's edges and the
// string's end, where a filter that trusted the term's length would stop too early.
describe('short strings on the indexed path, compressed lookalikes', () => {
  it('each as encodeText writes it, on both paths', () => {
    const cases: [string[], string[]][] = [
      [
        ['ffiab', 'ffix'],
        ['ﬃab', 'ﬃx', 'ﬀix', 'FFIAB'],
      ],
      [
        ['viii', 'xii'],
        ['ⅷ', 'Ⅷ', 'ⅻ', 'ⅹii'],
      ],
      [['ijab'], ['ĳab', 'Ĳab']],
      [['dzab'], ['ǆab', 'ǳab']],
      [
        ['rs12', 'tel.'],
        ['₨12', '₨¹²', '℡.'],
      ],
    ];
    let changed = 0;
    for (const [ascii, texts] of cases) {
      const codec: StreamOptions = { fold: 'nfkc', terms: { ascii } };
      const reference = createCodec({ fold: 'nfkc', terms: { ascii } });
      // (A front past the pad is taken modulo its length: 5,228 of the 7,215 strings differ.)
      const seen = new Set<string>();
      for (const t of texts)
        for (let to = 4; to <= 40; to++)
          for (const front of [0, 1, 2, 3, 12, 13, 14, 15, 16, 17, 26, 29, 99]) {
            const s = padTo([t], to, front);
            if (seen.has(s)) continue;
            seen.add(s);
            const line = `{"jsonrpc":"2.0","id":1,"result":{"k":${JSON.stringify(s)}}}\n`;
            const input = new TextEncoder().encode(line);
            const on = encoded(input, codec, true);
            expectBe(on, encoded(input, codec, false));
            expectBe(JSON.parse(on).result.k, reference.encodeText(s));
            if (on !== line) changed++;
          }
    }
    expect(changed).toBeGreaterThan(3600); // (of 5,228 strings: the share 5,000 was of 7,215)
  });
});
