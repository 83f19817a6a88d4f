// The header block of a Content-Length frame (the LSP base protocol's header part): lines of
// `name: value`, each ended by LF or CRLF, then a blank line; the body is the next
// Content-Length bytes. A block that parsers could read differently is refused: two
// Content-Length headers (even equal ones), a bare CR, or LF and CRLF line endings mixed (a
// CRLF-only parser would read other lines). A line is a Content-Length header when it matches
// `content-length[ \t]*:` (ASCII case ignored), and its value must be `[ \t]*\d+[ \t]*` to the
// line's end (before its CR, if CRLF). Read byte by byte: no text decoded, no regular
// expression run, per message. Pure: bytes in, what they are out; the framer decides the rest.

/** The longest header block looked for; its blank line may end up to 4 bytes past it. */
export const MAX_HEADER_BYTES = 64 * 1024;
/** `read`: the block's blank line has not come yet (and still may, within MAX_HEADER_BYTES). */
export const NEED_MORE = -1;
/** `read`: the block is refused (`refusal` says why). */
export const REFUSED = -2;

const latin1 = new TextDecoder('latin1');
const NAME = [0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x6c, 0x65, 0x6e, 0x67, 0x74, 0x68]; // 'content-length'
const isBlank = (c: number | undefined) => c === 0x20 || c === 0x09;
/** Whether byte c is NAME's k-th byte in either ASCII case (only letters fold: `\r | 0x20` is `-`). */
const nameByte = (c: number, k: number) => c === NAME[k] || (NAME[k]! >= 0x61 && c === NAME[k]! - 0x20);

/** Why a block is refused: the stream error's code, its reason, and the byte of the block it names. */
export interface Refusal {
  code: 'framing' | 'too-large';
  reason: string;
  byteOffset: number;
}
const TOO_LARGE: Refusal = { code: 'too-large', reason: 'header block too large', byteOffset: MAX_HEADER_BYTES };
const refused = (reason: string): Refusal => ({ code: 'framing', reason, byteOffset: 0 });
const BARE_CR = refused('a bare CR in the header block (ambiguous)');
const MIXED = refused('LF and CRLF line endings mixed in the header block (ambiguous)');
const TWO = refused('more than one Content-Length header (ambiguous)');
const NONE = refused('no valid Content-Length header');

/**
 * Reads header blocks; what it read last is in its fields (one reader per stream: nothing is
 * made per message).
 */
export class HeaderReader {
  /** The body's length the last block read gives, and where its digits are (offsets in the bytes read). */
  bodyLength = 0;
  digitsStart = 0;
  digitsEnd = 0;
  /** Why the last block was refused. */
  refusal: Refusal = NONE;
  // What `digitsAt` read: the digits' span and their sum as a number (exact to 15 digits).
  private valueStart = 0;
  private valueEnd = 0;
  private value = 0;

  /**
   * The header block at b[start, limit): where it ends (just past its blank line), with
   * `bodyLength` and the digits' span set; NEED_MORE; or REFUSED. Bytes before `searched` were
   * searched for the blank line already (a block gathered across chunks); the usual block is
   * read in one pass only at the first look.
   */
  read(b: Uint8Array, start: number, limit: number, searched = start): number {
    if (searched === start) {
      const end = this.usual(b, start, limit);
      if (end >= 0) return end;
    }
    const end = blockEnd(b, start, Math.min(limit, start + MAX_HEADER_BYTES + 4), searched);
    if (end < 0) {
      if (limit - start <= MAX_HEADER_BYTES) return NEED_MORE;
      this.refusal = TOO_LARGE;
      return REFUSED;
    }
    return this.block(b, start, end) ? end : REFUSED;
  }

  /**
   * The usual block, read in one pass: `Content-Length` (ASCII case ignored), blanks, ':',
   * blanks, at most 15 digits, blanks, then CRLF CRLF or LF LF, all in b before `limit` and
   * within MAX_HEADER_BYTES and 4 (as far as `blockEnd` looks). Its end, or -1 (then
   * `blockEnd` and `block` decide, as for any block): such a block is what they read it to be.
   */
  private usual(b: Uint8Array, at: number, limit: number): number {
    limit = Math.min(limit, at + MAX_HEADER_BYTES + 4);
    const colon = nameAndColon(b, at, limit);
    const i = colon < 0 ? -1 : this.digitsAt(b, colon, limit);
    if (i < 0 || this.valueEnd - this.valueStart > 15) return -1;
    let end: number;
    if (b[i] === 0x0d) {
      if (b[i + 1] !== 0x0a || b[i + 2] !== 0x0d || b[i + 3] !== 0x0a) return -1;
      end = i + 4;
    } else {
      if (b[i] !== 0x0a || b[i + 1] !== 0x0a) return -1;
      end = i + 2;
    }
    if (end > limit) return -1;
    this.digitsStart = this.valueStart;
    this.digitsEnd = this.valueEnd;
    this.bodyLength = this.value;
    return end;
  }

  /** Reads the whole block b[start, end): true with the fields set, or false with `refusal` set. */
  private block(b: Uint8Array, start: number, end: number): boolean {
    let crlf = 0;
    let lf = 0;
    for (let i = start; i < end; i++) {
      if (b[i] === 0x0d) {
        if (b[i + 1] !== 0x0a || i + 1 >= end) return this.refuse(BARE_CR);
      } else if (b[i] === 0x0a) {
        lf++;
        if (i > start && b[i - 1] === 0x0d) crlf++;
      }
    }
    if (crlf !== 0 && crlf !== lf) return this.refuse(MIXED);
    // Every CR now ends a line with the LF after it.
    let names = 0;
    let found = false;
    for (let at = start; at < end; ) {
      let lineEnd = b.indexOf(0x0a, at);
      const next = lineEnd + 1;
      if (lineEnd > at && b[lineEnd - 1] === 0x0d) lineEnd--;
      const colon = nameAndColon(b, at, lineEnd);
      at = next;
      if (colon < 0) continue;
      if (++names > 1) return this.refuse(TWO);
      if (this.digitsAt(b, colon, lineEnd) !== lineEnd) continue;
      found = true;
      this.digitsStart = this.valueStart;
      this.digitsEnd = this.valueEnd;
      // (Past 15 digits a sum of digits is not the nearest double: read as text.)
      this.bodyLength =
        this.valueEnd - this.valueStart <= 15 ? this.value : Number(latin1.decode(b.subarray(this.valueStart, this.valueEnd)));
    }
    return found || this.refuse(NONE);
  }

  private refuse(why: Refusal): false {
    this.refusal = why;
    return false;
  }

  /** `[ \t]*\d+[ \t]*` at b[i], before `limit`: the index after it, with the value's fields set, or -1. */
  private digitsAt(b: Uint8Array, i: number, limit: number): number {
    while (i < limit && isBlank(b[i])) i++;
    this.valueStart = i;
    let n = 0;
    while (i < limit && b[i]! >= 0x30 && b[i]! <= 0x39) n = n * 10 + b[i++]! - 0x30;
    this.valueEnd = i;
    this.value = n;
    if (i === this.valueStart) return -1;
    while (i < limit && isBlank(b[i])) i++;
    return i;
  }
}

/**
 * Where the header block in b[start, length) ends (just past its blank line), or -1; bytes
 * before `from` were searched.
 */
function blockEnd(b: Uint8Array, start: number, length: number, from: number): number {
  for (let i = Math.max(start, from - 2); i < length; i++) {
    if (b[i] !== 0x0a) continue;
    if (b[i + 1] === 0x0a && i + 1 < length) return i + 2;
    if (b[i + 1] === 0x0d && b[i + 2] === 0x0a && i + 2 < length) return i + 3;
  }
  return -1;
}

/**
 * `content-length[ \t]*:` (the name in any ASCII case) at b[i], before `limit`: the index after
 * the colon, or -1.
 */
function nameAndColon(b: Uint8Array, i: number, limit: number): number {
  for (let k = 0; k < NAME.length; k++, i++) if (i >= limit || !nameByte(b[i]!, k)) return -1;
  while (i < limit && isBlank(b[i])) i++;
  return i < limit && b[i] === 0x3a ? i + 1 : -1;
}

/** ASCII digits of n (a safe integer), in a buffer reused for the next (`emit` copies them). */
const lengthDigits = new Uint8Array(16);
function digits(n: number): Uint8Array {
  let i = lengthDigits.length;
  do {
    lengthDigits[--i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  } while (n > 0);
  return lengthDigits.subarray(i);
}

/** Writes the header block b[start, end) with its Content-Length digits, b[digitsStart, digitsEnd), now `length`. */
export function writeHeader(
  emit: (bytes: Uint8Array) => void,
  b: Uint8Array,
  start: number,
  digitsStart: number,
  digitsEnd: number,
  end: number,
  length: number,
): void {
  emit(b.subarray(start, digitsStart));
  emit(digits(length));
  emit(b.subarray(digitsEnd, end));
}
