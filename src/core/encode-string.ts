// Encodes a long JS string through the WASM core. The string is encoded to UTF-8 into a
// bounded work region; the core reports where terms are, in UTF-16 units, and the result is
// built from slices of the original string plus tokens, or, where matches are dense and the
// host has Node's Buffer, written by the core as UTF-16 (utf16-result.ts): no UTF-8 decoding
// of the output either way, and the input itself is returned when nothing changed.
// Well-formed strings only (see ../well-formed.ts). Large strings stream through the region;
// the core says how many bytes are final and the rest is carried over, so terms that straddle
// a boundary are found as usual.
// (Restoring tokens needs no UTF-8 at all: token-decode.ts does it on the string itself.)
import { FFFD_COUNT, MATCH_RECORD_SIZE, MODE_RECORDS } from './abi.js';
import type { Descriptor } from './descriptor.js';
import { core, coreVariant } from './instance.js';
import { heap, heap32, inputView, workspace } from './memory.js';
import { copyUtf16, utf16Result, utf16ResultOf, utf16Results } from './utf16-result.js';

/** Input bytes handed to the core per call by default. */
export const DEFAULT_CHUNK_BYTES = 256 * 1024;

const encoder = new TextEncoder();

export interface StringJob {
  readonly desc: Descriptor;
  /** Record bytes the core may write per input byte. */
  readonly recordBytesPerInputByte: number;
  /** The token for a matched text. */
  replace(text: string): string;
}

export function encodeJob(desc: Descriptor, replace: (text: string) => string, minPatternBytes: number): StringJob {
  return { desc, recordBytesPerInputByte: MATCH_RECORD_SIZE / minPatternBytes, replace };
}

/** Strings up to this length are written to WASM memory by a JS loop, not encodeInto. */
export const SHORT_STRING = 64;

/**
 * Writes a short string as UTF-8 at `ptr`; returns the byte count, or -1 if it holds a lone
 * surrogate. For short strings this beats the native call into TextEncoder.encodeInto.
 */
function writeShort(s: string, u8: Uint8Array, ptr: number): number {
  // (called only for strings of at most SHORT_STRING code units: the region always has room)
  let p = ptr;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      u8[p++] = c;
    } else if (c < 0x800) {
      u8[p++] = 0xc0 | (c >> 6);
      u8[p++] = 0x80 | (c & 63);
    } else if (c < 0xd800 || c > 0xdfff) {
      u8[p++] = 0xe0 | (c >> 12);
      u8[p++] = 0x80 | ((c >> 6) & 63);
      u8[p++] = 0x80 | (c & 63);
    } else {
      const d = s.charCodeAt(i + 1);
      if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) return -1;
      c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      i++;
      u8[p++] = 0xf0 | (c >> 18);
      u8[p++] = 0x80 | ((c >> 12) & 63);
      u8[p++] = 0x80 | ((c >> 6) & 63);
      u8[p++] = 0x80 | (c & 63);
    }
  }
  return p - ptr;
}

/** UTF-16 length of UTF-8 bytes (a carry: a few bytes of a possible term, or ASCII token text). */
function utf16Length(u8: Uint8Array, ptr: number, n: number): number {
  let units = 0;
  for (let i = ptr; i < ptr + n; i++) {
    const b = u8[i]!;
    if ((b & 0xc0) !== 0x80) units++;
    if (b >= 0xf0) units++;
  }
  return units;
}

const workspaceFor = (job: StringJob, capacity: number) => workspace(capacity, Math.ceil(capacity * job.recordBytesPerInputByte) + 16);

/** Appends the records of the last core call to `found`; `base` places them in the string. */
function addRecords(job: StringJob, base: number, output: number, found: number[]): void {
  const count = job.desc.matchCount();
  const words = heap32();
  for (let k = 0, r = output >>> 2; k < count; k++, r += 2) found.push(base + words[r]!, base + words[r + 1]!);
}

/**
 * encodeInto writes a lone surrogate as U+FFFD. So bytes without EF BF BD (counted by SIMD,
 * far cheaper than String#isWellFormed here) prove the string well-formed; bytes with it
 * leave the verdict to isWellFormed.
 */
function hasReplacement(ptr: number, len: number, result: number): boolean {
  core.countReplacement(ptr, len, result);
  return heap32()[(result + FFFD_COUNT) >>> 2] !== 0;
}

/**
 * Where the input is copied in as UTF-16: where the result can be read back that way, and the
 * core has SIMD (the scalar build transcodes correctly, a unit or four at a time: Latin-1 4 KiB
 * 3.3 µs against encodeInto's 2.8).
 */
const copiesIn = utf16Results && coreVariant === 'simd';

/**
 * Whether `s` has a unit past ASCII among one in 128 of its units (at most 32, spread over it).
 * Such a string is read in as UTF-16 and transcoded by the core (scanCopy), faster than
 * encodeInto, which goes a unit at a time through it (2.2-2.6 µs for 4 KiB of mixed or Latin-1
 * text, against 0.8-1.2 for the copy and the core). For ASCII encodeInto is a copy, and the copy
 * and the core would cost more (0.4 µs against 0.26 at 4 KiB). The samples cost 1.5-2.5 ns each
 * here: 64 of them made an ASCII 4 KiB call 5-10% slower, 32 about 3%. A string whose few
 * non-ASCII units they miss keeps encodeInto: of 200 English 4 KiB strings with a CJK word in
 * every seventh, 46 (at 64 samples 14); of 200 of the benchmark's mixed texts, 5 (at 64, none).
 * A sampled surrogate keeps encodeInto too: the core takes a block with one a unit at a time,
 * slower than encodeInto where they are dense (4 KiB of chat text with emoji, 1.2-1.65x).
 */
function sampledPastAscii(s: string): boolean {
  const step = Math.max(128, Math.ceil(s.length / 32));
  let past = false;
  for (let i = step >> 1; i < s.length; i += step) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return false;
    past ||= c > 0x7f;
  }
  return past;
}

/**
 * scanString for a string copied into WASM memory as UTF-16 at `src`: the core transcodes each
 * piece to UTF-8 (lone surrogates as U+FFFD, counted, so no U+FFFD search) into the region.
 * Returns -1 for a lone surrogate; where a string takes one round (most), where its records
 * are (the work region's output, job.desc.matchCount() of them: no array to fill); else 0,
 * its matches appended to `found`.
 */
function scanCopy(job: StringJob, s: string, src: number, found: number[], chunkBytes: number): number {
  let capacity = Math.max(chunkBytes, 8);
  let ws = workspaceFor(job, capacity + 16); // (the core may write 16 bytes past its output)
  let pos = 0; // next UTF-16 index to transcode into the region
  let base = 0; // UTF-16 index of the region's first byte
  let carry = 0; // undecided bytes at the start of the region, at most a quarter of it
  for (;;) {
    // At most 3 bytes a unit: carry + 3 * units stays within the capacity.
    let end = Math.min(s.length, pos + Math.max(2, Math.floor((capacity - carry) / 3)));
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--; // keep pairs whole
    const written = core.utf16ToUtf8(src + pos * 2, end - pos, ws.input + carry, ws.output);
    if (heap32()[ws.output >>> 2] !== 0) return -1; // a lone surrogate
    const len = carry + written;
    const final = end >= s.length ? 1 : 0;
    const consumed = core.scan(job.desc.ptr, ws.input, len, ws.output, final, MODE_RECORDS);
    if (final && pos === 0) return ws.output;
    pos = end;
    addRecords(job, base, ws.output, found);
    if (final) return 0;
    carry = len - consumed;
    const old = ws.input + consumed;
    base = pos - utf16Length(heap(), old, carry);
    if (carry > capacity / 4) {
      // As in scanString: a long undecided candidate; each round brings in at least a quarter
      // of the region's bytes.
      while (carry > capacity / 4) capacity *= 2;
      ws = workspaceFor(job, capacity + 16);
    }
    heap().copyWithin(ws.input, old, old + carry);
  }
}

/**
 * Runs the core over a string and appends every match to `found` ([start, end) pairs in UTF-16
 * units, in order); returns false for a string with a lone surrogate (what was appended is
 * void). Large strings stream through the work region with carried-over bytes.
 */
function scanString(job: StringJob, s: string, found: number[], chunkBytes = DEFAULT_CHUNK_BYTES): boolean {
  if (s.length <= SHORT_STRING) {
    const ws = workspaceFor(job, DEFAULT_CHUNK_BYTES);
    const len = writeShort(s, heap(), ws.input);
    if (len < 0) return false;
    core.scan(job.desc.ptr, ws.input, len, ws.output, 1, MODE_RECORDS);
    addRecords(job, 0, ws.output, found);
    return true;
  }
  let capacity = chunkBytes;
  let ws = workspaceFor(job, capacity);
  let pos = 0; // next UTF-16 index to encode into the region
  let base = 0; // UTF-16 index of the region's first byte
  let carry = 0; // undecided bytes at the start of the region
  let replacement = false;
  for (;;) {
    // encodeInto stops where the region is full (never inside a character) and says so.
    let end = Math.min(s.length, pos + capacity - carry);
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--; // keep pairs whole
    const piece = pos === 0 && end === s.length ? s : s.substring(pos, end);
    const into = carry === 0 ? inputView(ws, capacity) : heap().subarray(ws.input + carry, ws.input + capacity);
    const { read, written } = encoder.encodeInto(piece, into);
    pos += read;
    // As many bytes as code units: all ASCII, so no lone surrogate (it writes 3 bytes for 1).
    if (!replacement && written !== read && hasReplacement(ws.input + carry, written, ws.output)) {
      replacement = true;
      if (!s.isWellFormed()) return false;
    }
    const len = carry + written;
    const final = pos >= s.length ? 1 : 0;
    const consumed = core.scan(job.desc.ptr, ws.input, len, ws.output, final, MODE_RECORDS);
    addRecords(job, base, ws.output, found);
    if (final) return true;
    carry = len - consumed;
    const old = ws.input + consumed;
    base = pos - utf16Length(heap(), old, carry); // the carried bytes come back next round
    if (carry > capacity / 2) {
      // One undecided candidate fills half the region (a very long token): give it more room,
      // so each round still brings in at least half a region of new bytes.
      capacity *= 2;
      ws = workspaceFor(job, capacity);
    }
    heap().copyWithin(ws.input, old, old + carry);
  }
}

/**
 * The UTF-16 result (utf16-result.ts) pays where matches are dense: it copies the whole string
 * in and out, where slices cost per match. Measured on strings of 100-3,200 units: 1.1-1.6x
 * the slices' time with one match, 0.87-0.92x with one per 80-110 units (the benchmark's mixed
 * text has one per 86).
 */
const UNITS_PER_MATCH = 128;
/**
 * The same where the string was copied in already (scanCopy): the copy is not paid again. On
 * strings of 200-12,000 units with non-ASCII text: 0.93-1.16x the slices' time with one match,
 * 0.76-0.96x with one per 200-800 units.
 */
const UNITS_PER_MATCH_COPIED = 512;

/**
 * The transformed string; `s` itself when the core found nothing to change; undefined for a
 * string with a lone surrogate (see scanString). The result is made by the core as UTF-16
 * where the host can read that back and matches are dense (utf16-result.ts), else from slices
 * and tokens in JS; `path` asks for one (tests compare them).
 */
export function encodeString(
  job: StringJob,
  s: string,
  chunkBytes = DEFAULT_CHUNK_BYTES,
  path?: 'slices' | 'utf16',
  input?: 'encodeInto' | 'utf16',
): string | undefined {
  const found: number[] = [];
  const copy = s.length > SHORT_STRING && (input ? input === 'utf16' : copiesIn && sampledPastAscii(s)) ? copyUtf16(s) : undefined;
  if (copy !== undefined) {
    const records = scanCopy(job, s, copy, found, chunkBytes);
    if (records < 0) return undefined;
    if (records > 0) {
      // One round: its records read in place.
      const count = job.desc.matchCount();
      if (count === 0) return s;
      if (path !== 'slices' && (path === 'utf16' || count * UNITS_PER_MATCH_COPIED >= s.length)) {
        const out = utf16ResultOf(job.desc, s, records, count);
        if (out !== undefined) return out;
      }
      addRecords(job, 0, records, found);
      return sliced(job, s, found);
    }
  } else if (!scanString(job, s, found, chunkBytes)) return undefined;
  if (found.length === 0) return s;
  const utf16 = path
    ? path === 'utf16'
    : utf16Results && (found.length >> 1) * (copy === undefined ? UNITS_PER_MATCH : UNITS_PER_MATCH_COPIED) >= s.length;
  return (utf16 ? utf16Result(job.desc, s, found, copy !== undefined) : undefined) ?? sliced(job, s, found);
}

/**
 * `s` with the matches `found` ([start, end) pairs in UTF-16 units, in order) replaced, from
 * slices and tokens: for long strings without the UTF-16 result, and for short ones matched in
 * JS (compiled.ts).
 */
export function sliced(job: StringJob, s: string, found: readonly number[]): string {
  let out = '';
  let from = 0; // s[0, from) is in `out`
  for (let k = 0; k < found.length; k += 2) {
    out += s.slice(from, found[k]) + job.replace(s.slice(found[k], found[k + 1]));
    from = found[k + 1]!;
  }
  return out + s.slice(from);
}
