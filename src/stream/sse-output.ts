// What an SSE stream writes, with one repair: dropping the data lines of a refused event must
// not join a CR that ended the line before them with the LF of the line after them (one CRLF:
// the event would not end there), so such a CR gets a CR of its own.
import { CR, LF } from './sse-lines.js';

const CR_ONLY = new Uint8Array([CR]);

export class SseOutput {
  /** Lines were dropped since the last bytes written. */
  dropped = false;
  private lastCR = false;

  constructor(private readonly write: (b: Uint8Array) => void) {}

  /** Writes b (a view, valid only for the call). */
  readonly emit = (b: Uint8Array): void => {
    if (b.length === 0) return;
    if (this.dropped && this.lastCR && b[0] === LF) this.write(CR_ONLY);
    this.dropped = false;
    this.lastCR = b[b.length - 1] === CR;
    this.write(b);
  };
}
