// Content-Length and SSE bodies through the core's batch entry (`jsonMessages`): many whole
// bodies a framing found in a chunk, copied once and transformed in one call, each exactly as
// the per-message way would, up to the first that must go that way.
import { F_LENGTH, F_MESSAGE, F_OFFSET, F_OUT_END, FRAME_SIZE, J_OUT_LEN } from '../core/abi.js';
import { core } from '../core/instance.js';
import { heap, heap32 } from '../core/memory.js';
import { FRAMED } from './core-regions.js';
import type { TransducerBlock } from './transducer-block.js';

/**
 * The output of a `framed` call: the taken bodies' output back to back (a view into WASM memory,
 * valid for the call: copy it first), and where body k's ends in it (`ends[k]`, k < taken; it
 * starts where body k - 1's ends, or at 0).
 */
export type FramedSink = (output: Uint8Array, ends: readonly number[], taken: number) => void;

export class FramedBodies {
  /** Messages (not bodies of only whitespace) among the bodies the last call took. */
  messages = 0;
  /** Where each taken body's output ends, read from the frame table. */
  private readonly ends: number[] = [];

  constructor(private readonly block: TransducerBlock) {}

  /**
   * Transforms `count` whole message bodies found in `chunk` (no message in progress): `bodies`
   * holds each body's start and length in `chunk`, all inside [from, to), which is at most
   * FRAMED bytes (copied once); count is at most FRAMES. Gives the output of those taken to
   * `sink` (called once, also when none was taken) and returns how many: all, or those before
   * the first that must go the per-message way (any error, a deferral, a changed key). Sets
   * `messages`.
   */
  take(chunk: Uint8Array, from: number, to: number, bodies: ArrayLike<number>, count: number, sink: FramedSink): number {
    const b = this.block;
    const held = b.work !== null; // (none: no message is in progress)
    const work = b.use(); // (may grow the memory: before any view)
    const region = work.framed;
    const table = region + FRAMED;
    heap().set(chunk.subarray(from, to), region);
    const w = heap32();
    for (let k = 0, f = table >>> 2; k < count; k++, f += FRAME_SIZE >>> 2) {
      w[f + (F_OFFSET >>> 2)] = bodies[2 * k]! - from;
      w[f + (F_LENGTH >>> 2)] = bodies[2 * k + 1]!;
    }
    const taken = core.jsonMessages(work.state, region, table, count, work.out);
    let messages = 0;
    const { ends } = this;
    for (let k = 0, f = table >>> 2; k < taken; k++, f += FRAME_SIZE >>> 2) {
      messages += w[f + (F_MESSAGE >>> 2)]!;
      ends[k] = w[f + (F_OUT_END >>> 2)]!;
    }
    this.messages = messages;
    // (Read before the block goes back: the next call of any stream may take it.)
    const output = heap().subarray(work.out, work.out + w[(work.state + J_OUT_LEN) >>> 2]!);
    if (!held) b.idle();
    sink(output, ends, taken);
    return taken;
  }
}
