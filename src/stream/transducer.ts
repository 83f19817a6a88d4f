// The host side of the WASM JSON transducer (assembly/json/): its state and buffers in WASM
// memory, feeding bytes in bounded slices, growing the string windows when one string needs
// it, and turning error codes into errors that name the place, never the content. The state's
// offsets (J_*) and every other number the core reads or writes come from src/core/abi.ts,
// generated from the core.
import {
  D_PREFIX_LEN,
  D_SUFFIX_LEN,
  E_CONTROL,
  E_DEPTH,
  E_ESCAPE,
  E_EVENTS,
  E_INCOMPLETE,
  E_NEED_MEMORY,
  E_SYNTAX,
  E_TYPE_CONFLICT,
  E_UTF8,
  ESCAPE_ENTRY_SIZE,
  EV_PER_BYTE,
  EV_PER_CALL,
  EV_SIZE,
  F_LENGTH,
  F_MESSAGE,
  F_OFFSET,
  F_OUT_END,
  FRAME_SIZE,
  J_AUX,
  J_DEC,
  J_DEC_CAP,
  J_DEC_LEN,
  J_DEPTH,
  J_DESC,
  J_ERROR,
  J_EV_CAP,
  J_EV_COUNT,
  J_EVENTS,
  J_LINES_MESSAGES,
  J_LINES_STOP,
  J_MODE,
  J_OUT_LEN,
  J_PHASE,
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
  LINES_REFUSED,
  MATCH_RECORD_SIZE,
  P_DONE,
  P_SCALAR,
  P_VALUE,
  ROOT_MESSAGE,
  ROOT_PAYLOAD,
  ROOT_TEXT,
  STACK_ENTRY_SIZE,
  TOKEN_RECORD_SIZE,
} from '../core/abi.js';
import type { Descriptor } from '../core/descriptor.js';
import { core } from '../core/instance.js';
import { free, heap, heap32 } from '../core/memory.js';
import { byteFinder } from './find-byte.js';
import { PayloadStreamError, type PayloadStreamErrorCode } from './stream-error.js';
import { allocateBlock, giveBlock, type PooledBlock, takeBlock } from './work-pool.js';

/** Most input bytes handed to the core per call. */
export const SLICE = 16 * 1024;
/** The NDJSON lines region (`lines`): longer lines go the per-message way. At most SLICE (the output is sized for it). */
export const LINES = SLICE;
/**
 * Whole messages longer than the batch regions, up to this (an NDJSON line with its '\n', a
 * Content-Length body), are each taken on their own by the indexed path, in regions made for
 * the call and given back after it.
 */
export const LARGE_LINE = 256 * 1024;
/**
 * The most WASM memory a large message's regions may take (sized for the most output it could
 * have; WASM memory never shrinks): under a codec that expands more (a 1-byte term and a long
 * prefix) its longer messages go the per-message way, which needs a slice's worth. (The default
 * codec's regions for a LARGE_LINE message: about 4 MiB; with a 1-byte term, 6.5 MiB.)
 */
const LARGE_BLOCK = 16 * 1024 * 1024;
const NEWLINE = new Uint8Array([0x0a]);
/** Most bodies per `framed` call (its frame table). */
export const FRAMES = 1024;
/** The framed bodies' region (`framed`): at most SLICE, as for `lines`. */
export const FRAMED = SLICE;
const STACK_DEPTH = 1 << 16;
const WINDOW = 16 * 1024;

/** Room for the events of one call: a slice's bytes' worth (the interface's bound, assembly/abi.ts). */
const EVENTS = SLICE * EV_PER_BYTE + EV_PER_CALL;
/** u32 words per event: [kind, a, b]. */
const EVENT_WORDS = EV_SIZE / 4;

// The core's error codes (E_*), as stream error codes and reasons.
const ERRORS: Record<number, [PayloadStreamErrorCode, string]> = {
  [E_SYNTAX]: ['invalid-json', 'invalid JSON'],
  [E_UTF8]: ['invalid-utf8', 'invalid UTF-8'],
  [E_CONTROL]: ['control-character', 'control character in a JSON string'],
  [E_ESCAPE]: ['invalid-escape', 'invalid escape in a JSON string'],
  [E_DEPTH]: ['too-deep', `JSON nested deeper than ${STACK_DEPTH - 1} levels`],
  [E_INCOMPLETE]: ['incomplete', 'the message ends before its JSON value does'],
  [E_TYPE_CONFLICT]: ['type-conflict', 'two "type" keys that disagree in one object (image/audio or not)'],
};
const coreError = (code: number, messageNumber: number, offset: number) => {
  if (code === E_EVENTS)
    return new Error(`mcp-payload-codec: the core wrote more events than its interface allows (message ${messageNumber})`);
  const [name, reason] = ERRORS[code] ?? ['invalid-json', 'invalid input'];
  return new PayloadStreamError(name, reason, messageNumber, offset);
};

/** Regions of the given sizes back to back, each 16-byte aligned: their offsets and the total. */
function carve(sizes: number[]): { size: number; at: number[] } {
  const at: number[] = [];
  let size = 0;
  for (const s of sizes) {
    at.push(size);
    size += (s + 15) & ~15;
  }
  return { size, at };
}

export interface TransducerJob {
  readonly desc: Descriptor;
  readonly mode: 'encode' | 'decode';
  /** Worst-case output bytes per input byte of a transformed string. */
  readonly expansion: number;
}

/**
 * Output of one core call: its bytes, a view into WASM memory that is valid only until the sink
 * returns and before it runs anything that may grow the memory (copy what you keep first), and
 * and `count` events ([kind, a, b]...), copied into an array the transducer reuses for its next
 * call.
 */
export type StepSink = (output: Uint8Array, events: Uint32Array, count: number) => void;

/**
 * The working memory of one call or message, laid out in one block (work-pool.ts): the state,
 * the stack, the windows and string regions, events, output, input, and the batch regions
 * (`lines`' input; `framed`'s input and frame table).
 */
interface Work extends PooledBlock {
  readonly window: number;
  readonly state: number;
  readonly out: number;
  readonly input: number;
  readonly lines: number;
  readonly framed: number;
  /** The transducer whose chunk the lines region holds a copy of (see `lines`). */
  linesOwner: Transducer | null;
}

export class Transducer {
  /**
   * The block in use: held from `begin` to the message's end (`finish`, or `idle` for one given
   * up), or for a batch call; null between messages, when the stream holds no WASM memory.
   */
  private work: Work | null = null;
  /** The standard block's regions (window WINDOW) and their key, worked out at the first call. */
  private standard: { size: number; at: number[]; key: string } | null = null;
  /** The events of the last call, copied out (a nested transducer may grow WASM memory). */
  private events = new Uint32Array(0); // (made at the first events: a stream may carry none)
  // Which bytes of which chunk `lines` copied into the lines region of the block it last used
  // (valid while that block's `linesOwner` is this): a line it refuses goes through `write`
  // (the input region), then `lines` goes on from the next line without copying the rest again.
  private linesWork: Work | null = null;
  private linesChunk: Uint8Array | null = null;
  private linesFrom = 0;
  private linesLength = 0;
  /** Messages (not blank lines) among the lines the last `lines` call took. */
  linesTaken = 0;
  /** The last `lines` call stopped at a line it refused (not at the end of the whole lines). */
  linesRefused = false;
  /** The block of the last `framed` call, whose output and frame table are read after it. */
  private framedWork: Work | null = null;
  /** Messages (not bodies of only whitespace) among the bodies the last `framed` call took. */
  framedMessages = 0;

  constructor(
    private readonly job: TransducerJob,
    /**
     * A bare JSON value whose strings are all payload (not a JSON-RPC message); 'text' when it
     * is a string already known not to be a base64 data: URI.
     */
    private readonly rootPayload: boolean | 'text' = false,
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
   * or new), its state set for this transducer. May grow WASM memory: take views after.
   */
  private take(): Work {
    if (this.work !== null) return this.work;
    if (this.standard === null) {
      const { size, at } = this.regions(WINDOW);
      this.standard = { size, at, key: at.join() };
    }
    const { size, at, key } = this.standard;
    const kept = takeBlock<Work>(key);
    let work: Work;
    if (kept === undefined) work = this.layout(allocateBlock(size), size, at, WINDOW, key);
    else {
      work = kept; // (laid out already: only what differs from one transducer to the next)
      this.setJob(work.state);
    }
    this.work = work;
    return work;
  }

  /** Sets the fields that differ from one transducer to the next (its job) in the state at `state`. */
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
  private grow(): void {
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
  private outputFor(bytes: number): number {
    return Math.ceil(bytes * Math.max(3, this.job.expansion)) + 4096;
  }

  /**
   * The decoded window and the records and decoded token bytes, sized for what the mode can find
   * in `window` decoded bytes: a match record per byte when encoding; a token record per
   * shortest token, and half the window of decoded bytes, when decoding (the window may be grown
   * for a long token candidate: the rest need not grow as much).
   */
  private stringRegions(window: number): [dec: number, rec: number, aux: number] {
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
  private use(): Work {
    const work = this.work;
    if (work === null) return this.take();
    const ptr = this.job.desc.ptr; // (first: placing the tables may grow memory and the views)
    heap32()[(work.state + J_DESC) >>> 2] = ptr;
    return work;
  }

  private field(f: number): number {
    return heap32()[(this.work!.state + f) >>> 2]!;
  }

  /** Starts a message read the per-message way: its block is held until `finish` (or `idle`). */
  begin(): void {
    core.jsonReset(this.use().state);
  }

  /** Feeds bytes; `messageNumber` and `offset` (bytes of this message before them) name errors. */
  write(bytes: Uint8Array, sink: StepSink, messageNumber: number, offset: number): void {
    let done = 0;
    while (done < bytes.length) {
      const n = Math.min(SLICE, bytes.length - done);
      const { state, out, input } = this.use();
      heap().set(n === bytes.length ? bytes : bytes.subarray(done, done + n), input);
      heap32()[(state + J_EV_COUNT) >>> 2] = 0;
      const consumed = core.jsonStep(state, input, n, out);
      this.deliver(sink);
      const error = this.field(J_ERROR);
      if (error === E_NEED_MEMORY) {
        heap32()[(state + J_ERROR) >>> 2] = 0;
        this.grow();
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
    const { state, out } = this.use();
    heap32()[(state + J_EV_COUNT) >>> 2] = 0;
    const error = core.jsonFinish(state, out);
    this.deliver(sink);
    if (error === 0) {
      this.idle();
      return true;
    }
    if (this.field(J_PHASE) === P_VALUE && this.field(J_DEPTH) === 0) {
      this.idle();
      return false;
    }
    throw coreError(error, messageNumber, offset);
  }

  /**
   * NDJSON fast lane: transforms the whole lines of `chunk` from `from` (a line start, no message
   * in progress) that need nothing of the host, in as few core calls as the lines region allows,
   * giving their output (each line with its '\n') to `emit`. Returns where it stopped: at the
   * first line that must go the per-message way (refused: any error, counted bytes over
   * `maxBytes`, a deferral, a changed key), one not whole in the chunk, or one `large` may not
   * take (LARGE_LINE or longer). A line longer than the region is taken on its own (`large`).
   * `firstEnd` is where the first line ends (its '\n'): a first line too long for the region
   * costs no copy into it. Sets `linesTaken`.
   */
  lines(chunk: Uint8Array, from: number, firstEnd: number, maxBytes: number, emit: (bytes: Uint8Array) => void): number {
    let at = from;
    let taken = 0;
    this.linesTaken = 0;
    this.linesRefused = false;
    let lineEnd = firstEnd; // where the line at `at` ends, when it is known to be long (else -1)
    const held = this.work !== null; // (none: no message is in progress)
    const work = this.use();
    for (;;) {
      if (lineEnd - at >= LINES) {
        // Too long for the region: taken on its own, when it is not too long for that too.
        if (!this.takesLarge(lineEnd - at)) break;
        const counted = lineEnd - at - (chunk[lineEnd - 1] === 0x0d ? 1 : 0);
        const took =
          counted <= maxBytes &&
          this.large(chunk, at, lineEnd - at, (output) => {
            emit(output);
            emit(NEWLINE);
          });
        if (!took) {
          this.linesRefused = true;
          break;
        }
        taken++;
        at = lineEnd + 1;
        lineEnd = -1;
        if (at === chunk.length) break;
        continue;
      }
      if (
        this.linesChunk !== chunk ||
        this.linesWork !== work ||
        work.linesOwner !== this ||
        at < this.linesFrom ||
        at >= this.linesFrom + this.linesLength
      ) {
        const n = Math.min(LINES, chunk.length - at);
        if (n <= 0) break;
        heap().set(chunk.subarray(at, at + n), work.lines);
        work.linesOwner = this;
        this.linesWork = work;
        this.linesChunk = chunk;
        this.linesFrom = at;
        this.linesLength = n;
      }
      const skip = at - this.linesFrom;
      const { state, out } = work;
      at += core.jsonLines(state, work.lines + skip, this.linesLength - skip, out, maxBytes);
      const w = heap32();
      const len = w[(state + J_OUT_LEN) >>> 2]!;
      taken += w[(state + J_LINES_MESSAGES) >>> 2]!;
      const refused = w[(state + J_LINES_STOP) >>> 2] === LINES_REFUSED;
      if (len > 0) emit(heap().subarray(out, out + len));
      if (refused) {
        this.linesRefused = true;
        break;
      }
      // No whole line left in the region: the next one is cut by the chunk's end, or longer than
      // the region (taken on its own, above), or starts in the region and ends after it.
      const end = this.linesFrom + this.linesLength;
      if (end === chunk.length) break;
      if (at === this.linesFrom) {
        lineEnd = byteFinder(chunk.subarray(end, Math.min(chunk.length, at + LARGE_LINE)))(0x0a, 0);
        if (lineEnd < 0) break; // cut by the chunk's end, or too long
        lineEnd += end;
      }
      this.linesChunk = null;
    }
    if (!held) this.idle();
    this.linesTaken = taken;
    return at;
  }

  /** Whether `large` may take a message of n bytes: shorter than LARGE_LINE, its regions within LARGE_BLOCK. */
  takesLarge(n: number): boolean {
    return n < LARGE_LINE && this.largeRegions(n).size <= LARGE_BLOCK;
  }

  /** A large message's regions for its n bytes: input, string regions, output, escape map. */
  private largeRegions(n: number): { size: number; at: number[]; window: number; mapEntries: number } {
    const window = n + 16; // (a string's decoded text may take all of it; a copy runs 16 bytes past)
    const mapEntries = n >> 3; // (a string with more escapes is written searching for them)
    return { ...carve([n, ...this.stringRegions(window), this.outputFor(n), mapEntries * ESCAPE_ENTRY_SIZE]), window, mapEntries };
  }

  /**
   * One whole message, chunk[from, from + n), longer than the batch regions: transformed by the
   * indexed path alone, in input, output and string regions made for it (the state's own are
   * swapped out for the call; no message is in progress, so they hold nothing), its output given
   * to `write` (a view into WASM memory, valid for the call). Returns false, with nothing
   * written, when the message must go the per-message way.
   */
  large(chunk: Uint8Array, from: number, n: number, write: (output: Uint8Array) => void): boolean {
    const { size, at, window, mapEntries } = this.largeRegions(n);
    const block = allocateBlock(size);
    const held = this.work !== null; // (within `lines`: its block)
    const state = this.use().state; // (both may grow the memory: before any view)
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
      if (!held) this.idle();
    }
    try {
      if (written >= 0) write(heap().subarray(out, out + written));
    } finally {
      free(block, size);
    }
    return written >= 0;
  }

  /**
   * Content-Length and SSE: transforms `count` whole message bodies that the framing found in
   * `chunk`, in one core call, each exactly as write and finish would (no message in progress).
   * `bodies` holds each body's start and length in `chunk`, all inside [from, to), which is at
   * most FRAMED bytes (copied once); count is at most FRAMES. Returns how many were taken: all,
   * or those before the first that must go the per-message way (any error, a deferral, a
   * changed key). `framedOutput` and `framedEnd` give their output, read before any other core
   * call (the block is given back: the next call of any stream may take it); sets
   * `framedMessages`.
   */
  framed(chunk: Uint8Array, from: number, to: number, bodies: ArrayLike<number>, count: number): number {
    const held = this.work !== null; // (none: no message is in progress)
    const work = this.use(); // (may grow the memory: before any view)
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
    for (let k = 0, f = table >>> 2; k < taken; k++, f += FRAME_SIZE >>> 2) messages += w[f + (F_MESSAGE >>> 2)]!;
    this.framedMessages = messages;
    this.framedWork = work;
    if (!held) this.idle();
    return taken;
  }

  /**
   * The output of the last `framed` call, the taken bodies' back to back: a view into WASM
   * memory, valid until the next core call or growth of the memory (copy it first).
   */
  framedOutput(): Uint8Array {
    const { out, state } = this.framedWork!;
    return heap().subarray(out, out + heap32()[(state + J_OUT_LEN) >>> 2]!);
  }

  /** Where body k's output ends in `framedOutput()` (it starts where body k - 1's ends, or at 0). */
  framedEnd(k: number): number {
    return heap32()[(this.framedWork!.framed + FRAMED + k * FRAME_SIZE + F_OUT_END) >>> 2]!;
  }

  /** The chunk `lines` last read may be changed by its owner once the push returns. */
  forgetLines(): void {
    this.linesChunk = null;
  }

  /**
   * True when the output so far might itself parse as a JSON value: the root value is complete,
   * or is a scalar still being read (`12` of `123x`). Else it is an unclosed string or container.
   * Only for a message in progress or failed (before `idle`).
   */
  outputMightParse(): boolean {
    if (this.work === null) return false;
    if (this.field(J_DEPTH) !== 0) return false;
    const phase = this.field(J_PHASE);
    return phase === P_DONE || phase === P_SCALAR;
  }

  private deliver(sink: StepSink): void {
    const { out, state } = this.work!;
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
    this.idle();
    this.linesChunk = null;
    this.linesWork = null;
    this.framedWork = null;
  }
}
