// encodeText's result made by the core as UTF-16 and read back as one flat string (Node's
// Buffer: `ucs2Write` copies the string in, `ucs2Slice` makes the result, each one native
// call). Built in JS from slices and tokens, the result is a rope that the first read flattens,
// and every match's text is a new string to hash for its token: at 4 KiB of mixed text, about
// a third of the call. Elsewhere (no Buffer) the caller builds it from slices.

import { NodeBuffer } from '../util/node-buffer.js';
import { D_PREFIX_LEN, D_SUFFIX_LEN } from './abi.js';
import type { Descriptor } from './descriptor.js';
import { core } from './instance.js';
import { heap, heap32, resultRegion } from './memory.js';

interface Utf16Buffer extends Uint8Array {
  ucs2Write(s: string, offset: number, length: number): number;
  ucs2Slice(start: number, end: number): string;
}

/**
 * Whether this host can read a UTF-16 result back in native calls: Node's Buffer, or Bun's.
 * Not Deno's (a JS polyfill: `ucs2Write` of 4 KiB took 199 µs there, against Node's 0.9 and
 * Bun's 0.15), where this path took 1.36-1.55x the slices' time on 4 KiB of mixed text; not
 * workerd's (a global Buffer at current compatibility dates, not at 2024-06-01, whose `ucs2Write` reads its
 * length argument differently and whose speed is not measured here).
 */
export const utf16Results =
  typeof NodeBuffer?.prototype.ucs2Slice === 'function' &&
  typeof NodeBuffer.prototype.ucs2Write === 'function' &&
  !('Deno' in globalThis) &&
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent !== 'Cloudflare-Workers';

/**
 * The most WASM memory a result is built in (its input copy, records and output): about a
 * 300,000-unit string. Longer ones take the slices path, so that the region (kept, as memory
 * cannot shrink) stays bounded whatever the string.
 */
export const RESULT16_MAX_BYTES = 2 << 20;

let view: Utf16Buffer | undefined;
let viewOf: Uint8Array | undefined; // (the heap view it was made for: cheaper to compare than .buffer)
/** Where copyUtf16 last put a string (the result region's start), until the region moves. */
let copiedAt = -1;

/** A Buffer over WASM memory, made again when memory grew. */
function memoryBuffer(): Utf16Buffer {
  const bytes = heap();
  if (viewOf !== bytes) {
    view = NodeBuffer!.from(bytes.buffer as ArrayBuffer) as Utf16Buffer;
    viewOf = bytes;
  }
  return view!;
}

/**
 * Copies `s` into WASM memory as UTF-16 (at the start of the result region, where utf16Result
 * finds it); returns where, or undefined when it takes more than RESULT16_MAX_BYTES. Only where
 * utf16Results.
 */
export function copyUtf16(s: string): number | undefined {
  const size = ((s.length * 2 + 15) & ~15) + 16; // (the core reads up to 16 bytes past)
  if (size > RESULT16_MAX_BYTES) return undefined;
  const src = resultRegion(size);
  memoryBuffer().ucs2Write(s, src, s.length * 2); // (the length given: workerd's Buffer took its default from the offset 0)
  copiedAt = src;
  return src;
}

/**
 * `s` (well-formed) with the matches `found` ([start, end) pairs in UTF-16 units, in order)
 * replaced by their tokens, as the descriptor's format writes them; undefined when that needs
 * more than RESULT16_MAX_BYTES. `copied`: copyUtf16(s) was the last copy made (it is made again
 * only if the region had to grow). Only where utf16Results.
 */
export function utf16Result(desc: Descriptor, s: string, found: readonly number[], copied = false): string | undefined {
  let matched = 0;
  for (let k = 0; k < found.length; k += 2) matched += found[k + 1]! - found[k]!;
  return build(desc, s, found.length >> 1, matched, copied, found);
}

/**
 * utf16Result for `count` match records (u32 start, u32 end) at `records` in WASM memory, outside
 * the result region, of the string copyUtf16 copied last: the scan's own output, read in place.
 */
export function utf16ResultOf(desc: Descriptor, s: string, records: number, count: number): string | undefined {
  const words = heap32();
  let matched = 0;
  for (let r = records >>> 2, end = r + count * 2; r < end; r += 2) matched += words[r + 1]! - words[r]!;
  return build(desc, s, count, matched, true, records);
}

/** The result of `count` matches of `matched` units in all, from `found` or the records at an address. */
function build(
  desc: Descriptor,
  s: string,
  count: number,
  matched: number,
  copied: boolean,
  found: readonly number[] | number,
): string | undefined {
  const ptr = desc.ptr;
  // A token: prefix, suffix, two hex digits per UTF-8 byte (at most 3 per unit).
  const w = heap32();
  const tokenUnits = w[(ptr + D_PREFIX_LEN) >>> 2]! + w[(ptr + D_SUFFIX_LEN) >>> 2]!;
  const srcBytes = (s.length * 2 + 15) & ~15;
  const recordBytes = typeof found === 'number' ? 0 : count * 8;
  const outUnits = s.length + count * tokenUnits + 5 * matched;
  const size = srcBytes + recordBytes + outUnits * 2 + 16; // (result16 may write 16 bytes past)
  if (size > RESULT16_MAX_BYTES) return undefined;
  const src = resultRegion(size);
  const buf = memoryBuffer(); // (after resultRegion, which may grow memory)
  if (!copied || src !== copiedAt) buf.ucs2Write(s, src, s.length * 2); // (the length given: see copyUtf16)
  copiedAt = -1; // (the region is about to hold this result)
  let records = src + srcBytes;
  if (typeof found === 'number') records = found;
  else {
    const words = heap32();
    for (let k = 0, r = records >>> 2; k < found.length; k++) words[r + k] = found[k]!;
  }
  const out = src + srcBytes + recordBytes;
  const units = core.result16(ptr, src, s.length, records, count, out);
  return buf.ucs2Slice(out, out + units * 2);
}
