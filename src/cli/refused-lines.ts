// wrap and serve: a stdio peer's lines as they came (the client's, the server's), kept just long
// enough to read the ids of one the stream refuses (invalid UTF-8, nested too deep, ...), so
// the side waiting on it is answered instead of waiting for a timeout. Mostly references to
// the chunks are kept (a pipe never reuses them; small pieces of a long line are copied), a
// line at most `limit` bytes, and only until the push that ends it is through.
//
// Lines are numbered as the stream numbers messages: blank lines (JSON whitespace only) are
// not counted, unless over maxMessageBytes (refused as too large before the stream can know
// they are blank). A refusal can come before its line ends (a bad byte early in a long line):
// it waits for the line, whose ids may come last (the SDK writes `id` after `params`), and is
// told as the line ends, before the stream sees the lines after it (the sender's order).
import { concat } from '../concat.js';
import type { PayloadStreamError } from '../stream/index.js';

const isJsonSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d;
/**
 * A line's pieces after its first that are shorter than this are copied into blocks of this
 * size: a line written in tiny chunks held an object per chunk (1 MiB in 1-byte chunks: 110 MB).
 */
const BLOCK = 4096;

export class RefusedLines {
  /** Non-blank lines ended so far. */
  private count = 0;
  /** The line being read: its pieces (while within the limit), length, and whether all blank. */
  private parts: Uint8Array[] = [];
  private length = 0;
  private blank = true;
  /** The block the last piece is a view of, while more small pieces may go into it. */
  private block: Uint8Array | undefined;
  private blockUsed = 0;
  /** Whether the line read so far ends in '\r' (a CR before the '\n' is not counted as size). */
  private lastCR = false;
  /** Lines ended in this push, by number, as their pieces (undefined: too long to keep). */
  private readonly ended = new Map<number, Uint8Array[] | undefined>();
  private readonly refused = new Map<number, PayloadStreamError>();

  constructor(
    private readonly limit: number,
    /** The stream's maxMessageBytes. */
    private readonly maxMessageBytes: number,
    /** A refused message and its bytes (undefined when it was too long to keep). */
    private readonly onRefused: (error: PayloadStreamError, line: Uint8Array | undefined) => void,
  ) {}

  /**
   * Bytes from the peer, and `decode` (the stream's push) for them. A refusal waiting for its
   * line is told once the stream has that line's end, before it has the next line.
   */
  push(chunk: Uint8Array, decode: (bytes: Uint8Array) => void): void {
    const nl = this.refused.size > 0 ? chunk.indexOf(0x0a) : -1; // (after settle: only waiting ones)
    if (nl >= 0 && nl + 1 < chunk.length) {
      this.take(chunk.subarray(0, nl + 1), decode);
      chunk = chunk.subarray(nl + 1);
    }
    this.take(chunk, decode);
  }

  private take(chunk: Uint8Array, decode: (bytes: Uint8Array) => void): void {
    this.split(chunk);
    decode(chunk);
    this.settle();
  }

  /** Lines of `chunk`, before the stream sees them. */
  private split(chunk: Uint8Array): void {
    for (let start = 0; ; ) {
      const nl = chunk.indexOf(0x0a, start);
      this.add(chunk.subarray(start, nl < 0 ? chunk.length : nl));
      if (nl < 0) return;
      this.endLine(true);
      start = nl + 1;
    }
  }

  /** The stream refused a message (called during its push): told now if its line has ended. */
  refuse(error: PayloadStreamError): void {
    this.refused.set(error.messageNumber, error);
    if (error.messageNumber <= this.count) this.settle(false);
  }

  /** Refusals whose lines have ended are told; once the stream's push is through, ended lines go. */
  private settle(through = true): void {
    for (const [n, error] of this.refused) {
      if (n > this.count) continue; // its line has not ended yet
      this.refused.delete(n);
      const parts = this.ended.get(n);
      this.onRefused(error, parts && concat(parts));
    }
    if (through) this.ended.clear();
  }

  /** The peer's output ended: a last line without '\n' is a line too. */
  end(): void {
    this.endLine(false);
    this.settle();
    for (const [n, error] of this.refused) {
      this.refused.delete(n);
      this.onRefused(error, undefined);
    }
  }

  private add(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (this.blank) {
      let i = 0;
      while (i < piece.length && isJsonSpace(piece[i]!)) i++;
      if (i < piece.length) this.blank = false;
    }
    this.lastCR = piece[piece.length - 1] === 0x0d;
    this.length += piece.length;
    if (this.length <= this.limit) this.keep(piece);
    else {
      this.parts.length = 0;
      this.block = undefined;
    }
  }

  private keep(piece: Uint8Array): void {
    if (this.parts.length === 0 || piece.length >= BLOCK) {
      this.parts.push(piece);
      this.block = undefined;
      return;
    }
    if (!this.block || this.blockUsed + piece.length > BLOCK) {
      this.block = new Uint8Array(BLOCK);
      this.blockUsed = 0;
      this.parts.push(this.block.subarray(0, 0));
    }
    this.block.set(piece, this.blockUsed);
    this.blockUsed += piece.length;
    this.parts[this.parts.length - 1] = this.block.subarray(0, this.blockUsed);
  }

  /** `lf`: ended by '\n' (not by the end of the input). */
  private endLine(lf: boolean): void {
    if (!this.blank || this.length - (lf && this.lastCR ? 1 : 0) > this.maxMessageBytes) {
      this.count++;
      this.ended.set(this.count, this.length <= this.limit ? this.parts : undefined);
    }
    this.parts = [];
    this.block = undefined;
    this.length = 0;
    this.blank = true;
    this.lastCR = false;
  }
}
