// Stage 1 of the indexed path (indexed.ts): the string delimiters of a whole message, found 64
// bytes at a time as bitmasks (16 bytes per SIMD compare; 8 at a time without SIMD), the way
// simdjson's stage 1 does: quotes, backslashes (a quote after an odd run of them is escaped),
// in-string regions (a prefix XOR of the quotes) and, checked on the way, control bytes inside
// strings and bytes that are not UTF-8. Between blocks it carries a few bits: inside a string or
// not, and whether the next byte is escaped. Stage 2 takes the quotes one by one.
import { BACKSLASH, FIRST_PRINTABLE, QUOTE, SLASH, shortEscape } from '../bytes';
import { isValidUtf8 } from '../utf8';
import { highNibbles, lanesBelow } from '../lanes';
import { sequenceStart, utf8ErrorsWith } from '../utf8-simd';

const BLOCK: i32 = 64;
// The last, partial block, copied with zeros after it (no load may read past the message).
const TAIL = memory.data(BLOCK + 16);

let gInp: usize = 0;
let gLen: i32 = 0;
let gBase: i32 = 0; // where the block whose quotes are in gQuotes starts
let gQuotes: u64 = 0; // its quotes not yet taken
let gNext: i32 = 0; // where the next block starts
let gInString: u64 = 0; // all ones when the next block starts inside a string
let gEscaped: u64 = 0; // 1 when the next block's first byte is escaped

let gQuoteless = false; // the block at gBase (and the 16 bytes before it) is ASCII with no quote
let gBackslashes: u64 = 0; // the backslashes of the block at gBase
let gBackslashesBefore: u32 = 0; // how many come before it

/** A byte stage 2 must not take: a control byte in a string, or not UTF-8 (the old path reports it). */
export let gUnfit = false;
/**
 * An escape other than `\"` `\\` `\b` `\f` `\n` `\r` `\t` (a `\/`, a `\u`, or one not valid) in
 * the blocks indexed so far: until one is, a string's raw bytes may stand for its decoded text
 * (indexed-text.ts readString).
 */
export let gOtherEscapes = false;

/** Starts indexing the n bytes at inp. */
export function indexStart(inp: usize, n: i32): void {
  gInp = inp;
  gLen = n;
  gBase = 0;
  gQuotes = 0;
  gNext = 0;
  gInString = 0;
  gEscaped = 0;
  gBackslashes = 0;
  gBackslashesBefore = 0;
  gQuoteless = false;
  gOtherEscapes = false;
  // Without SIMD the UTF-8 check is one pass over the message (the blocks only classify bytes).
  gUnfit = !ASC_FEATURE_SIMD && !isValidUtf8(inp, n);
  if (ASC_FEATURE_SIMD && n > 0 && sequenceStart(inp, 0, n) != n) gUnfit = true; // the last character cut off
}

/** The next quote that delimits a string (unescaped), or -1 at the end of the message. */
@inline export function nextQuote(): i32 {
  // (gQuotes read once: stage 2 reads a global it just wrote from memory, not a register.)
  let quotes = gQuotes;
  while (quotes == 0) {
    // (Plain blocks are looked for after an ASCII block with no quote: in structured text most
    // blocks hold one, and in CJK text none is plain.)
    if (ASC_FEATURE_SIMD && gQuoteless && gEscaped == 0) skipPlainBlocks();
    if (gNext >= gLen) return -1;
    indexBlock();
    quotes = gQuotes;
  }
  gQuotes = quotes & (quotes - 1);
  return gBase + <i32>ctz(quotes);
}

/** Takes the next `count` quotes, whose places the caller knows (they hold no backslash between them). */
export function takeQuotes(count: i32): void {
  for (let k = 0; k < count; k++) nextQuote();
}

/**
 * Whether a string whose opening quote nextQuote returned when `beforeAt` was
 * gBackslashesBefore, and whose closing quote it returned last, surely holds no backslash: none
 * in the blocks it spans (most messages hold none), without counting them. (The count before
 * the closing quote's block has grown by those of the blocks before it from the opening one's:
 * unchanged, they hold none.)
 */
@inline export function surelyNoBackslash(beforeAt: u32): bool {
  return gBackslashes == 0 && gBackslashesBefore == beforeAt;
}

/** gBackslashes, gBackslashesBefore at a string's opening quote: for backslashesBeforeIn. */
@inline export function backslashBits(): u64 {
  return gBackslashes;
}
@inline export function backslashCount(): u32 {
  return gBackslashesBefore;
}

/**
 * How many backslashes come before the quote at q, the one nextQuote returned last: a string
 * holds escapes when this grows from its opening quote to its closing one.
 */
@inline export function backslashesBefore(q: i32): u32 {
  return gBackslashesBefore + <u32>popcnt(gBackslashes & ((<u64>1 << <u64>(q - gBase)) - 1));
}

/**
 * backslashesBefore(q) for a quote of an earlier block, from what backslashBits and
 * backslashCount said there (blocks start at multiples of BLOCK).
 */
@inline export function backslashesBeforeIn(q: i32, bs: u64, before: u32): u32 {
  return before + <u32>popcnt(bs & ((<u64>1 << <u64>(q & (BLOCK - 1))) - 1));
}

/** Indexes the block at gNext. */
function indexBlock(): void {
  const j = gNext;
  let p = gInp + <usize>j;
  const n = min(BLOCK, gLen - j);
  if (n < BLOCK) {
    copyTail(p, n, ASC_FEATURE_SIMD && j >= 16);
    p = TAIL + 16;
  }
  let quotes: u64 = 0;
  let backslashes: u64 = 0;
  let controls: u64 = 0;
  let letters: u64 = 0; // (SIMD) bytes that may be a short escape's letter, where the block holds an escape
  let ascii = false;
  if (ASC_FEATURE_SIMD) {
    const prev = j >= 16 ? v128.load(p - 16) : i8x16.splat(0);
    const v0 = v128.load(p);
    const v1 = v128.load(p, 16);
    const v2 = v128.load(p, 32);
    const v3 = v128.load(p, 48);
    // Quotes are in most blocks of structured text; backslashes and control bytes in few: their
    // bitmasks are made only for a block that holds one (one test each for the four vectors).
    const q = i8x16.splat(<i8>QUOTE);
    quotes = bitmask64(i8x16.eq(v0, q), i8x16.eq(v1, q), i8x16.eq(v2, q), i8x16.eq(v3, q));
    const bs = i8x16.splat(<i8>BACKSLASH);
    const b0 = i8x16.eq(v0, bs);
    const b1 = i8x16.eq(v1, bs);
    const b2 = i8x16.eq(v2, bs);
    const b3 = i8x16.eq(v3, bs);
    if (v128.any_true(v128.or(v128.or(b0, b1), v128.or(b2, b3)))) backslashes = bitmask64(b0, b1, b2, b3);
    // (Here, while the vectors are at hand: kept past the UTF-8 check, they cost it registers.)
    if ((backslashes != 0 || gEscaped != 0) && !gOtherEscapes) letters = shortEscapeLetters(v0, v1, v2, v3);
    const c0 = lanesBelow(v0, FIRST_PRINTABLE);
    const c1 = lanesBelow(v1, FIRST_PRINTABLE);
    const c2 = lanesBelow(v2, FIRST_PRINTABLE);
    const c3 = lanesBelow(v3, FIRST_PRINTABLE);
    if (v128.any_true(v128.or(v128.or(c0, c1), v128.or(c2, c3)))) controls = bitmask64(c0, c1, c2, c3);
    // UTF-8, a block at a time: ASCII with nothing unfinished before it is one test; otherwise
    // the four vectors' errors are joined and tested once (CJK text has no ASCII block).
    // (In a partial block, the zeros after the message end a character cut off there: that
    // error is the message's own, found by indexStart.)
    ascii = i8x16.bitmask(v128.or(v128.or(v128.or(v0, v1), v128.or(v2, v3)), prev)) == 0;
    if (!gUnfit && !ascii) {
      // (each vector's high nibbles found once, for its own pairs and the next vector's)
      const hp = highNibbles(prev);
      const h0 = highNibbles(v0);
      const h1 = highNibbles(v1);
      const h2 = highNibbles(v2);
      const h3 = highNibbles(v3);
      const e = v128.or(
        v128.or(utf8ErrorsWith(prev, v0, hp, h0), utf8ErrorsWith(v0, v1, h0, h1)),
        v128.or(utf8ErrorsWith(v1, v2, h1, h2), utf8ErrorsWith(v2, v3, h2, h3)),
      );
      if (v128.any_true(e)) gUnfit = true;
    }
  } else {
    for (let k: i32 = 0; k < BLOCK; k += 8) {
      const x = load<u64>(p + <usize>k);
      quotes |= <u64>zeroBytes(x ^ 0x2222222222222222) << <u64>k;
      backslashes |= <u64>zeroBytes(x ^ 0x5c5c5c5c5c5c5c5c) << <u64>k;
      controls |= <u64>belowBytes(x) << <u64>k;
    }
  }
  if (n < BLOCK) {
    const valid = (<u64>1 << <u64>n) - 1;
    quotes &= valid;
    backslashes &= valid;
    controls &= valid;
  }
  if (backslashes != 0 || gEscaped != 0) {
    const escaped = escapedBytes(backslashes);
    quotes &= ~escaped;
    // (Once one is met, the message's strings with escapes are decoded: not asked again. A bit
    // past the message, a backslash that ends it, is not a letter: the zeros after it.)
    if (!gOtherEscapes && !(ASC_FEATURE_SIMD ? (escaped & ~letters) == 0 : shortEscapesAt(p, escaped))) gOtherEscapes = true;
  }
  // Inside a string: from an opening quote up to (not with) its closing one.
  let x = quotes;
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  const inString = x ^ gInString;
  gInString = 0 - (inString >> 63);
  if ((controls & inString) != 0) gUnfit = true;
  gBackslashesBefore += <u32>popcnt(gBackslashes);
  gBackslashes = backslashes;
  gBase = j;
  gQuotes = quotes;
  gQuoteless = quotes == 0 && ascii;
  gNext = j + BLOCK;
}

/**
 * The last block's n bytes at p (under BLOCK) copied to TAIL + 16 with zeros after them, and
 * `before`: the 16 bytes before p to TAIL, for the UTF-8 check across the boundary. In wide
 * stores, not memory.fill and memory.copy: every small message has such a block, and each bulk
 * operation is a call out of the module (about 5 ns each).
 */
@inline function copyTail(p: usize, n: i32, before: bool): void {
  if (ASC_FEATURE_SIMD) {
    const zero = i8x16.splat(0);
    v128.store(TAIL, before ? v128.load(p - 16) : zero);
    v128.store(TAIL, zero, 16);
    v128.store(TAIL, zero, 32);
    v128.store(TAIL, zero, 48);
    v128.store(TAIL, zero, 64);
  } else {
    for (let k: usize = 0; k < <usize>(BLOCK + 16); k += 8) store<u64>(TAIL + k, 0);
  }
  let k: usize = 0;
  const m = <usize>n;
  for (; k + 8 <= m; k += 8) store<u64>(TAIL + 16 + k, load<u64>(p + k));
  for (; k < m; k++) store<u8>(TAIL + 16 + k, load<u8>(p + k));
}

/**
 * Passes over whole blocks from gNext that are plain: ASCII with no quote, backslash or control
 * byte, and no character left unfinished before them. Such a block changes nothing but where
 * the next one starts (a long string's text: an image's base64, English prose), and costs one
 * compare per vector here against a dozen and the bitmasks in indexBlock.
 */
function skipPlainBlocks(): void {
  let j = gNext;
  if (j >= 4 && (load<u32>(gInp + <usize>(j - 4)) & 0x80808080) != 0) return; // (a character may end in the block)
  const q = i8x16.splat(<i8>QUOTE);
  const bs = i8x16.splat(<i8>BACKSLASH);
  const cs = i8x16.splat(<i8>FIRST_PRINTABLE);
  while (j + BLOCK <= gLen) {
    const p = gInp + <usize>j;
    const v0 = v128.load(p);
    const v1 = v128.load(p, 16);
    const v2 = v128.load(p, 32);
    const v3 = v128.load(p, 48);
    // (Signed, bytes from 0x80 up are below 0x20 too: one compare finds them and control bytes.)
    const s0 = v128.or(v128.or(i8x16.eq(v0, q), i8x16.eq(v0, bs)), i8x16.lt_s(v0, cs));
    const s1 = v128.or(v128.or(i8x16.eq(v1, q), i8x16.eq(v1, bs)), i8x16.lt_s(v1, cs));
    const s2 = v128.or(v128.or(i8x16.eq(v2, q), i8x16.eq(v2, bs)), i8x16.lt_s(v2, cs));
    const s3 = v128.or(v128.or(i8x16.eq(v3, q), i8x16.eq(v3, bs)), i8x16.lt_s(v3, cs));
    if (v128.any_true(v128.or(v128.or(s0, s1), v128.or(s2, s3)))) break;
    gBackslashesBefore += <u32>popcnt(gBackslashes);
    gBackslashes = 0;
    gQuotes = 0;
    gBase = j;
    j += BLOCK;
  }
  gNext = j;
}

/** The 64 lanes of four compare results (16 each, in order) as one bitmask. */
@inline function bitmask64(m0: v128, m1: v128, m2: v128, m3: v128): u64 {
  return <u64>i8x16.bitmask(m0) | (<u64>i8x16.bitmask(m1) << 16) | (<u64>i8x16.bitmask(m2) << 32) | (<u64>i8x16.bitmask(m3) << 48);
}

/**
 * Bytes escaped by a backslash, in the block (those that are backslashes themselves aside: only
 * quotes are asked about); sets the carry for the next. Without a loop per backslash (text
 * quoting JSON has one every 16 bytes), the way simdjson's escape scanner does it: a run of
 * backslashes that starts on an odd bit is told from one on an even bit by a subtraction.
 */
@inline function escapedBytes(backslashes: u64): u64 {
  const ODD: u64 = 0xaaaaaaaaaaaaaaaa;
  const first = gEscaped; // the first byte is escaped: if a backslash, it escapes nothing
  const escaping = backslashes & ~first;
  // Bits of backslashes that escape and of the bytes they escape: adding the run's start
  // (subtracting it from the odd bits) flips the run's parity where it starts on an odd bit.
  const codes = (((escaping << 1) | ODD) - escaping) ^ ODD;
  gEscaped = (codes & backslashes) >> 63;
  return codes ^ (backslashes | first);
}

/**
 * The bytes of four vectors that are `"` `\\` `b` `f` `n` `r` or `t`, the letters of the short
 * escapes other than `\/`, by nibble lookups as Teddy's: by a byte's low nibble, the high
 * nibbles (as bits) that make one of the seven with it (2: `"` `b` `r`; 4: `t`; 6: `f`; c: `\\`;
 * e: `n`).
 */
@inline function shortEscapeLetters(v0: v128, v1: v128, v2: v128, v3: v128): u64 {
  const LOW = i8x16(0, 0, <i8>0xc4, 0, <i8>0x80, 0, 0x40, 0, 0, 0, 0, 0, 0x20, 0, 0x40, 0);
  const HIGH = i8x16(1, 2, 4, 8, 16, 32, 64, <i8>0x80, 0, 0, 0, 0, 0, 0, 0, 0);
  const low = i8x16.splat(15);
  const zero = i8x16.splat(0);
  const s0 = i8x16.ne(v128.and(i8x16.swizzle(LOW, v128.and(v0, low)), i8x16.swizzle(HIGH, highNibbles(v0))), zero);
  const s1 = i8x16.ne(v128.and(i8x16.swizzle(LOW, v128.and(v1, low)), i8x16.swizzle(HIGH, highNibbles(v1))), zero);
  const s2 = i8x16.ne(v128.and(i8x16.swizzle(LOW, v128.and(v2, low)), i8x16.swizzle(HIGH, highNibbles(v2))), zero);
  const s3 = i8x16.ne(v128.and(i8x16.swizzle(LOW, v128.and(v3, low)), i8x16.swizzle(HIGH, highNibbles(v3))), zero);
  return bitmask64(s0, s1, s2, s3);
}

/** Without SIMD: whether every byte at p that `escaped` marks is one of shortEscapeLetters'. */
@inline function shortEscapesAt(p: usize, escaped: u64): bool {
  let m = escaped;
  while (m != 0) {
    const x = <u32>load<u8>(p + <usize>ctz(m));
    if (x == SLASH || shortEscape(x) < 0) return false;
    m &= m - 1;
  }
  return true;
}

/** A bit per byte of x (8 bytes, little-endian) that is zero. */
@inline function zeroBytes(x: u64): u32 {
  // Exact: (x & 0x7f..) + 0x7f.. sets each byte's top bit unless it is 0 (no carries between bytes).
  const y = ~(((x & 0x7f7f7f7f7f7f7f7f) + 0x7f7f7f7f7f7f7f7f) | x) & 0x8080808080808080;
  return movemask(y);
}

/** A bit per byte of x below FIRST_PRINTABLE (0x20). */
@inline function belowBytes(x: u64): u32 {
  // A byte is below 0x20 when its top three bits are zero.
  return zeroBytes(x & 0xe0e0e0e0e0e0e0e0);
}

/** The top bit of each of 8 bytes, gathered into 8 bits. */
@inline function movemask(y: u64): u32 {
  return <u32>(((y >> 7) * 0x0102040810204080) >> 56);
}
