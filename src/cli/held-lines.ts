// Holds the encoder's output line by line until each line is complete, so a line the encoder
// finds invalid part-way (a server's `{'debug': 1}`) can be taken back before the client sees
// any of it. A line longer than `limit` is not held whole (that would cost its size in
// memory): past the limit it streams out, and if it then turns out invalid, the client gets
// it cut short and spoiled by the encoder so that no JSON parser accepts it.
import { concat } from '../util/concat.js';

const NEWLINE = 0x0a;

function lastNewline(b: Uint8Array): number {
  // The encoder's output of a push usually ends a line: no Buffer view to make then.
  if (b[b.length - 1] === NEWLINE) return b.length - 1;
  return Buffer.from(b.buffer, b.byteOffset, b.length).lastIndexOf(NEWLINE); // (memrchr)
}

export class HeldLines {
  private parts: Uint8Array[] = [];
  private length = 0;
  private streaming = false; // the current line outgrew the limit: its bytes go straight out
  private skipping = false; // the rest of a taken-back line, up to its '\n'

  constructor(
    private readonly out: (bytes: Uint8Array) => void,
    private readonly limit: number,
  ) {}

  write(b: Uint8Array): void {
    if (this.skipping || this.streaming) {
      const nl = b.indexOf(NEWLINE);
      if (this.streaming) this.out(nl < 0 ? b : b.subarray(0, nl + 1));
      if (nl < 0) return;
      this.skipping = this.streaming = false;
      b = b.subarray(nl + 1);
    }
    if (b.length === 0) return;
    const last = lastNewline(b);
    if (last < 0) {
      this.hold(b);
      return;
    }
    // Up to the last '\n' are whole lines: out in one write.
    const whole = b.subarray(0, last + 1);
    this.out(this.length ? concat([...this.parts, whole]) : whole);
    this.reset();
    if (last + 1 < b.length) this.hold(b.subarray(last + 1));
  }

  /**
   * The line being written is invalid. Returns 'held' if none of it had gone out (it never
   * will), 'streamed' if part of it had (the rest, to its '\n', still goes), or 'none' if
   * nothing of it was written.
   */
  takeBack(): 'held' | 'streamed' | 'none' {
    if (this.streaming) return 'streamed';
    if (this.length === 0) return 'none';
    this.reset();
    this.skipping = true; // the encoder still ends the line with '\n'
    return 'held';
  }

  /** The output ended: a last line without '\n' goes out. */
  end(): void {
    if (this.length) this.out(concat(this.parts));
    this.reset();
  }

  private hold(piece: Uint8Array): void {
    this.parts.push(piece);
    this.length += piece.length;
    if (this.length > this.limit) {
      this.out(concat(this.parts));
      this.reset();
      this.streaming = true;
    }
  }

  private reset(): void {
    this.parts = [];
    this.length = 0;
  }
}
