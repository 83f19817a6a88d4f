// What a Teddy bucket costs: the share of text positions it lets through, under a small model of
// the text MCP carries, so the compiler can place patterns where they let least through. Two
// kinds of text: ASCII (English letter frequencies, spaces, digits, punctuation) and CJK in
// UTF-8, where a position that starts a character (a third of them) has a lead byte E4-E9, two
// continuation bytes, then the next character's lead byte; bytes independent of each other. A
// count of the byte strings a bucket admits weighs them all alike, and mixes CJK characters
// into buckets in ways that pass on most CJK text (their lead bytes are everywhere): this
// weighs each byte by how often it is met. Every byte keeps a small weight, so bytes the model
// does not know still count (as the plain count does).

/**
 * A weight per byte (folded `| 0x20`, as the core tests bytes): a floor for every byte, plus
 * rectangles (`weight` for each byte whose high nibble is in the bit set `hi` and low nibble in
 * `lo`) and single bytes. What a fingerprint admits at a position is then a few bit counts and
 * table lookups, not a walk over 256 bytes: this runs for every candidate placement of every
 * group, once per codec, mostly before any JIT.
 */
interface Model {
  rects: readonly (readonly [hi: number, lo: number, weight: number])[];
  bytes?: readonly (readonly [byte: number, weight: number])[];
}

const FLOOR = 1 / 4096;
/**
 * The share of CJK text in the model. MCP traffic is mostly ASCII (JSON, identifiers, English);
 * the unigram model also underrates how often ASCII text passes a bucket (English repeats a few
 * letter sequences), which a larger CJK share would make worse: CJK characters mixed into ASCII
 * buckets then add nibbles that pass on English.
 */
const CJK_SHARE = 0.15;
const ALL = 0xffff;

// Letter frequencies of English text, in percent of letters.
const LETTERS =
  'e12.7 t9.1 a8.2 o7.5 i7.0 n6.7 s6.3 h6.1 r6.0 d4.3 l4.0 c2.8 u2.8 m2.4 w2.4 f2.2 g2.0 y2.0 p1.9 b1.5 v1.0 k0.8 j0.2 x0.2 q0.1 z0.1';

const ASCII: Model = {
  rects: [[1 << 3, 0x03ff, 0.04 / 10]], // digits
  bytes: [
    ...LETTERS.split(' ').map((e) => [e.charCodeAt(0), (0.75 * Number(e.slice(1))) / 100] as const),
    [0x20, 0.15],
    ...Array.from('.,-/:"\x7f', (c) => [c.charCodeAt(0), 0.06 / 7] as const), // (0x7f: '_' folded)
  ],
};
const LEAD: Model = { rects: [[1 << 0xe, 0x03f0, 1 / 6]] }; // E4-E9
const CONTINUATION: Model = { rects: [[0x0c00, ALL, 1 / 32]] }; // 80-BF, folded to A0-BF

/** Set bits of a 16-bit mask (arithmetic: no table to build at import, a cold start's cost). */
const bits = (x: number) => {
  const a = x - ((x >> 1) & 0x5555);
  const b = (a & 0x3333) + ((a >> 2) & 0x3333);
  const c = (b + (b >> 4)) & 0x0f0f;
  return (c + (c >> 8)) & 0x1f;
};

/** A model made fast: rectangles flat, single bytes as per-high-nibble sums over low-nibble sets. */
interface Compiled {
  rects: number[];
  /** High nibbles that have single bytes, and per each, 512 sums: [lo & 255], then 256 + [lo >> 8]. */
  his: number[];
  sums: Float64Array[];
}

function compileModel(m: Model): Compiled {
  const his = [...new Set((m.bytes ?? []).map(([b]) => b >> 4))];
  const sums = his.map((h) => {
    const row = new Float64Array(16);
    for (const [b, w] of m.bytes!) if (b >> 4 === h) row[b & 15]! += w;
    const t = new Float64Array(512);
    for (let half = 0; half < 2; half++)
      for (let x = 1; x < 256; x++) t[half * 256 + x] = t[half * 256 + (x & (x - 1))]! + row[half * 8 + 31 - Math.clz32(x & -x)]!;
    return t;
  });
  return { rects: m.rects.flat(), his, sums };
}

let models: { ascii: Compiled; lead: Compiled; continuation: Compiled } | undefined;

function admittedWeight(m: Compiled, lo: number, hi: number): number {
  let s = FLOOR * bits(lo) * bits(hi);
  const r = m.rects;
  for (let i = 0; i < r.length; i += 3) {
    const h = r[i]! & hi;
    const l = r[i + 1]! & lo;
    if (h !== 0 && l !== 0) s += r[i + 2]! * bits(h) * bits(l);
  }
  for (let i = 0; i < m.his.length; i++) {
    if (hi & (1 << m.his[i]!)) s += m.sums[i]![lo & 255]! + m.sums[i]![256 + (lo >> 8)]!;
  }
  return s;
}

/** The expected share of text positions where a fingerprint passes. */
export function expectedPasses(fp: { readonly lo: readonly number[]; readonly hi: readonly number[] }): number {
  models ??= { ascii: compileModel(ASCII), lead: compileModel(LEAD), continuation: compileModel(CONTINUATION) };
  let ascii = 1 - CJK_SHARE;
  let cjk = CJK_SHARE / 3; // (a third of CJK positions start a character)
  for (let j = 0; j < fp.lo.length; j++) {
    ascii *= admittedWeight(models.ascii, fp.lo[j]!, fp.hi[j]!);
    cjk *= admittedWeight(j % 3 === 0 ? models.lead : models.continuation, fp.lo[j]!, fp.hi[j]!);
  }
  return ascii + cjk;
}
