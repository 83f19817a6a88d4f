// The host side of the WASM JSON transducer (assembly/json.ts): its state and buffers in WASM
// memory, feeding bytes in bounded slices, growing the string windows when one string needs
// it, and turning error codes into errors that name the place, never the content.
import type { Descriptor } from '../core/descriptor.js';
import { core } from '../core/instance.js';
import { allocate, free, heap, heap32 } from '../core/memory.js';
import { PayloadStreamError, type PayloadStreamErrorCode } from './stream-error.js';

// Field offsets of the state struct (assembly/json.ts).
const J = {
  desc: 0, mode: 4, phase: 8, depth: 12, stack: 16, stackCap: 20, raw: 56, rawCap: 60, rawLen: 64,
  dec: 68, decCap: 72, decLen: 76, rec: 80, aux: 84, events: 100, evCount: 104, outLen: 108,
  error: 112, rootPayload: 160,
} as const;
const STATE_SIZE = 256;
// Descriptor fields (assembly/layout.ts D_PREFIX_LEN, D_SUFFIX_LEN).
const D_PREFIX_LEN = 24;
const D_SUFFIX_LEN = 36;
const P_VALUE = 0;
const P_SCALAR = 4;
const P_DONE = 5;

/** Most input bytes handed to the core per call. */
const SLICE = 16 * 1024;
const STACK_DEPTH = 1 << 16;
const WINDOW = 16 * 1024;

// The core's error codes (assembly/json.ts E_*), as stream error codes and reasons.
const ERRORS: Record<number, [PayloadStreamErrorCode, string]> = {
  1: ['invalid-json', 'invalid JSON'],
  2: ['invalid-utf8', 'invalid UTF-8'],
  3: ['control-character', 'control character in a JSON string'],
  4: ['invalid-escape', 'invalid escape in a JSON string'],
  5: ['too-deep', `JSON nested deeper than ${STACK_DEPTH - 1} levels`],
  6: ['incomplete', 'the message ends before its JSON value does'],
  8: ['type-conflict', 'two "type" keys that disagree in one object (image/audio or not)'],
};
const coreError = (code: number, messageNumber: number, offset: number) => {
  const [name, reason] = ERRORS[code] ?? ['invalid-json', 'invalid input'];
  return new PayloadStreamError(name, reason, messageNumber, offset);
};
const E_NEED_MEMORY = 7;


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

export class Transducer {
  private block = 0;
  private blockSize = 0;
  private window = WINDOW;
  private ptrs = { state: 0, out: 0, input: 0 };
  /** The events of the last call, copied out (a nested transducer may grow WASM memory). */
  private events = new Uint32Array(96);

  constructor(
    private readonly job: TransducerJob,
    /**
     * A bare JSON value whose strings are all payload (not a JSON-RPC message); 'text' when it
     * is a string already known not to be a base64 data: URI.
     */
    private readonly rootPayload: boolean | 'text' = false,
  ) {
    this.layout(WINDOW);
  }

  /** Lays out state, stack, windows, records, events and output in one pooled block. */
  private layout(window: number): void {
    const ratio = Math.max(3, this.job.expansion);
    const outCap = Math.ceil((SLICE + window) * ratio) + 4096;
    const descPtr = this.job.desc.ptr; // (placing the tables may grow memory: before any view)
    // Records and decoded token bytes, sized for what the mode can find in a window: a match
    // record (8 bytes) per byte when encoding; a token record (12 bytes) per shortest token,
    // and half the window of decoded bytes, when decoding (the window may be grown for a long
    // token candidate: the rest need not grow as much).
    let recCap = window * 8 + 64;
    let auxCap = 64;
    if (this.job.mode === 'decode') {
      const w = heap32();
      const shortest = w[(descPtr + D_PREFIX_LEN) >> 2]! + w[(descPtr + D_SUFFIX_LEN) >> 2]! + 2;
      recCap = 12 * Math.ceil(window / shortest) + 64;
      auxCap = (window >> 1) + 64;
    }
    const sizes = [STATE_SIZE, STACK_DEPTH * 2, window, window, recCap, auxCap, SLICE * 36 + 64, outCap, SLICE];
    const size = sizes.reduce((a, b) => a + ((b + 15) & ~15), 0);
    const block = allocate(size);
    const at: number[] = [];
    let p = block;
    for (const s of sizes) {
      at.push(p);
      p += (s + 15) & ~15;
    }
    const [state, stack, raw, dec, rec, aux, events, out, input] = at as [number, number, number, number, number, number, number, number, number];
    const w = heap32();
    if (this.block !== 0) {
      // Growing: keep the state, the stack and what the windows hold.
      const old = this.ptrs.state;
      heap().copyWithin(state, old, old + STATE_SIZE);
      heap().copyWithin(stack, w[(old + J.stack) >> 2]!, w[(old + J.stack) >> 2]! + STACK_DEPTH * 2); // (u16 entries)
      heap().copyWithin(raw, w[(old + J.raw) >> 2]!, w[(old + J.raw) >> 2]! + w[(old + J.rawLen) >> 2]!);
      heap().copyWithin(dec, w[(old + J.dec) >> 2]!, w[(old + J.dec) >> 2]! + w[(old + J.decLen) >> 2]!);
      free(this.block, this.blockSize);
    }
    const set = (f: number, v: number) => (w[(state + f) >> 2] = v);
    set(J.desc, descPtr);
    set(J.mode, this.job.mode === 'encode' ? 0 : 1);
    set(J.stack, stack);
    set(J.stackCap, STACK_DEPTH);
    set(J.raw, raw);
    set(J.rawCap, window);
    set(J.dec, dec);
    set(J.decCap, window);
    set(J.rec, rec);
    set(J.aux, aux);
    set(J.events, events);
    set(J.rootPayload, this.rootPayload === 'text' ? 2 : this.rootPayload ? 1 : 0);
    this.block = block;
    this.blockSize = size;
    this.window = window;
    this.ptrs = { state, out, input };
  }

  /** The codec's tables, placed in WASM memory again if they were evicted since the last call. */
  private useTables(): void {
    const ptr = this.job.desc.ptr; // (first: placing the tables may grow memory and the views)
    heap32()[(this.ptrs.state + J.desc) >> 2] = ptr;
  }

  private field(f: number): number {
    return heap32()[(this.ptrs.state + f) >> 2]!;
  }

  begin(): void {
    core.jsonReset(this.ptrs.state);
  }

  /** Feeds bytes; `messageNumber` and `offset` (bytes of this message before them) name errors. */
  write(bytes: Uint8Array, sink: StepSink, messageNumber: number, offset: number): void {
    let done = 0;
    while (done < bytes.length) {
      const n = Math.min(SLICE, bytes.length - done);
      const { state, out, input } = this.ptrs;
      this.useTables();
      heap().set(n === bytes.length ? bytes : bytes.subarray(done, done + n), input);
      heap32()[(state + J.evCount) >> 2] = 0;
      const consumed = core.jsonStep(state, input, n, out);
      this.deliver(sink);
      const error = this.field(J.error);
      if (error === E_NEED_MEMORY) {
        heap32()[(state + J.error) >> 2] = 0;
        this.layout(this.window * 2);
        done += consumed;
        continue;
      }
      if (error !== 0) throw coreError(error, messageNumber, offset + done + consumed);
      done += n;
    }
  }

  /** Ends the message. Returns false if it held nothing but whitespace (a blank line). */
  finish(sink: StepSink, messageNumber: number, offset: number): boolean {
    const { state, out } = this.ptrs;
    this.useTables();
    heap32()[(state + J.evCount) >> 2] = 0;
    const error = core.jsonFinish(state, out);
    this.deliver(sink);
    if (error === 0) return true;
    if (this.field(J.phase) === P_VALUE && this.field(J.depth) === 0) return false;
    throw coreError(error, messageNumber, offset);
  }

  /**
   * True when the output so far might itself parse as a JSON value: the root value is complete,
   * or is a scalar still being read (`12` of `123x`). Else it is an unclosed string or container.
   */
  outputMightParse(): boolean {
    if (this.field(J.depth) !== 0) return false;
    const phase = this.field(J.phase);
    return phase === P_DONE || phase === P_SCALAR;
  }

  private deliver(sink: StepSink): void {
    const { out, state } = this.ptrs;
    const w = heap32();
    const len = w[(state + J.outLen) >> 2]!;
    const count = w[(state + J.evCount) >> 2]!;
    if (len === 0 && count === 0) return; // (a message's end usually writes nothing)
    const n = count * 3;
    if (n > this.events.length) this.events = new Uint32Array(Math.max(n, this.events.length * 2));
    const ev = w[(state + J.events) >> 2]! >> 2;
    // A few events (a small message's usual) are copied by hand: a subarray view costs more.
    if (n <= 48) for (let i = 0; i < n; i++) this.events[i] = w[ev + i]!;
    else this.events.set(w.subarray(ev, ev + n));
    sink(heap().subarray(out, out + len), this.events, count);
  }

  /** Returns the memory to the pool; the transducer must not be used afterwards. */
  release(): void {
    if (this.block !== 0) free(this.block, this.blockSize);
    this.block = 0;
  }
}

