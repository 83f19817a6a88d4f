// One direction of a stream, message by message: a transducer, an assembler, message numbers,
// byte offsets and the size limit. The framings (ndjson.ts, content-length.ts, sse.ts) decide
// where messages begin and end; this decides what their bytes become.
import { PayloadKeyCollisionError } from '../errors.js';
import { MessageAssembler } from './assembler.js';
import type { HeldBytes } from './held-bytes.js';
import { PayloadStreamError, type PayloadStreamErrorCode } from './stream-error.js';
import { FRAMED, FRAMES, LARGE_LINE, LINES, Transducer, type TransducerJob } from './transducer.js';

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

/** Most lines that skip the NDJSON lane after it refused the first line it was given. */
const LINES_BACKOFF = 64;

export class MessagePipe {
  private readonly transducer: Transducer;
  private readonly assembler: MessageAssembler;
  private readonly values: ValueTransformer;
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
  // When the lane refuses the first line it is given, that line is transformed twice; a run of
  // such lines (every message deferring a value, say) would cost up to twice as much. So each
  // such refusal doubles the number of lines that skip the lane (up to LINES_BACKOFF), and a
  // line taken ends the backoff.
  private linesBackoff = 0;
  private linesSkip = 0;
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
    this.linesLimit = options.lines === false ? -1 : Math.min(Math.floor(options.maxMessageBytes), 0xffffffff);
    const out = (b: Uint8Array) => {
      this.written += b.length;
      emit(b);
    };
    this.values = new ValueTransformer(job, () => this.messageNumber);
    this.assembler = new MessageAssembler({
      holdAll: job.mode === 'decode',
      emit: out,
      transformValue: (pieces, into, text) => this.values.transform(pieces, into, 1, text),
    });
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
    if (this.linesLimit < 0 || this.active) return from;
    if (this.linesSkip > 0) {
      this.linesSkip--;
      return from;
    }
    const t = this.transducer;
    const at = t.lines(chunk, from, firstEnd, this.linesLimit, this.emit);
    this.messageNumber += t.linesTaken;
    if (at !== from) this.linesBackoff = 0;
    else if (t.linesRefused) this.stepAside();
    return at;
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
    if (this.linesLimit < 0 || this.active) return false;
    if (this.linesSkip > 0) {
      this.linesSkip--;
      return false;
    }
    return true;
  }

  /**
   * Transforms `count` whole message bodies the framing found in `chunk` (each within
   * maxMessageBytes; `bodies` holds start and length pairs, inside [from, to), at most FRAMED
   * bytes) in one core call, and numbers their messages. Returns how many were taken: the next
   * goes the per-message way (feed, end), which reports and checks it as always. Nothing is
   * emitted: `framedOutput` and `framedEnd` give the output, for the framing to write inside
   * its frames.
   * After a refused first body the batch steps aside, as the NDJSON lane does.
   */
  framed(chunk: Uint8Array, from: number, to: number, bodies: ArrayLike<number>, count: number): number {
    const t = this.transducer;
    const taken = t.framed(chunk, from, to, bodies, count);
    this.messageNumber += t.framedMessages;
    if (taken > 0) this.linesBackoff = 0;
    else if (count > 0) this.stepAside();
    return taken;
  }

  /**
   * Content-Length: transforms one whole body the framing found in `chunk`, [from, from + n),
   * longer than a `framed` call takes (up to LARGE_LINE, within maxMessageBytes), on its own,
   * and numbers it; its output goes to `write` (a view: copy it at once). Returns false, with
   * nothing written, when the per-message way must take it (and the batch steps aside).
   */
  large(chunk: Uint8Array, from: number, n: number, write: (output: Uint8Array) => void): boolean {
    const took = this.transducer.large(chunk, from, n, write);
    if (took) {
      this.messageNumber++;
      this.linesBackoff = 0;
    } else this.stepAside();
    return took;
  }

  /** Whether `large` may take a body of n bytes (shorter than LARGE_LINE; a codec that expands much takes less). */
  takesLarge(n: number): boolean {
    return this.transducer.takesLarge(n);
  }

  /** After a refused batch, the next 1, 2, 4… (up to LINES_BACKOFF) messages skip it. */
  private stepAside(): void {
    this.linesBackoff = Math.min(LINES_BACKOFF, this.linesBackoff * 2 || 1);
    this.linesSkip = this.linesBackoff;
  }

  /** The taken bodies' output from the last `framed` call (a view into WASM memory: copy it at once). */
  framedOutput(): Uint8Array {
    return this.transducer.framedOutput();
  }

  /** Where body k's output ends in `framedOutput()` (it starts where body k - 1's ends, or at 0). */
  framedEnd(k: number): number {
    return this.transducer.framedEnd(k);
  }

  /** A new chunk: what `lines` copied of the last one is stale (its owner may reuse it). */
  newChunk(): void {
    this.transducer.forgetLines();
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
    this.assembler.begin(); // what it held goes
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
    this.values.release();
  }
}

/** `data` values seen before their `type`, nested in each other, deeper than this are refused. */
const MAX_DEFERRED_NESTING = 32;

/**
 * Transforms bare JSON values, given as pieces (each let go of once fed): deferred `data`
 * values that turned out not to be image/audio data. Such values nested in each other are
 * transformed level by level, so their nesting is bounded. A transducer and an assembler per
 * level are kept for the next value (a message may hold many small deferred values). A small
 * result is appended to `into`; a large one is returned as pieces.
 */
class ValueTransformer {
  // Per level: a transducer for JSON values, one for strings known not to be data: URIs (each
  // made when first needed; it holds WASM memory only while it reads), and the assembler they share.
  private readonly levels: { t?: Transducer; text?: Transducer; a: MessageAssembler }[] = [];

  constructor(
    private readonly job: TransducerJob,
    private readonly messageNumber: () => number,
  ) {}

  transform(pieces: (Uint8Array | undefined)[], into: HeldBytes, level: number, text: boolean): Uint8Array[] | null {
    const messageNumber = this.messageNumber();
    if (level > MAX_DEFERRED_NESTING) {
      throw new PayloadStreamError(
        'too-deep',
        `"data" values before their "type" nested more than ${MAX_DEFERRED_NESTING} deep`,
        messageNumber,
        0,
      );
    }
    let l = this.levels[level - 1];
    if (l === undefined) {
      l = {
        a: new MessageAssembler({
          holdAll: true,
          emit: () => {},
          transformValue: (inner, innerInto, innerText) => this.transform(inner, innerInto, level + 1, innerText),
        }),
      };
      this.levels[level - 1] = l;
    }
    const { a } = l;
    if (text) l.text ??= new Transducer(this.job, 'text');
    else l.t ??= new Transducer(this.job, true);
    const t = (text ? l.text : l.t)!;
    t.begin();
    a.begin();
    try {
      let offset = 0;
      for (let i = 0; i < pieces.length; i++) {
        const p = pieces[i]!;
        pieces[i] = undefined;
        t.write(p, a.sink, messageNumber, offset);
        offset += p.length;
      }
      t.finish(a.sink, messageNumber, offset);
    } finally {
      t.idle(); // (its block goes back, whatever happened)
    }
    return a.endInto(messageNumber, into);
  }

  release(): void {
    for (const { t, text } of this.levels) {
      t?.release();
      text?.release();
    }
    this.levels.length = 0;
  }
}
