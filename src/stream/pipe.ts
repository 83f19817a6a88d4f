// One direction of a stream, message by message: message numbers, byte offsets and the size
// limit, over a transducer and an assembler (the per-message way) and the core's batch entries
// (the NDJSON lane, framed bodies, large messages), which share the transducer's block. The
// framings (ndjson.ts, content-length.ts, sse.ts) decide where messages begin and end; this
// decides what their bytes become. Every entry pushes its output: the per-message way and the
// NDJSON lane to `emit`, framed bodies and large messages to the sink the framing passes, which
// writes its frames around them.
import { PayloadKeyCollisionError } from '../errors.js';
import { MessageAssembler } from './assembler.js';
import { FRAMED, FRAMES, LARGE_LINE, LINES } from './core-regions.js';
import { ValueTransformer } from './deferred-values.js';
import { FramedBodies, type FramedSink } from './framed-bodies.js';
import { LargeMessage } from './large-message.js';
import { LinesLane } from './lines-lane.js';
import { StepAside } from './step-aside.js';
import { PayloadStreamError, type PayloadStreamErrorCode } from './stream-error.js';
import { Transducer, type TransducerJob } from './transducer.js';

export interface PipeOptions {
  readonly maxMessageBytes: number;
  /** Called instead of erroring when decoding makes keys collide; the message is dropped. */
  readonly onCollision?: (error: PayloadKeyCollisionError) => void;
  /** Called instead of erroring when a message is invalid; the rest of it is skipped. */
  readonly onInvalidMessage?: (error: PayloadStreamError) => void;
  /**
   * Internal (tests compare the two): false turns the core's batch entries off (`lines`, the
   * NDJSON fast lane, and `framed`, for Content-Length and SSE), so every message goes the
   * per-message way. Default true.
   */
  readonly lines?: boolean;
}

/** How a message ended: 'invalid' means onInvalidMessage took it (`written` tells if part of it went out). */
export type EndResult = 'message' | 'blank' | 'dropped' | 'invalid';

// Written after the part of an invalid message already sent, when that part could parse as a
// JSON value by itself (`{"a":1}` of `{"a":1}x`): with it, no JSON parser accepts the line.
const SPOIL = new Uint8Array([0x2c]); // ','

export class MessagePipe {
  private readonly transducer: Transducer;
  /** Made at the first message the per-message way takes (most streams' messages take a batch entry). */
  private made: MessageAssembler | null = null;
  private readonly lane: LinesLane;
  private readonly bodies: FramedBodies;
  private readonly whole: LargeMessage;
  /** After a batch entry refused its first message, the next ones skip the batches. */
  private readonly aside = new StepAside();
  private values: ValueTransformer | null = null;
  /** Number of the current (or last) message, from 1. */
  messageNumber = 0;
  /** Bytes of the current message fed so far. */
  offset = 0;
  /** Bytes of it that count against maxMessageBytes (not framing such as a joining newline). */
  private counted = 0;
  active = false;
  /** The current message was found invalid and onInvalidMessage took it: the rest is skipped. */
  invalid = false;
  /** Bytes of the current message written out so far. */
  written = 0;
  /** maxMessageBytes as the core compares line sizes with it (a u32; lines are far shorter). */
  private readonly linesLimit: number;
  /** The NDJSON lane's region: a longer line (with its CR and LF) goes the per-message way. */
  readonly laneBytes = LINES;
  /** Most bodies one `framed` call takes, and most bytes of them (a longer body goes to `large`). */
  readonly framedBodies = FRAMES;
  readonly framedBytes = FRAMED;
  /** Whole messages shorter than this may be taken on their own (`large`); longer ones go the per-message way. */
  readonly largeMessage = LARGE_LINE;

  constructor(
    job: TransducerJob,
    private readonly options: PipeOptions,
    private readonly emit: (bytes: Uint8Array) => void,
  ) {
    this.transducer = new Transducer(job);
    const { block } = this.transducer;
    this.whole = new LargeMessage(block);
    this.lane = new LinesLane(block, this.whole);
    this.bodies = new FramedBodies(block);
    this.linesLimit = options.lines === false ? -1 : Math.min(Math.floor(options.maxMessageBytes), 0xffffffff);
  }

  private get assembler(): MessageAssembler {
    if (this.made !== null) return this.made;
    const { job } = this.transducer.block;
    const emit = this.emit;
    const out = (b: Uint8Array) => {
      this.written += b.length;
      emit(b);
    };
    this.made = new MessageAssembler({
      holdAll: job.mode === 'decode',
      emit: out,
      transformValue: (pieces, into, text) => {
        this.values ??= new ValueTransformer(job, () => this.messageNumber);
        return this.values.transform(pieces, into, 1, text);
      },
    });
    return this.made;
  }

  private start(): void {
    this.active = true;
    this.messageNumber++;
    this.offset = 0;
    this.counted = 0;
    this.invalid = false;
    this.written = 0;
    this.transducer.begin();
    this.assembler.begin();
  }

  /**
   * Feeds message bytes; the last `framing` of them (a line ending's CR, a joining newline) do
   * not count against maxMessageBytes.
   */
  feed(bytes: Uint8Array, framing = 0): void {
    if (!this.active) this.start();
    if (this.invalid) {
      this.offset += bytes.length; // skipped, never held
      return;
    }
    const counted = bytes.length - framing;
    // Over the limit, the bytes within it are still read first: an error in them is the one
    // reported, as when the message comes in smaller pieces (which error a message gets must
    // not depend on how it was cut).
    const over = this.counted + counted > this.options.maxMessageBytes;
    try {
      if (!over) this.transducer.write(bytes, this.assembler.sink, this.messageNumber, this.offset);
      else {
        const within = Math.floor(this.options.maxMessageBytes - this.counted);
        if (within > 0) this.transducer.write(bytes.subarray(0, within), this.assembler.sink, this.messageNumber, this.offset);
        throw new PayloadStreamError(
          'too-large',
          `message larger than maxMessageBytes (${this.options.maxMessageBytes})`,
          this.messageNumber,
          this.offset + within,
        );
      }
    } catch (e) {
      this.invalidate(e);
    }
    this.offset += bytes.length;
    this.counted += counted;
  }

  /**
   * NDJSON: with no message in progress, transforms the whole lines of `chunk` from `from` that
   * need no per-message work (no error, no deferral, no changed key, within maxMessageBytes) in
   * the core, a slice of lines per call, and numbers their messages. Returns where it stopped:
   * the next line goes the per-message way (feed, end), which reports and checks it as always.
   * Output goes to the framing's emit directly (each line with its '\n'). `firstEnd`: where the
   * first line's '\n' is.
   */
  lines(chunk: Uint8Array, from: number, firstEnd: number): number {
    if (this.linesLimit < 0 || this.active || this.aside.skips()) return from;
    const { lane } = this;
    const at = lane.take(chunk, from, firstEnd, this.linesLimit, this.emit);
    this.messageNumber += lane.taken;
    if (at !== from) this.aside.took();
    else if (lane.refused) this.aside.refused();
    return at;
  }

  /** NDJSON: a new chunk; what the lane copied of the last one is stale (its owner may reuse it). */
  newChunk(): void {
    this.lane.forget();
  }

  /**
   * NDJSON: the longest start of a line worth holding until its end arrives, so the whole line
   * can go through the lane (0 with the lane off): shorter than LARGE_LINE, and within
   * maxMessageBytes (not counting a CR before the LF), so a line past it goes the per-message
   * way in the same pieces as without holding and reports the same error.
   */
  get holdable(): number {
    return this.linesLimit < 0 ? 0 : Math.min(LARGE_LINE - 2, this.options.maxMessageBytes);
  }

  /**
   * Content-Length and SSE, at a frame boundary with no message in progress: whether to gather
   * the frames ahead for `framed` (false while the batch steps aside after a refusal; each
   * call counts one frame skipped).
   */
  framedReady(): boolean {
    return !(this.linesLimit < 0 || this.active || this.aside.skips());
  }

  /**
   * Transforms `count` whole message bodies the framing found in `chunk` (each within
   * maxMessageBytes; `bodies` holds start and length pairs, inside [from, to), at most FRAMED
   * bytes) in one core call, and numbers their messages. Their output goes to `sink`, for the
   * framing to write inside its frames. Returns how many were taken: the next goes the
   * per-message way (feed, end), which reports and checks it as always. After a refused first
   * body the batch steps aside, as the NDJSON lane does.
   */
  framed(chunk: Uint8Array, from: number, to: number, bodies: ArrayLike<number>, count: number, sink: FramedSink): number {
    const b = this.bodies;
    const taken = b.take(chunk, from, to, bodies, count, sink);
    this.messageNumber += b.messages;
    if (taken > 0) this.aside.took();
    else if (count > 0) this.aside.refused();
    return taken;
  }

  /**
   * Content-Length and SSE: transforms one whole body the framing found in `chunk`, [from, from + n),
   * longer than a `framed` call takes (up to LARGE_LINE, within maxMessageBytes), on its own,
   * and numbers it; its output goes to `write` (a view: copy it at once). Returns false, with
   * nothing written, when the per-message way must take it (and the batch steps aside).
   */
  large(chunk: Uint8Array, from: number, n: number, write: (output: Uint8Array) => void): boolean {
    const took = this.whole.take(chunk, from, n, write);
    if (took) {
      this.messageNumber++;
      this.aside.took();
    } else this.aside.refused();
    return took;
  }

  /** Whether `large` may take a body of n bytes (shorter than LARGE_LINE; a codec that expands much takes less). */
  takesLarge(n: number): boolean {
    return this.whole.takes(n);
  }

  get maxMessageBytes(): number {
    return this.options.maxMessageBytes;
  }

  /**
   * A message the framing refuses before feeding it (SSE: an event too large to hold): it gets
   * its number and is reported like an invalid one (throws without onInvalidMessage).
   */
  reject(code: PayloadStreamErrorCode, reason: string, byteOffset: number): void {
    this.start();
    this.active = false;
    // (At a fractional maxMessageBytes, its whole part: the byte `feed` names for the same message.)
    this.invalidate(new PayloadStreamError(code, reason, this.messageNumber, Math.floor(byteOffset)));
  }

  /**
   * Refuses the message in progress for a reason of the framing's (SSE: an event whose data
   * streamed as a message ends as another type). What went out of it is spoiled first, so that
   * it parses as nothing whether or not onInvalidMessage takes the error (a proxy that ends the
   * stream there writes a blank line after it, which dispatches it).
   */
  fail(code: PayloadStreamErrorCode, reason: string): void {
    const spoil = this.written > 0 && this.transducer.outputMightParse();
    if (spoil) this.emit(SPOIL);
    this.invalidate(new PayloadStreamError(code, reason, this.messageNumber, this.offset), spoil);
  }

  /** Rethrows `e` unless it is a PayloadStreamError that onInvalidMessage takes. */
  private invalidate(e: unknown, spoiled = false): void {
    const { onInvalidMessage } = this.options;
    if (!(e instanceof PayloadStreamError) || !onInvalidMessage) throw e;
    this.invalid = true;
    if (!spoiled && this.written > 0 && this.transducer.outputMightParse()) this.emit(SPOIL);
    this.transducer.idle(); // (the rest is skipped: its block goes back)
    this.made?.begin(); // what it held goes
    onInvalidMessage(e);
  }

  /**
   * Ends the current message. Returns 'message', 'blank' (only whitespace was fed), 'dropped'
   * (its keys collided and onCollision took it) or 'invalid' (onInvalidMessage took it).
   */
  end(): EndResult {
    if (!this.active) return 'blank';
    this.active = false;
    if (this.invalid) return 'invalid';
    let complete: boolean;
    try {
      complete = this.transducer.finish(this.assembler.sink, this.messageNumber, this.offset);
      this.assembler.end(this.messageNumber);
    } catch (e) {
      if (e instanceof PayloadKeyCollisionError && this.options.onCollision) {
        this.options.onCollision(e);
        return 'dropped';
      }
      this.invalidate(e);
      return 'invalid';
    }
    if (!complete) this.messageNumber--; // whitespace only: not a message
    return complete ? 'message' : 'blank';
  }

  release(): void {
    this.transducer.release();
    this.lane.forget();
    this.values?.release();
  }
}
