// One event read as the core's batch may take it: its lines up to its blank line, its one data
// line's value, and whether the per-line way would hand it to the core whole (a message event
// within the limits). The batch (sse-batch.ts) reads events with it, and so does the read of a
// push that is one whole event (sse-whole.ts), so that both take the same events.
import { CR, dataValueAt, endingLength, eventValueAt, isDataLine, isEventLine, type LineEnds, namesMessage } from './sse-lines.js';

/** Most lines of an event the core's batch takes, its blank line included (the rest go the per-line way). */
export const BATCH_LINES = 64;

export class BatchEventReader {
  /** The data value's span of the event read last (-1: no data line). */
  valueStart = -1;
  valueEnd = -1;
  /** Where `read` stopped at an event cut by the chunk's end (-1: it did not), the start of its unfinished line, and how far that was searched. */
  readonly cut = { start: -1, line: 0, searched: 0 };

  constructor(private readonly ends: LineEnds) {}

  /**
   * Reads the event at chunk[p] (the chunk `ends` searches): its end (past its blank line), its
   * data's span in valueStart and valueEnd; or -1 if the batch stops before it (cut by the
   * chunk's end, noted in `cut`; too many lines, several data lines, another type, data or other
   * held lines over `max`). `crEnds`: a CR last in the chunk is no CRLF's.
   */
  read(chunk: Uint8Array, p: number, crEnds: boolean, max: number): number {
    const { ends } = this;
    const start = p;
    let valueStart = -1;
    let valueEnd = -1;
    let isMessage = true;
    let other = 0; // what the per-line way counts against the limit besides the data
    let lines = 0;
    for (;;) {
      const e = ends.next(p);
      if (e < 0 || (chunk[e] === CR && e + 1 === chunk.length && !crEnds)) {
        // Cut by the chunk's end (a CR last: CR or CRLF, the next chunk tells, unless known).
        this.cut.start = start;
        this.cut.line = p;
        this.cut.searched = e < 0 ? chunk.length : e;
        return -1;
      }
      if (++lines > BATCH_LINES) return -1;
      const ending = endingLength(chunk, e);
      const n = e - p;
      const next = e + ending;
      if (n === 0) {
        p = next;
        break; // the blank line: the event ends
      }
      if (isDataLine(chunk, p, n)) {
        if (valueStart >= 0) return -1; // several data lines
        const v = dataValueAt(chunk, p, n);
        valueStart = p + v;
        valueEnd = e;
        other += v + ending;
      } else {
        if (isEventLine(chunk, p, n)) {
          const v = eventValueAt(chunk, p, n);
          isMessage = namesMessage(chunk, p + v, n - v);
        }
        if (valueStart >= 0) other += n + ending; // (held after the data line)
      }
      p = next;
    }
    if (valueStart >= 0 && (!isMessage || valueEnd - valueStart > max || other > max)) return -1;
    this.valueStart = valueStart;
    this.valueEnd = valueEnd;
    return p;
  }
}
