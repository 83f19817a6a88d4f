// One direction of a stream, message by message: a transducer, an assembler, message numbers,
// byte offsets and the size limit. The framings (ndjson.ts, content-length.ts, sse.ts) decide
// where messages begin and end; this decides what their bytes become.
import { PayloadKeyCollisionError } from '../errors.js';
import { MessageAssembler, type HeldBytes } from './assembler.js';
import { PayloadStreamError, Transducer, type TransducerJob } from './transducer.js';

export interface PipeOptions {
  readonly maxMessageBytes: number;
  /** Called instead of erroring when decoding makes keys collide; the message is dropped. */
  readonly onCollision?: (error: PayloadKeyCollisionError) => void;
}

export class MessagePipe {
  private readonly transducer: Transducer;
  private readonly assembler: MessageAssembler;
  private readonly values: ValueTransformer;
  /** Number of the current (or last) message, from 1. */
  messageNumber = 0;
  /** Bytes of the current message fed so far. */
  offset = 0;
  active = false;

  constructor(
    job: TransducerJob,
    private readonly options: PipeOptions,
    emit: (bytes: Uint8Array) => void,
  ) {
    this.transducer = new Transducer(job);
    this.values = new ValueTransformer(job, () => this.messageNumber);
    this.assembler = new MessageAssembler({ holdAll: job.mode === 'decode', emit, transformValue: (pieces, into) => this.values.transform(pieces, into, 1) });
  }

  private start(): void {
    this.active = true;
    this.messageNumber++;
    this.offset = 0;
    this.transducer.begin();
    this.assembler.begin();
  }

  feed(bytes: Uint8Array): void {
    if (!this.active) this.start();
    if (this.offset + bytes.length > this.options.maxMessageBytes) {
      throw new PayloadStreamError(`message larger than maxMessageBytes (${this.options.maxMessageBytes})`, this.messageNumber, this.options.maxMessageBytes);
    }
    this.transducer.write(bytes, this.assembler.sink, this.messageNumber, this.offset);
    this.offset += bytes.length;
  }

  /**
   * Ends the current message. Returns 'message', 'blank' (only whitespace was fed) or 'dropped'
   * (its keys collided and onCollision took it).
   */
  end(): 'message' | 'blank' | 'dropped' {
    if (!this.active) return 'blank';
    this.active = false;
    const complete = this.transducer.finish(this.assembler.sink, this.messageNumber, this.offset);
    try {
      this.assembler.end(this.messageNumber);
    } catch (e) {
      if (e instanceof PayloadKeyCollisionError && this.options.onCollision) {
        this.options.onCollision(e);
        return 'dropped';
      }
      throw e;
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
  private readonly levels: { t: Transducer; a: MessageAssembler }[] = [];

  constructor(
    private readonly job: TransducerJob,
    private readonly messageNumber: () => number,
  ) {}

  transform(pieces: (Uint8Array | undefined)[], into: HeldBytes, level: number): Uint8Array[] | null {
    const messageNumber = this.messageNumber();
    if (level > MAX_DEFERRED_NESTING) {
      throw new PayloadStreamError(`"data" values before their "type" nested more than ${MAX_DEFERRED_NESTING} deep`, messageNumber, 0);
    }
    const { t, a } = (this.levels[level - 1] ??= {
      t: new Transducer(this.job, true),
      a: new MessageAssembler({ holdAll: true, emit: () => {}, transformValue: (inner, innerInto) => this.transform(inner, innerInto, level + 1) }),
    });
    t.begin();
    a.begin();
    let offset = 0;
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i]!;
      pieces[i] = undefined;
      t.write(p, a.sink, messageNumber, offset);
      offset += p.length;
    }
    t.finish(a.sink, messageNumber, offset);
    return a.endInto(messageNumber, into);
  }

  release(): void {
    for (const { t } of this.levels) t.release();
    this.levels.length = 0;
  }
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
