// Deferred `data` values that turned out not to be image/audio data, transformed on their own
// as bare JSON values (the assembler hands them over as pieces). Such values nested in each
// other are transformed level by level, so their nesting is bounded.
import { MessageAssembler, type ValueOutput } from './assembler.js';
import { PayloadStreamError } from './stream-error.js';
import { Transducer, type TransducerJob } from './transducer.js';

/** `data` values seen before their `type`, nested in each other, deeper than this are refused. */
const MAX_DEFERRED_NESTING = 32;

/** Levels kept for the next message; deeper ones (hostile nesting, mostly) are let go of after it. */
const KEEP_LEVELS = 2;

/** One level of nesting: its transducers, and its assemblers (`s` streams to `out`). */
interface Level {
  t?: Transducer;
  text?: Transducer;
  a: MessageAssembler;
  s: MessageAssembler;
  out: (bytes: Uint8Array) => void;
}

/**
 * Transforms bare JSON values, given as pieces (each let go of once fed). A transducer and an
 * assembler per level are kept for the next value (a message may hold many small deferred
 * values). The result streams to `into` when it is a function (an assembler that holds only
 * what its own deferrals need); else a small one is appended to `into`, a large one returned as
 * pieces.
 */
export class ValueTransformer {
  // Per level: a transducer for JSON values, one for strings known not to be data: URIs (each
  // made when first needed; it holds WASM memory only while it reads), and the assemblers they
  // share: one that holds the result, one that streams it.
  private readonly levels: Level[] = [];

  constructor(
    private readonly job: TransducerJob,
    private readonly messageNumber: () => number,
  ) {}

  transform(pieces: (Uint8Array | undefined)[], into: ValueOutput, level: number, text: boolean): Uint8Array[] | null {
    const messageNumber = this.messageNumber();
    if (level > MAX_DEFERRED_NESTING) {
      throw new PayloadStreamError(
        'too-deep',
        `"data" values before their "type" nested more than ${MAX_DEFERRED_NESTING} deep`,
        messageNumber,
        0,
      );
    }
    this.levels[level - 1] ??= this.level(level);
    const l = this.levels[level - 1]!;
    const streamed = typeof into === 'function';
    if (streamed) l.out = into;
    const a = streamed ? l.s : l.a;
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
      if (level === 1) this.trim(KEEP_LEVELS);
    }
    if (!streamed) return a.endInto(messageNumber, into);
    a.end(messageNumber);
    return null;
  }

  private level(level: number): Level {
    const transformValue = (inner: (Uint8Array | undefined)[], into: ValueOutput, text: boolean) =>
      this.transform(inner, into, level + 1, text);
    const l: Level = {
      a: new MessageAssembler({ holdAll: true, emit: () => {}, transformValue }),
      s: new MessageAssembler({ holdAll: false, emit: (b) => l.out(b), transformValue }),
      out: () => {},
    };
    return l;
  }

  release(): void {
    this.trim(0);
  }

  /** Lets go of the levels past the first `keep` (each holds its assemblers' first chunks, up to 64 KiB each). */
  private trim(keep: number): void {
    for (let i = keep; i < this.levels.length; i++) {
      const { t, text } = this.levels[i]!;
      t?.release();
      text?.release();
    }
    if (this.levels.length > keep) this.levels.length = keep;
  }
}
