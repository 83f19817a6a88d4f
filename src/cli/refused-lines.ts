// wrap and serve: a stdio peer's lines as they came (the client's, the server's), kept just long
// enough to read the ids of one the stream refuses (invalid UTF-8, nested too deep, ...), so
// the side waiting on it is answered instead of waiting for a timeout.
//
// Every byte of a peer passes here, so the usual push costs little: its lines are only counted
// (one native search per line, and a look at its first bytes); nothing is kept but the start of
// the line the push leaves unfinished, at most `limit` bytes of it (small pieces copied into
// blocks: a line written in tiny chunks would hold an object per chunk). Only when the stream
// refuses a message is the push's chunk read again, once, to find its lines.
//
// Lines are numbered as the stream numbers messages: blank lines (JSON whitespace only) are
// not counted, unless over maxMessageBytes (refused as too large before the stream can know
// they are blank). A refusal can come before its line ends (a bad byte early in a long line):
// it waits for the line, whose ids may come last (the SDK writes `id` after `params`), and is
// told as the line ends, before the stream sees the lines after it (the sender's order).

import { readLeniently } from '../codec/invalid-utf8.js';
import { type RefusalReplies, refusalCode, refusalReplies } from '../jsonrpc/message.js';
import { byteFinder } from '../stream/find-byte.js';
import type { PayloadStreamError } from '../stream/index.js';
import { concat } from '../util/concat.js';

const LF = 0x0a;
const CR = 0x0d;
const isJsonSpace = (c: number) => c === 0x20 || c === 0x09 || c === CR;
/** Small pieces of an unfinished line are copied into blocks of this size. */
const BLOCK = 4096;

/** Whether b[from, to) is JSON whitespace only (stops at the first byte that is not). */
function blank(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isJsonSpace(b[i]!)) return false;
  return true;
}

/** The unfinished line a push starts with (what earlier pushes left). */
interface Head {
  parts: Uint8Array[];
  length: number;
  blank: boolean;
  lastCR: boolean;
}

const emptyHead = (): Head => ({ parts: [], length: 0, blank: true, lastCR: false });

/** What to send for a line of `from` that the stream refused: the reason names the place, never the content. */
export const refusalOfLine = (from: 'client' | 'server', e: PayloadStreamError, line: Uint8Array | undefined): RefusalReplies =>
  refusalReplies(
    line && readLeniently(line),
    refusalCode(e.code),
    `message ${e.messageNumber} from the ${from} was refused (${e.reason} at byte ${e.byteOffset}) and not forwarded`,
  );

export class RefusedLines {
  /** Lines counted (as the stream counts messages) so far. */
  private count = 0;
  /** The line left unfinished by the pushes so far. */
  private head = emptyHead();
  /** The block the head's last part is a view of, while more small pieces may go into it. */
  private block: Uint8Array | undefined;
  private blockUsed = 0;
  /** The push under way: its chunk, the head it started with, and the count before it. */
  private chunk: Uint8Array | undefined;
  private chunkHead = emptyHead();
  private countBefore = 0;
  /** Its counted lines' bytes, made at the first refusal that needs them (undefined: too long). */
  private lines: (Uint8Array | undefined)[] | undefined;
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
    const nl = this.refused.size > 0 ? byteFinder(chunk)(LF, 0) : -1; // (after settle: only waiting ones)
    if (nl >= 0 && nl + 1 < chunk.length) {
      this.take(chunk.subarray(0, nl + 1), decode);
      chunk = chunk.subarray(nl + 1);
    }
    this.take(chunk, decode);
  }

  private take(chunk: Uint8Array, decode: (bytes: Uint8Array) => void): void {
    this.chunk = chunk;
    this.chunkHead = this.head;
    this.countBefore = this.count;
    this.lines = undefined;
    const rest = this.walk(chunk, this.head, () => this.count++);
    if (rest > 0) this.head = emptyHead();
    this.extend(chunk.subarray(rest));
    decode(chunk);
    this.settle();
    this.chunk = undefined;
    this.lines = undefined;
  }

  /**
   * The lines of `chunk` that end in it, the first one continuing `head`: `counted(start, end)`
   * is told where each that the stream counts lies (start -1: it began in `head`). Returns where
   * the unfinished rest starts. One native search per line and a look at its first bytes.
   */
  private walk(chunk: Uint8Array, head: Head, counted: (start: number, end: number) => void): number {
    const find = byteFinder(chunk);
    for (let start = 0, first = true; ; first = false) {
      const nl = find(LF, start);
      if (nl < 0) return start;
      const length = (first ? head.length : 0) + nl - start;
      const isBlank = (!first || head.blank) && blank(chunk, start, nl);
      const cr = nl > start ? chunk[nl - 1] === CR : first && head.lastCR;
      if (!isBlank || length - (cr ? 1 : 0) > this.maxMessageBytes) counted(first ? -1 : start, nl);
      start = nl + 1;
    }
  }

  /** The stream refused a message (called during its push): told now if its line has ended. */
  refuse(error: PayloadStreamError): void {
    this.refused.set(error.messageNumber, error);
    if (error.messageNumber <= this.count) this.settle();
  }

  /** Refusals whose lines have ended are told, with their bytes when this push holds them. */
  private settle(): void {
    for (const [n, error] of this.refused) {
      if (n > this.count) continue; // its line has not ended yet
      this.refused.delete(n);
      this.onRefused(error, this.lineOf(n));
    }
  }

  /** Counted line n's bytes, if it ended in this push and is within the limit. */
  private lineOf(n: number): Uint8Array | undefined {
    const chunk = this.chunk;
    if (!chunk || n <= this.countBefore) return undefined;
    if (!this.lines) {
      const head = this.chunkHead;
      const lines: (Uint8Array | undefined)[] = [];
      this.walk(chunk, head, (start, end) => {
        const length = start < 0 ? head.length + end : end - start;
        if (length > this.limit) lines.push(undefined);
        else lines.push(start < 0 ? concat([...head.parts, chunk.subarray(0, end)]) : chunk.subarray(start, end));
      });
      this.lines = lines;
    }
    return this.lines[n - this.countBefore - 1];
  }

  /** The peer's output ended: a last line without '\n' is a line too. */
  end(): void {
    const head = this.head;
    this.head = emptyHead();
    if (!head.blank || head.length > this.maxMessageBytes) {
      this.count++;
      this.chunk = new Uint8Array(0);
      this.countBefore = this.count - 1;
      this.lines = [head.length <= this.limit ? concat(head.parts) : undefined];
    }
    this.settle();
    for (const [n, error] of this.refused) {
      this.refused.delete(n);
      this.onRefused(error, undefined);
    }
    this.chunk = undefined;
    this.lines = undefined;
  }

  /** Adds what the push left unfinished to the head line (within the limit). */
  private extend(piece: Uint8Array): void {
    if (piece.length === 0) return;
    const head = this.head;
    if (head.blank && !blank(piece, 0, piece.length)) head.blank = false;
    head.lastCR = piece[piece.length - 1] === CR;
    head.length += piece.length;
    if (head.length > this.limit) {
      head.parts = [];
      this.block = undefined;
    } else if (head.parts.length === 0 || piece.length >= BLOCK) {
      head.parts.push(piece);
      this.block = undefined;
    } else {
      if (!this.block || this.blockUsed + piece.length > BLOCK) {
        this.block = new Uint8Array(BLOCK);
        this.blockUsed = 0;
        head.parts.push(this.block.subarray(0, 0));
      }
      this.block.set(piece, this.blockUsed);
      this.blockUsed += piece.length;
      head.parts[head.parts.length - 1] = this.block.subarray(0, this.blockUsed);
    }
  }
}
