// Writes a byte stream to a Node stream and slips whole lines (error replies) in only between
// lines, so a reply never lands inside a message that is still being written.
import type { Writable } from 'node:stream';

export class LineWriter {
  private atLineStart = true;
  private readonly replies: Uint8Array[] = [];
  ready = true;

  constructor(private readonly out: Writable) {}

  write(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.ready = this.out.write(bytes) && this.ready;
    this.atLineStart = bytes[bytes.length - 1] === 0x0a;
    if (this.atLineStart) this.flushReplies();
  }

  /** A whole line (ending in '\n'), written as soon as the output is between lines. */
  reply(line: Uint8Array): void {
    this.replies.push(line);
    if (this.atLineStart) this.flushReplies();
  }

  private flushReplies(): void {
    for (const line of this.replies.splice(0)) this.ready = this.out.write(line) && this.ready;
  }

  /** Resolves once the stream has room again. */
  drained(): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve) =>
      this.out.once('drain', () => {
        this.ready = true;
        resolve();
      }),
    );
  }

  /** Writes pending replies (on a line of their own) and waits until everything is flushed. */
  end(): Promise<void> {
    if (this.replies.length && !this.atLineStart) this.write(new Uint8Array([0x0a]));
    this.flushReplies();
    return new Promise((resolve) => this.out.write(new Uint8Array(0), () => resolve()));
  }
}
