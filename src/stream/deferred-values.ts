// Deferred `data` values that turned out not to be image/audio data, transformed on their own
// as bare JSON values (the assembler hands them over as pieces). Such values nested in each
// other are transformed level by level, so their nesting is bounded.
import { MessageAssembler } from './assembler.js';
import type { HeldBytes } from './held-bytes.js';
import { PayloadStreamError } from './stream-error.js';
import { Transducer, type TransducerJob } from './transducer.js';

/** `data` values seen before their `type`, nested in each other, deeper than this are refused. */
const MAX_DEFERRED_NESTING = 32;

/**
 * Transforms bare JSON values, given as pieces (each let go of once fed). A transducer and an
 * assembler per level are kept for the next value (a message may hold many small deferred
 * values). A small result is appended to `into`; a large one is returned as pieces.
 */
export class ValueTransformer {
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
