// The host side of the WASM JSON transducer (assembly/json/), the per-message way: a message's
// bytes fed in bounded slices as they arrive, the string windows grown when one string needs
// it, and error codes turned into errors that name the place, never the content. The batch
// entries, for whole messages between messages, are lines-lane.ts (NDJSON lines),
// framed-bodies.ts (Content-Length and SSE bodies) and large-message.ts (one long message); all
// four share the transducer's block (transducer-block.ts) and give their output the same way:
// pushed to a sink the caller passes, as views into WASM memory valid for the call.
import {
  E_NEED_MEMORY,
  EV_SIZE,
  J_DEPTH,
  J_ERROR,
  J_EV_COUNT,
  J_EVENTS,
  J_OUT_LEN,
  J_PHASE,
  P_DONE,
  P_SCALAR,
  P_VALUE,
} from '../core/abi.js';
import { core } from '../core/instance.js';
import { heap, heap32 } from '../core/memory.js';
import { coreError } from './core-errors.js';
import { SLICE } from './core-regions.js';
import { type RootPayload, TransducerBlock, type TransducerJob } from './transducer-block.js';

export type { TransducerJob } from './transducer-block.js';

/** u32 words per event: [kind, a, b]. */
const EVENT_WORDS = EV_SIZE / 4;
/** Shared by every transducer until its first events (even an empty typed array costs a stream about 0.2 µs to make). */
const NO_EVENTS = new Uint32Array(0);

/**
 * Output of one core call: its bytes, a view into WASM memory that is valid only until the sink
 * returns and before it runs anything that may grow the memory (copy what you keep first), and
 * `count` events ([kind, a, b]...), copied into an array the transducer reuses for its next
 * call.
 */
export type StepSink = (output: Uint8Array, events: Uint32Array, count: number) => void;

export class Transducer {
  /** Its working memory, which the batch entries of the same stream share. */
  readonly block: TransducerBlock;
  /** The events of the last call, copied out (a nested transducer may grow WASM memory). */
  private events = NO_EVENTS; // (made at the first events: a stream may carry none)

  constructor(job: TransducerJob, rootPayload: RootPayload = false) {
    this.block = new TransducerBlock(job, rootPayload);
  }

  /** Starts a message read the per-message way: its block is held until `finish` (or `idle`). */
  begin(): void {
    core.jsonReset(this.block.use().state);
  }

  /** Feeds bytes; `messageNumber` and `offset` (bytes of this message before them) name errors. */
  write(bytes: Uint8Array, sink: StepSink, messageNumber: number, offset: number): void {
    const block = this.block;
    let done = 0;
    while (done < bytes.length) {
      const n = Math.min(SLICE, bytes.length - done);
      const { state, out, input } = block.use();
      heap().set(n === bytes.length ? bytes : bytes.subarray(done, done + n), input);
      heap32()[(state + J_EV_COUNT) >>> 2] = 0;
      const consumed = core.jsonStep(state, input, n, out);
      this.deliver(sink);
      const error = block.field(J_ERROR);
      if (error === E_NEED_MEMORY) {
        heap32()[(state + J_ERROR) >>> 2] = 0;
        block.grow();
        done += consumed;
        continue;
      }
      if (error !== 0) throw coreError(error, messageNumber, offset + done + consumed);
      done += n;
    }
  }

  /**
   * Ends the message. Returns false if it held nothing but whitespace (a blank line). Either way
   * its block goes back; on an error it is kept for `outputMightParse`, until `idle`.
   */
  finish(sink: StepSink, messageNumber: number, offset: number): boolean {
    const block = this.block;
    const { state, out } = block.use();
    heap32()[(state + J_EV_COUNT) >>> 2] = 0;
    const error = core.jsonFinish(state, out);
    this.deliver(sink);
    if (error === 0) {
      block.idle();
      return true;
    }
    if (block.field(J_PHASE) === P_VALUE && block.field(J_DEPTH) === 0) {
      block.idle();
      return false;
    }
    throw coreError(error, messageNumber, offset);
  }

  /** Gives the block back (between messages a stream holds none). */
  idle(): void {
    this.block.idle();
  }

  /**
   * True when the output so far might itself parse as a JSON value: the root value is complete,
   * or is a scalar still being read (`12` of `123x`). Else it is an unclosed string or container.
   * Only for a message in progress or failed (before `idle`).
   */
  outputMightParse(): boolean {
    const block = this.block;
    if (block.work === null) return false;
    if (block.field(J_DEPTH) !== 0) return false;
    const phase = block.field(J_PHASE);
    return phase === P_DONE || phase === P_SCALAR;
  }

  private deliver(sink: StepSink): void {
    const { out, state } = this.block.work!;
    const w = heap32();
    const len = w[(state + J_OUT_LEN) >>> 2]!;
    const count = w[(state + J_EV_COUNT) >>> 2]!;
    if (len === 0 && count === 0) return; // (a message's end usually writes nothing)
    const n = count * EVENT_WORDS;
    if (n > this.events.length) this.events = new Uint32Array(Math.max(n, 96, this.events.length * 2));
    const ev = w[(state + J_EVENTS) >>> 2]! >>> 2;
    // A few events (a small message's usual) are copied by hand: a subarray view costs more.
    if (n <= 48) for (let i = 0; i < n; i++) this.events[i] = w[ev + i]!;
    else this.events.set(w.subarray(ev, ev + n));
    sink(heap().subarray(out, out + len), this.events, count);
  }

  /** Gives back the block it holds (mid-message); the transducer must not be used afterwards. */
  release(): void {
    this.block.idle();
  }
}
