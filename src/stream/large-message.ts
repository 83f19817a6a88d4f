// One whole message longer than the batch regions (16 KiB up to LARGE_LINE: an NDJSON line, a
// Content-Length body, an SSE event's data) through the indexed path alone, in one core call
// (`jsonLarge`), in input, output and string regions made for it and given back after it; the
// state's own are swapped out for the call (no message is in progress: they hold nothing).
import { ESCAPE_ENTRY_SIZE, J_AUX, J_DEC, J_DEC_CAP, J_REC } from '../core/abi.js';
import { core } from '../core/instance.js';
import { free, heap, heap32 } from '../core/memory.js';
import { LARGE_LINE } from './core-regions.js';
import { carve, type TransducerBlock } from './transducer-block.js';
import { allocateBlock } from './work-pool.js';

/**
 * The most WASM memory a large message's regions may take (sized for the most output it could
 * have; WASM memory never shrinks): under a codec that expands more (a 1-byte term and a long
 * prefix) its longer messages go the per-message way, which needs a slice's worth. (The default
 * codec's regions for a LARGE_LINE message: about 4 MiB; with a 1-byte term, 6.5 MiB.)
 */
const LARGE_BLOCK = 16 * 1024 * 1024;

export class LargeMessage {
  constructor(private readonly block: TransducerBlock) {}

  /** Whether `take` may take a message of n bytes: shorter than LARGE_LINE, its regions within LARGE_BLOCK. */
  takes(n: number): boolean {
    return n < LARGE_LINE && this.regions(n).size <= LARGE_BLOCK;
  }

  /** A large message's regions for its n bytes: input, string regions, output, escape map. */
  private regions(n: number): { size: number; at: number[]; window: number; mapEntries: number } {
    const window = n + 16; // (a string's decoded text may take all of it; a copy runs 16 bytes past)
    const mapEntries = n >> 3; // (a string with more escapes is written searching for them)
    const b = this.block;
    return { ...carve([n, ...b.stringRegions(window), b.outputFor(n), mapEntries * ESCAPE_ENTRY_SIZE]), window, mapEntries };
  }

  /**
   * Transforms chunk[from, from + n), one whole message, giving its output to `write` (a view
   * into WASM memory, valid for the call). Returns false, with nothing written, when the message
   * must go the per-message way.
   */
  take(chunk: Uint8Array, from: number, n: number, write: (output: Uint8Array) => void): boolean {
    const { size, at, window, mapEntries } = this.regions(n);
    const block = allocateBlock(size);
    const b = this.block;
    const held = b.work !== null; // (within the NDJSON lane's call: its block)
    const state = b.use().state; // (both may grow the memory: before any view)
    const [input, dec, rec, aux, out, map] = at.map((a) => block + a) as [number, number, number, number, number, number];
    const fields = [J_DEC, J_DEC_CAP, J_REC, J_AUX].map((f) => (state + f) >>> 2);
    const w = heap32();
    const kept = fields.map((f) => w[f]!);
    const lent = [dec, window, rec, aux];
    for (let k = 0; k < fields.length; k++) w[fields[k]!] = lent[k]!;
    let written = -1;
    try {
      heap().set(chunk.subarray(from, from + n), input);
      written = core.jsonLarge(state, input, n, out, map, mapEntries);
    } finally {
      for (let k = 0; k < fields.length; k++) w[fields[k]!] = kept[k]!; // (the core never grows the memory: w is current)
      if (!held) b.idle();
    }
    try {
      if (written >= 0) write(heap().subarray(out, out + written));
    } finally {
      free(block, size);
    }
    return written >= 0;
  }
}
