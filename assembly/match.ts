// Term aliasing: leftmost-longest matching over UTF-8 bytes. The output is a record per match:
//  - MODE_RECORDS: [start, end) in UTF-16 units, so the host builds the result from slices of
//    its own string (no UTF-8 decoding on the way out);
//  - MODE_BYTE_RECORDS: [start, end) in bytes (the JSON transducer writes the tokens itself).
// Here the candidates are found (Teddy's blocks, the start filter); walk.ts walks and records them.
import { D_CLASSES, D_GRAM_MASK, D_ROW_SHIFT, D_START, D_TEDDY, D_TEDDY_ASCII, D_TRANS } from './abi';
import { CASE_BIT } from './bytes';
import { copyBytes } from './copy';
import { asciiBlocksEnd, gramMayStart, isAscii, teddyBlock } from './filter';
import { finish, gDesc, gInp, gStop, tryMatch, walkFrom, walkStart } from './walk';

// A zero-padded copy of an input shorter than one SIMD block.
const SCRATCH = memory.data(16);

let gSkip: i32 = 0; // no match may start before this (the end of the previous one)
let gLast: i32 = 0; // nor after this
let gConsumed: i32 = 0;

/**
 * A lower bound of the shortest match's length: the bytes the start set hashes, which are at
 * most that many (src/compile/start-set.ts, src/fold/prefilter.ts).
 */
@inline export function shortestMatch(desc: usize): i32 {
  return (35 - <i32>clz(load<u32>(desc + D_GRAM_MASK))) >> 3;
}

/**
 * Scans `len` bytes at `inp`. Returns how many input bytes are final: unless `final`, a
 * possible match that runs into the end of the input is left for the next call (the caller
 * carries those bytes over). Records need 8 bytes of room per possible match at `out`.
 */
export function scan(desc: usize, inp: usize, len: i32, out: usize, final: i32, mode: i32): i32 {
  return scanHeld(desc, inp, len, out, final, mode, 0, 0, 0);
}

/**
 * scan, the input starting with the candidate the last call left undecided: `walked` (> 0) of
 * its bytes already walked to `state`, `best` as heldBest said; or none (`walked` 0).
 */
export function scanHeld(desc: usize, inp: usize, len: i32, out: usize, final: i32, mode: i32, walked: i32, state: u32, best: i32): i32 {
  walkStart(desc, inp, out, mode);
  gSkip = 0;
  gConsumed = len;
  if (walked > 0 && walked <= len) {
    // The held candidate first: on from where it was left. Its start is then tried.
    const end = walkFrom(0, walked, state, best, len, final);
    if (gStop) {
      gConsumed = 0;
      finish();
      return 0;
    }
    gSkip = end > 0 ? end : 1;
  }
  // In final input no match starts where the shortest would run past the end: a short string
  // (most keys and names) is done here, and the SIMD loop's fingerprints that would run past
  // the end need no scalar pass (those that can match lie within the input).
  gLast = final ? len - shortestMatch(desc) : len - 1;
  if (gLast < 0) {
    finish();
    return len;
  }
  let b: i32 = 0;
  if (ASC_FEATURE_SIMD && final && len >= 4 && len <= 16 && inp + 16 <= (<usize>memory.size() << 16)) {
    // A short final string (most keys and names): one block, no carry, nothing after it.
    const raw = v128.load(inp);
    const ascii = load<u32>(desc + D_TEDDY_ASCII) as usize;
    const t = ascii != 0 && (i8x16.bitmask(raw) & ((1 << len) - 1)) == 0 ? ascii : (load<u32>(desc + D_TEDDY) as usize);
    const hit = teddyBlock(t, raw);
    const zero = i8x16.splat(0);
    const mask = i8x16.bitmask(i8x16.ne(hit, zero)) & ((1 << len) - 1);
    if (mask != 0) candidates(0, mask, len, final);
    b = len - 3; // fingerprints that would end past the input (final input: gStop stays false)
  } else if (ASC_FEATURE_SIMD && final && len > 16 && len <= SHORT_MAX) {
    // A final string of 17-64 bytes (most payload strings of small messages): no loop. fold
    // 'nfkc''s ASCII masks test it when it is all ASCII (every fingerprint is), as above.
    const ascii = load<u32>(desc + D_TEDDY_ASCII) as usize;
    shortBlocks(len, ascii != 0 && isAscii(inp, len) ? ascii : (load<u32>(desc + D_TEDDY) as usize));
    b = len - 3;
  } else if (ASC_FEATURE_SIMD && len >= 4) {
    // fold 'nfkc' has masks of its own for fingerprints of four ASCII bytes (its general ones
    // give most buckets to lookalikes and ideographs, and passed 1% of clean English): they
    // test the input up to its first block holding a byte >= 0x80, the general ones the rest.
    // Every start before the block the run stopped at, but for the last three, is tried then.
    // (One copy of `blocks`, the run's end found first: docs/PERFORMANCE.md, nfkc43.)
    const general = load<u32>(desc + D_TEDDY) as usize;
    const asciiMasks = load<u32>(desc + D_TEDDY_ASCII) as usize;
    for (let run = asciiMasks != 0; ; run = false) {
      b = blocks(b, len, run ? asciiBlocksEnd(inp, len) : len, final, run ? asciiMasks : general, run);
      if (!run || gStop) break;
      b = max(b - 3, 0);
      if (b > gSkip) gSkip = b;
    }
  }
  if (!gStop && b <= gLast) scalar(b, len, len, final);
  finish();
  return gConsumed;
}

/** Final strings up to this long (and over one block) are tested by shortBlocks. */
const SHORT_MAX: i32 = 64;

/**
 * Stage 1 on a final string of 17 to SHORT_MAX bytes, each candidate tried as it is found:
 * blocks of 16 that overlap so that every fingerprint within the input (starts 0 to len - 4)
 * is tested once, lanes 3-15 of each with nothing carried (starts q to q + 12 of the block at
 * q), the last block the input's last 16 bytes. The masks are loaded once; the blocks do not
 * depend on each other. The loop in `blocks` would hand one or two starts before its last
 * block to the scalar loop; none are left here.
 */
function shortBlocks(len: i32, t: usize): void {
  const inp = gInp;
  const lo0 = v128.load(t);
  const hi0 = v128.load(t, 16);
  const lo1 = v128.load(t, 32);
  const hi1 = v128.load(t, 48);
  const lo2 = v128.load(t, 64);
  const hi2 = v128.load(t, 80);
  const lo3 = v128.load(t, 96);
  const hi3 = v128.load(t, 112);
  const zero = i8x16.splat(0);
  const fold = i8x16.splat(<i8>CASE_BIT);
  const nibble = i8x16.splat(0x0f);
  for (let b: i32 = 0; ; b += 13) {
    // The block at q tests starts q to q + 12; those before b were tested by the block before.
    const q = min(b, len - 16);
    const v = v128.or(v128.load(inp + <usize>q), fold);
    const l = v128.and(v, nibble);
    const h = v128.and(i16x8.shr_u(v, 4), nibble);
    const hit = joined(zero, zero, zero, lookup(lo0, hi0, l, h), lookup(lo1, hi1, l, h), lookup(lo2, hi2, l, h), lookup(lo3, hi3, l, h));
    if (v128.any_true(hit)) candidates(q, i8x16.bitmask(i8x16.ne(hit, zero)) & ~((1 << (b - q + 3)) - 1), len, 1);
    if (q + 16 >= len) break;
  }
}

/**
 * Stage 1 from `b` to the end in 16-byte blocks (SIMD), each candidate tried as it is found,
 * with the masks at `t`; returns where the scalar loop takes over (fingerprints that would end
 * past the input). Fingerprints starting before b - 3 are left out (lanes 0-2 of the first
 * block). Two blocks a step up to `limit` (len, or an ASCII run's end); an `asciiRun` stops
 * before the first block holding a byte >= 0x80, or the last one, and returns its start.
 */
@inline function blocks(b: i32, len: i32, limit: i32, final: i32, t: usize, asciiRun: bool): i32 {
  const inp = gInp;
  const lo0 = v128.load(t);
  const hi0 = v128.load(t, 16);
  const lo1 = v128.load(t, 32);
  const hi1 = v128.load(t, 48);
  const lo2 = v128.load(t, 64);
  const hi2 = v128.load(t, 80);
  const lo3 = v128.load(t, 96);
  const hi3 = v128.load(t, 112);
  const zero = i8x16.splat(0);
  let p0 = zero;
  let p1 = zero;
  let p2 = zero;
  let blocksEnd = 0; // fingerprints starting before blocksEnd - 3 were tested in full blocks
  // Two whole blocks a step (most of a long text): two chains of lookups side by side and
  // one test for both, the second block's carried lanes the first's. (A candidate before a
  // match the first block's found is dropped by candidates, as gSkip says.)
  const fold = i8x16.splat(<i8>CASE_BIT);
  const nibble = i8x16.splat(0x0f);
  while (b + 32 <= limit) {
    const va = v128.or(v128.load(inp + <usize>b), fold);
    const vb = v128.or(v128.load(inp + <usize>b, 16), fold);
    const la = v128.and(va, nibble);
    const ha = v128.and(i16x8.shr_u(va, 4), nibble);
    const lb = v128.and(vb, nibble);
    const hb = v128.and(i16x8.shr_u(vb, 4), nibble);
    const a0 = lookup(lo0, hi0, la, ha);
    const a1 = lookup(lo1, hi1, la, ha);
    const a2 = lookup(lo2, hi2, la, ha);
    const a3 = lookup(lo3, hi3, la, ha);
    const b0 = lookup(lo0, hi0, lb, hb);
    const b1 = lookup(lo1, hi1, lb, hb);
    const b2 = lookup(lo2, hi2, lb, hb);
    const b3 = lookup(lo3, hi3, lb, hb);
    const hitA = joined(p0, p1, p2, a0, a1, a2, a3);
    const hitB = joined(a0, a1, a2, b0, b1, b2, b3);
    if (v128.any_true(v128.or(hitA, hitB))) {
      if (v128.any_true(hitA)) candidates(b, i8x16.bitmask(i8x16.ne(hitA, zero)), len, final);
      if (!gStop && v128.any_true(hitB)) candidates(b + 16, i8x16.bitmask(i8x16.ne(hitB, zero)), len, final);
      if (gStop) return b;
    }
    p0 = b0;
    p1 = b1;
    p2 = b2;
    b += 32;
    if (gSkip > b) {
      b = gSkip;
      p0 = zero;
      p1 = zero;
      p2 = zero;
    }
  }
  for (;;) {
    // Stage 1 (Teddy): lane k tests the 4-byte fingerprint that starts at base + k - 3.
    let base = b;
    let keep: i32 = -1;
    let v = zero;
    const lastBlock = b + 16 > len;
    if (!lastBlock) v = v128.load(inp + <usize>b);
    // (an ASCII run: no byte >= 0x80 in the block, nor in the three before, which the block before held)
    if (asciiRun && (lastBlock || i8x16.bitmask(v) != 0)) break;
    if (lastBlock) {
      // The rest, fingerprints ending by len - 1, in one more block: the last 16 bytes (lanes
      // before b were tested), or a zero-padded copy of an input shorter than a block.
      blocksEnd = b;
      if (b >= len) break;
      p0 = zero;
      p1 = zero;
      p2 = zero;
      base = len - 16;
      if (base >= 0) {
        // Lanes 1-2 would need the masks of the bytes before base: those positions go scalar.
        if (b - 3 < base) {
          b = scalar(b - 3, base, len, final);
          if (gStop) break;
        }
        v = v128.load(inp + <usize>base);
        keep = ~((1 << max(b - base, 0)) - 1);
      } else {
        // Lanes from len on are dropped (keep), so the bytes past the input may be anything:
        // loaded in place when memory goes on that far (no copy to wait for), else copied.
        base = 0;
        if (inp + 16 <= (<usize>memory.size() << 16)) v = v128.load(inp);
        else {
          v128.store(SCRATCH, zero);
          copyBytes(SCRATCH, inp, <usize>len);
          v = v128.load(SCRATCH);
        }
        keep = (1 << len) - 1;
      }
    }
    v = v128.or(v, i8x16.splat(<i8>CASE_BIT));
    const l = v128.and(v, i8x16.splat(0x0f));
    const h = i8x16.shr_u(v, 4);
    const m0 = lookup(lo0, hi0, l, h);
    const m1 = lookup(lo1, hi1, l, h);
    const m2 = lookup(lo2, hi2, l, h);
    const m3 = lookup(lo3, hi3, l, h);
    const hit = joined(p0, p1, p2, m0, m1, m2, m3);
    // (most blocks hold no candidate: one test, not a comparison and a bit mask)
    if (v128.any_true(hit)) candidates(base, i8x16.bitmask(i8x16.ne(hit, zero)) & keep, len, final);
    if (gStop || lastBlock) break;
    p0 = m0;
    p1 = m1;
    p2 = m2;
    b += 16;
    if (gSkip > b) {
      b = gSkip; // jump past the match; the lost lanes are all before it
      p0 = zero;
      p1 = zero;
      p2 = zero;
    }
  }
  if (asciiRun) return b;
  if (!gStop) b = max(len - 3, blocksEnd - 3); // fingerprints that would end past the input
  return b;
}

/** A position's Teddy masks for one block: the buckets admitting each byte's low and high nibble. */
@inline function lookup(lo: v128, hi: v128, l: v128, h: v128): v128 {
  return v128.and(i8x16.swizzle(lo, l), i8x16.swizzle(hi, h));
}

/** The candidates of a block (lane k: the fingerprint starting at k - 3), from its masks m and the block before's p. */
@inline function joined(p0: v128, p1: v128, p2: v128, m0: v128, m1: v128, m2: v128, m3: v128): v128 {
  const a0 = i8x16.shuffle(p0, m0, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28);
  const a1 = i8x16.shuffle(p1, m1, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
  const a2 = i8x16.shuffle(p2, m2, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  return v128.and(v128.and(a0, a1), v128.and(a2, m3));
}

/**
 * Scalar matching from b to end (exclusive): a position is a candidate when the automaton can
 * leave its start state there. Returns where it stopped.
 */
function scalar(b: i32, end: i32, len: i32, final: i32): i32 {
  const desc = gDesc;
  const inp = gInp;
  const classes = load<u32>(desc + D_CLASSES) as usize;
  const row = (load<u32>(desc + D_TRANS) as usize) + (<usize>load<u32>(desc + D_START) << load<u32>(desc + D_ROW_SHIFT));
  if (b < gSkip) b = gSkip;
  if (end > gLast + 1) end = gLast + 1;
  while (b < end) {
    const cls = <usize>load<u8>(classes + <usize>load<u8>(inp + <usize>b));
    if (load<u16>(row + (cls << 1)) != 0 && (b + 4 > len || gramMayStart(desc, inp + <usize>b))) {
      const stop = tryMatch(b, len, final);
      if (gStop) {
        gConsumed = b;
        return b;
      }
      if (stop > 0) {
        gSkip = stop;
        b = stop;
        continue;
      }
    }
    b++;
  }
  return b;
}

/** Tries the stage-1 candidates of a block (bit k: a fingerprint starting at base + k - 3). */
@inline function candidates(base: i32, mask: i32, len: i32, final: i32): void {
  while (mask != 0) {
    const c = base + ctz(mask) - 3;
    mask &= mask - 1;
    if (c > gLast) break;
    if (c < gSkip) continue;
    if (!gramMayStart(gDesc, gInp + <usize>c)) continue; // (a fingerprint's 4 bytes are in the input)
    const end = tryMatch(c, len, final);
    if (gStop) {
      gConsumed = c;
      return;
    }
    if (end > 0) gSkip = end;
  }
}
