// A transducer's working memory: one block of WASM memory (work-pool.ts) laid out with the
// state, the stack, the windows and string regions, events, output, input and the batch
// regions, taken for a core call or a message and given back after it, and grown when one
// string outgrows the windows. The state's offsets (J_*) and every other number the core reads
// or writes come from src/core/abi.ts, generated from the core.
import {
  D_PREFIX_LEN,
  D_SUFFIX_LEN,
  EV_PER_BYTE,
  EV_PER_CALL,
  EV_SIZE,
  FRAME_SIZE,
  J_AUX,
  J_DEC,
  J_DEC_CAP,
  J_DEC_LEN,
  J_DESC,
  J_EV_CAP,
  J_EVENTS,
  J_MODE,
  J_RAW,
  J_RAW_CAP,
  J_RAW_LEN,
  J_REC,
  J_ROOT_PAYLOAD,
  J_SIZE,
  J_STACK,
  J_STACK_CAP,
  JSON_DECODE,
  JSON_ENCODE,
  MATCH_RECORD_SIZE,
  ROOT_MESSAGE,
  ROOT_PAYLOAD,
  ROOT_TEXT,
  STACK_ENTRY_SIZE,
  TOKEN_RECORD_SIZE,
} from '../core/abi.js';
import type { Descriptor } from '../core/descriptor.js';
import { free, heap, heap32 } from '../core/memory.js';
import { FRAMED, FRAMES, LINES, SLICE } from './core-regions.js';
import { allocateBlock, giveBlock, type PooledBlock, takeBlock } from './work-pool.js';

/** The deepest nesting the state's stack holds, less one. */
export const STACK_DEPTH = 1 << 16;
const WINDOW = 16 * 1024;
/** Room for the events of one call: a slice's bytes' worth (the interface's bound, assembly/abi.ts). */
export const EVENTS = SLICE * EV_PER_BYTE + EV_PER_CALL;

export interface TransducerJob {
  readonly desc: Descriptor;
  readonly mode: 'encode' | 'decode';
  /** Worst-case output bytes per input byte of a transformed string. */
  readonly expansion: number;
}

/**
 * A bare JSON value whose strings are all payload (not a JSON-RPC message): true; 'text' when it
 * is a string already known not to be a base64 data: URI; false for a JSON-RPC message.
 */
export type RootPayload = boolean | 'text';

/** Regions of the given sizes back to back, each 16-byte aligned: their offsets and the total. */
export function carve(sizes: number[]): { size: number; at: number[] } {
  const at: number[] = [];
  let size = 0;
  for (const s of sizes) {
    at.push(size);
    size += (s + 15) & ~15;
  }
  return { size, at };
}

/**
 * The working memory of one call or message, laid out in one block: the state, the stack, the
 * windows and string regions, events, output, input, and the batch regions (`lines`' input;
 * `framed`'s input and frame table).
 */
export interface Work extends PooledBlock {
  readonly window: number;
  readonly state: number;
  readonly out: number;
  readonly input: number;
  readonly lines: number;
  readonly framed: number;
  /** The NDJSON lane whose chunk the lines region holds a copy of (lines-lane.ts). */
  linesOwner: object | null;
}

/** The standard block's regions (window WINDOW) and their key, per codec and mode: worked out once, not per stream. */
const standards = new WeakMap<Descriptor, { encode?: Standard; decode?: Standard }>();
interface Standard {
  readonly size: number;
  readonly at: number[];
  readonly key: string;
  readonly expansion: number;
}

export class TransducerBlock {
  /**
   * The block in use: held from a message's start to its end (or until `idle` for one given
   * up), or for a batch call; null between messages, when the stream holds no WASM memory.
   */
  work: Work | null = null;
  /** The standard block's regions (window WINDOW) and their key, found at the first call. */
  private standard: Standard | null = null;

  constructor(
    readonly job: TransducerJob,
    private readonly rootPayload: RootPayload = false,
  ) {}

  /** State, stack, windows, records, events, output, input and batch regions, back to back. */
  private regions(window: number): { size: number; at: number[] } {
    return carve([
      J_SIZE,
      STACK_DEPTH * STACK_ENTRY_SIZE,
      window,
      ...this.stringRegions(window),
      EVENTS * EV_SIZE,
      this.outputFor(SLICE + window),
      SLICE,
      LINES,
      FRAMED + FRAMES * FRAME_SIZE,
    ]);
  }

  /**
   * The block in use, or one taken for this call or message (a kept one with the same layout,
   * or new), its state set for this job. May grow WASM memory: take views after.
   */
  private take(): Work {
    if (this.work !== null) return this.work;
    if (this.standard === null) {
      const { desc, mode } = this.job;
      let known = standards.get(desc);
      if (known === undefined) {
        known = {};
        standards.set(desc, known);
      }
      let standard = known[mode];
      if (standard?.expansion !== this.job.expansion) {
        const { size, at } = this.regions(WINDOW);
        standard = { size, at, key: at.join(), expansion: this.job.expansion };
        known[mode] = standard;
      }
      this.standard = standard;
    }
    const { size, at, key } = this.standard;
    const kept = takeBlock<Work>(key);
    let work: Work;
    if (kept === undefined) work = this.layout(allocateBlock(size), size, at, WINDOW, key);
    else {
      work = kept; // (laid out already: only what differs from one job to the next)
      this.setJob(work.state);
    }
    this.work = work;
    return work;
  }

  /** Sets the fields that differ from one job to the next in the state at `state`. */
  private setJob(state: number): void {
    const descPtr = this.job.desc.ptr; // (placing the tables may grow memory: before the view)
    const w = heap32();
    w[(state + J_DESC) >>> 2] = descPtr;
    w[(state + J_MODE) >>> 2] = this.job.mode === 'encode' ? JSON_ENCODE : JSON_DECODE;
    w[(state + J_ROOT_PAYLOAD) >>> 2] = this.rootPayload === 'text' ? ROOT_TEXT : this.rootPayload ? ROOT_PAYLOAD : ROOT_MESSAGE;
  }

  /** Gives the block back (between messages a stream holds none). */
  idle(): void {
    const work = this.work;
    if (work === null) return;
    this.work = null;
    if (work.window === WINDOW) giveBlock(work);
    else free(work.block, work.size); // (grown for one long string: not kept)
  }

  /** Sets the state's pointers, capacities and job in `block`, laid out as `at` says. */
  private layout(block: number, size: number, at: number[], window: number, key: string): Work {
    const [state, stack, raw, dec, rec, aux, events, out, input, lines, framed] = at.map((a) => block + a) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    this.setJob(state); // (may grow memory: before the view)
    const w = heap32();
    const set = (f: number, v: number) => (w[(state + f) >>> 2] = v);
    set(J_STACK, stack);
    set(J_STACK_CAP, STACK_DEPTH);
    set(J_RAW, raw);
    set(J_RAW_CAP, window);
    set(J_DEC, dec);
    set(J_DEC_CAP, window);
    set(J_REC, rec);
    set(J_AUX, aux);
    set(J_EVENTS, events);
    set(J_EV_CAP, EVENTS);
    return { block, size, key, window, state, out, input, lines, framed, linesOwner: null };
  }

  /** A string outgrew the windows: a block with twice the window, keeping the state, the stack and what the windows hold. */
  grow(): void {
    const old = this.work!;
    const window = old.window * 2;
    const { size, at } = this.regions(window);
    const block = allocateBlock(size); // (before any view)
    const w = heap32();
    const was = (f: number) => w[(old.state + f) >>> 2]!;
    const [state, stack, raw, dec] = at.map((a) => block + a) as [number, number, number, number];
    heap().copyWithin(state, old.state, old.state + J_SIZE);
    heap().copyWithin(stack, was(J_STACK), was(J_STACK) + STACK_DEPTH * STACK_ENTRY_SIZE);
    heap().copyWithin(raw, was(J_RAW), was(J_RAW) + was(J_RAW_LEN));
    heap().copyWithin(dec, was(J_DEC), was(J_DEC) + was(J_DEC_LEN));
    this.idle();
    this.work = this.layout(block, size, at, window, ''); // (the new pointers and capacities; never kept)
  }

  /** Output room for `bytes` input bytes: each may become `expansion` bytes (a token's share). */
  outputFor(bytes: number): number {
    return Math.ceil(bytes * Math.max(3, this.job.expansion)) + 4096;
  }

  /**
   * The decoded window and the records and decoded token bytes, sized for what the mode can find
   * in `window` decoded bytes: a match record per byte when encoding; a token record per
   * shortest token, and half the window of decoded bytes, when decoding (the window may be grown
   * for a long token candidate: the rest need not grow as much).
   */
  stringRegions(window: number): [dec: number, rec: number, aux: number] {
    if (this.job.mode === 'encode') return [window, window * MATCH_RECORD_SIZE + 64, 64];
    const desc = this.job.desc.ptr; // (placing the tables may grow memory: before the view)
    const w = heap32();
    const shortest = w[(desc + D_PREFIX_LEN) >>> 2]! + w[(desc + D_SUFFIX_LEN) >>> 2]! + 2;
    return [window, TOKEN_RECORD_SIZE * Math.ceil(window / shortest) + 64, (window >> 1) + 64];
  }

  /**
   * The block for a core call: the one held (its codec's tables placed again if they were
   * evicted since the last call) or one taken. May grow WASM memory: take views after.
   */
  use(): Work {
    const work = this.work;
    if (work === null) return this.take();
    const ptr = this.job.desc.ptr; // (first: placing the tables may grow memory and the views)
    heap32()[(work.state + J_DESC) >>> 2] = ptr;
    return work;
  }

  /** State field `f` of the block held. */
  field(f: number): number {
    return heap32()[(this.work!.state + f) >>> 2]!;
  }
}
