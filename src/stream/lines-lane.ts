// The NDJSON lane: between messages, the whole lines of a chunk that need nothing of the host go
// through the core's batch entry (`jsonLines`), as many per call as the lines region holds; a
// line longer than the region goes to the large path on its own. The first line the core
// refuses, and a line cut by the chunk's end, go the per-message way (transducer.ts).
import { J_LINES_MESSAGES, J_LINES_STOP, J_OUT_LEN, LINES_REFUSED } from '../core/abi.js';
import { core } from '../core/instance.js';
import { heap, heap32 } from '../core/memory.js';
import { LARGE_LINE, LINES } from './core-regions.js';
import { byteFinder } from './find-byte.js';
import type { LargeMessage } from './large-message.js';
import type { TransducerBlock, Work } from './transducer-block.js';

const NEWLINE = new Uint8Array([0x0a]);

export class LinesLane {
  /** Messages (not blank lines) among the lines the last `take` took. */
  taken = 0;
  /** The last `take` stopped at a line it refused (not at the end of the whole lines). */
  refused = false;
  // Which bytes of which chunk it copied into the lines region of the block it last used (valid
  // while that block's `linesOwner` is this): a line it refuses goes the per-message way (the
  // input region), then `take` goes on from the next line without copying the rest again.
  private work: Work | null = null;
  private chunk: Uint8Array | null = null;
  private from = 0;
  private length = 0;

  constructor(
    private readonly block: TransducerBlock,
    private readonly large: LargeMessage,
  ) {}

  /**
   * Transforms the whole lines of `chunk` from `from` (a line start, no message in progress)
   * that need nothing of the host, in as few core calls as the lines region allows, giving their
   * output (each line with its '\n') to `emit`. Returns where it stopped: at the first line that
   * must go the per-message way (refused: any error, counted bytes over `maxBytes`, a deferral,
   * a changed key), one not whole in the chunk, or one the large path may not take (LARGE_LINE
   * or longer). `firstEnd` is where the first line ends (its '\n'): a first line too long for
   * the region costs no copy into it. Sets `taken` and `refused`.
   */
  take(chunk: Uint8Array, from: number, firstEnd: number, maxBytes: number, emit: (bytes: Uint8Array) => void): number {
    let at = from;
    let taken = 0;
    this.taken = 0;
    this.refused = false;
    let lineEnd = firstEnd; // where the line at `at` ends, when it is known to be long (else -1)
    const b = this.block;
    const held = b.work !== null; // (none: no message is in progress)
    const work = b.use();
    for (;;) {
      if (lineEnd - at >= LINES) {
        // Too long for the region: taken on its own, when it is not too long for that too.
        if (!this.large.takes(lineEnd - at)) break;
        const counted = lineEnd - at - (chunk[lineEnd - 1] === 0x0d ? 1 : 0);
        const took =
          counted <= maxBytes &&
          this.large.take(chunk, at, lineEnd - at, (output) => {
            emit(output);
            emit(NEWLINE);
          });
        if (!took) {
          this.refused = true;
          break;
        }
        taken++;
        at = lineEnd + 1;
        lineEnd = -1;
        if (at === chunk.length) break;
        continue;
      }
      if (this.chunk !== chunk || this.work !== work || work.linesOwner !== this || at < this.from || at >= this.from + this.length) {
        const n = Math.min(LINES, chunk.length - at);
        if (n <= 0) break;
        heap().set(chunk.subarray(at, at + n), work.lines);
        work.linesOwner = this;
        this.work = work;
        this.chunk = chunk;
        this.from = at;
        this.length = n;
      }
      const skip = at - this.from;
      const { state, out } = work;
      at += core.jsonLines(state, work.lines + skip, this.length - skip, out, maxBytes);
      const w = heap32();
      const len = w[(state + J_OUT_LEN) >>> 2]!;
      taken += w[(state + J_LINES_MESSAGES) >>> 2]!;
      const refused = w[(state + J_LINES_STOP) >>> 2] === LINES_REFUSED;
      if (len > 0) emit(heap().subarray(out, out + len));
      if (refused) {
        this.refused = true;
        break;
      }
      // No whole line left in the region: the next one is cut by the chunk's end, or longer than
      // the region (taken on its own, above), or starts in the region and ends after it.
      const end = this.from + this.length;
      if (end === chunk.length) break;
      if (at === this.from) {
        lineEnd = byteFinder(chunk.subarray(end, Math.min(chunk.length, at + LARGE_LINE)))(0x0a, 0);
        if (lineEnd < 0) break; // cut by the chunk's end, or too long
        lineEnd += end;
      }
      this.chunk = null;
    }
    if (!held) b.idle();
    this.taken = taken;
    return at;
  }

  /** The chunk `take` last read may be changed by its owner once the push returns: its copy is stale. */
  forget(): void {
    this.chunk = null;
    this.work = null;
  }
}
