// Moves a JS string through a WASM core function: UTF-16 in, UTF-8 through the core, UTF-16
// out. Well-formed strings only (see wellFormed.ts). Large strings stream through bounded
// work regions; the core reports how many bytes are final and the rest is carried over, so
// matches and tokens that straddle a region boundary are handled like any other.
import type { Descriptor } from './descriptor.js';
import { core } from './instance.js';
import { heap, workspace } from './memory.js';

export type CoreFunction = (desc: number, inp: number, len: number, out: number, final: number) => number;

export const coreEncode: CoreFunction = core.encode;
export const coreDecode: CoreFunction = core.decode;

/** Input bytes handed to the core per call by default. */
export const DEFAULT_CHUNK_BYTES = 256 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // keep a leading U+FEFF

export interface TranscodeJob {
  readonly fn: CoreFunction;
  readonly desc: Descriptor;
  /** Upper bound of output bytes per input byte. */
  readonly expansion: number;
}

/** Returns `s` itself when the core changed nothing. */
export function transcode(job: TranscodeJob, s: string, chunkBytes = DEFAULT_CHUNK_BYTES): string {
  const { fn, desc, expansion } = job;
  let ws = workspace(chunkBytes, Math.ceil(chunkBytes * expansion));
  if (s.length * 3 <= chunkBytes) {
    const { written } = encoder.encodeInto(s, heap().subarray(ws.input, ws.input + chunkBytes));
    fn(desc.ptr, ws.input, written, ws.output, 1);
    if (desc.matchCount() === 0) return s;
    return decoder.decode(heap().subarray(ws.output, ws.output + desc.outputLength()));
  }
  const pieces: string[] = [];
  let changed = false;
  let pos = 0; // next UTF-16 index to encode
  let carry = 0; // undecided bytes at the start of the input region
  let capacity = chunkBytes;
  for (;;) {
    let end = Math.min(s.length, pos + capacity - carry);
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--; // keep pairs whole
    const { read, written } = encoder.encodeInto(s.substring(pos, end), heap().subarray(ws.input + carry, ws.input + capacity));
    pos += read;
    const len = carry + written;
    const final = pos >= s.length ? 1 : 0;
    const consumed = fn(desc.ptr, ws.input, len, ws.output, final);
    if (desc.matchCount() > 0) changed = true;
    pieces.push(decoder.decode(heap().subarray(ws.output, ws.output + desc.outputLength())));
    if (final) return changed ? pieces.join('') : s;
    carry = len - consumed;
    if (carry > capacity / 2) {
      // One undecided candidate fills half the region (a very long token): give it more room,
      // so each round still brings in at least half a region of new bytes.
      const old = ws.input + consumed;
      capacity *= 2;
      ws = workspace(capacity, Math.ceil(capacity * expansion));
      heap().copyWithin(ws.input, old, old + carry);
    } else {
      heap().copyWithin(ws.input, ws.input + consumed, ws.input + len);
    }
  }
}
