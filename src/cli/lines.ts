import { concat } from '../util/concat.js';

// Splits a byte stream into lines for the CLI's guard. `keep` decides, from a line's first
// bytes (all of a short line), whether it is worth holding whole (tool lists are; screenshots
// are not) and passing on.

const HEAD = 512;

export class LineSplitter {
  private parts: Uint8Array[] = [];
  private length = 0;
  private keeping = true;
  private decided = false; // keep() was asked for this line

  constructor(
    private readonly onLine: (line: Uint8Array) => void,
    private readonly keep: (head: Uint8Array) => boolean = () => true,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      if (end > start) this.add(chunk.subarray(start, end));
      if (nl < 0) return;
      this.finishLine();
      start = nl + 1;
    }
  }

  /** The input ended: a last line without '\n' is a line too. */
  end(): void {
    this.finishLine();
  }

  private finishLine(): void {
    if (this.keeping && this.length > 0) {
      const line = concat(this.parts);
      // A line shorter than the head was never asked about: asked now, on all of it (the
      // guard then parses no small answer it has no use for).
      if (this.decided || this.keep(line)) this.onLine(line);
    }
    this.parts = [];
    this.length = 0;
    this.keeping = true;
    this.decided = false;
  }

  private add(piece: Uint8Array): void {
    if (!this.keeping) return;
    this.parts.push(piece.slice());
    this.length += piece.length;
    // Asked once per line, when its head is in: asking again per chunk would re-join it each time.
    if (!this.decided && this.length >= HEAD) {
      this.decided = true;
      if (!this.keep(concat(this.parts).subarray(0, HEAD))) {
        this.keeping = false;
        this.parts = [];
      }
    }
  }
}
