// Content-Length framing (LSP-style base protocol, HTTP bodies): a header block, a blank line,
// then exactly Content-Length BYTES of body. The body is transformed on the fly; its new length
// is only known at its end, so the transformed body is held until then (once, in blocks of at
// most 1 MiB, which are also the pieces written out) and the header block is written with
// Content-Length recomputed (every other header, and the line endings, kept). A header block
// that parsers could read differently is refused: two Content-Length headers (even equal ones),
// a bare CR, or LF and CRLF line endings mixed (a CRLF-only parser would read other lines).
import type { Framer } from './framer.js';
import { HeldBytes } from './held-bytes.js';
import type { MessagePipe } from './pipe.js';
import { PayloadStreamError } from './stream-error.js';

const MAX_HEADER_BYTES = 64 * 1024;
const HEADER_STEP = 256;
const latin1 = new TextDecoder('latin1');

/** Where the header block ends (just past its blank line), or -1; bytes before `from` were searched. */
function headerEnd(b: Uint8Array, length: number, from: number): number {
  for (let i = Math.max(0, from - 2); i < length; i++) {
    if (b[i] !== 0x0a) continue;
    if (b[i + 1] === 0x0a && i + 1 < length) return i + 2;
    if (b[i + 1] === 0x0d && b[i + 2] === 0x0a && i + 2 < length) return i + 3;
  }
  return -1;
}

const CONTENT_LENGTH = /^(content-length[ \t]*:[ \t]*)(\d+)([ \t]*)$/im;
const CONTENT_LENGTH_NAME = /^content-length[ \t]*:/gim;

/** Why a header block (its bytes, up to its end) is ambiguous, or null. */
function ambiguity(b: Uint8Array, end: number, text: string): string | null {
  let crlf = 0;
  let lf = 0;
  for (let i = 0; i < end; i++) {
    if (b[i] === 0x0d) {
      if (b[i + 1] !== 0x0a || i + 1 >= end) return 'a bare CR in the header block (ambiguous)';
    } else if (b[i] === 0x0a) {
      lf++;
      if (i > 0 && b[i - 1] === 0x0d) crlf++;
    }
  }
  if (crlf !== 0 && crlf !== lf) return 'LF and CRLF line endings mixed in the header block (ambiguous)';
  CONTENT_LENGTH_NAME.lastIndex = 0;
  if (CONTENT_LENGTH_NAME.exec(text) && CONTENT_LENGTH_NAME.exec(text)) return 'more than one Content-Length header (ambiguous)';
  return null;
}

/** ASCII digits of n. */
function digits(n: number): Uint8Array {
  const s = String(n);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export function contentLengthFramer(pipe: MessagePipe, emit: (b: Uint8Array) => void): Framer {
  const body = new HeldBytes(); // the transformed body, held until its new length is known
  let skipping = false; // a body over maxMessageBytes, refused: skipped, never held
  let header = new Uint8Array(1024);
  let headerLength = 0;
  // The header block of the message being read stays in `header` until its body ends: where
  // its Content-Length digits are, and where it ends.
  let digitsStart = 0;
  let digitsEnd = 0;
  let blockEnd = 0;
  let remaining = -1; // body bytes still expected; -1 while reading headers
  let messageNumber = 0;

  const endBody = () => {
    remaining = -1;
    const result = pipe.end();
    if (result === 'dropped' || result === 'invalid') {
      body.reset(); // the whole message goes: no header, no body
      return;
    }
    const length = body.length;
    emit(header.subarray(0, digitsStart));
    emit(digits(length));
    emit(header.subarray(digitsEnd, blockEnd));
    body.drain(emit);
  };

  return {
    push(chunk) {
      let at = 0;
      while (at < chunk.length) {
        if (remaining < 0) {
          // Headers: accumulate until the blank line, a little at a time (header blocks are
          // short; copying the rest of a large chunk per message would cost more than its body).
          const take = Math.min(chunk.length - at, HEADER_STEP, MAX_HEADER_BYTES + 4 - headerLength);
          if (headerLength + take > header.length) {
            const grown = new Uint8Array(Math.max(header.length * 2, headerLength + take));
            grown.set(header.subarray(0, headerLength));
            header = grown;
          }
          header.set(chunk.subarray(at, at + take), headerLength);
          const before = headerLength;
          headerLength += take;
          const end = headerEnd(header, headerLength, before);
          if (end < 0) {
            if (headerLength > MAX_HEADER_BYTES)
              throw new PayloadStreamError('too-large', 'header block too large', messageNumber + 1, MAX_HEADER_BYTES);
            at += take;
            continue;
          }
          messageNumber++;
          const headerText = latin1.decode(header.subarray(0, end));
          const ambiguous = ambiguity(header, end, headerText);
          if (ambiguous) throw new PayloadStreamError('framing', ambiguous, messageNumber, 0);
          const match = CONTENT_LENGTH.exec(headerText);
          if (!match) throw new PayloadStreamError('framing', 'no valid Content-Length header', messageNumber, 0);
          remaining = Number(match[2]);
          digitsStart = match.index + match[1]!.length;
          digitsEnd = digitsStart + match[2]!.length;
          blockEnd = end;
          at += end - before;
          headerLength = 0;
          if (remaining > pipe.maxMessageBytes) {
            pipe.reject('too-large', `message larger than maxMessageBytes (${pipe.maxMessageBytes})`, pipe.maxMessageBytes); // (throws unless onInvalidMessage takes it)
            skipping = true;
          }
          if (remaining === 0) endBody();
          continue;
        }
        const n = Math.min(remaining, chunk.length - at);
        remaining -= n;
        at += n;
        if (skipping) {
          if (remaining === 0) skipping = false;
          remaining = remaining === 0 ? -1 : remaining;
          continue;
        }
        pipe.feed(chunk.subarray(at - n, at));
        if (pipe.invalid && body.length) body.reset(); // (skipped to its end, not held)
        if (remaining === 0) endBody();
      }
    },
    close() {
      if (remaining > 0) {
        throw new PayloadStreamError(
          'incomplete',
          `Content-Length runs past the end of the stream (${remaining} bytes missing)`,
          messageNumber,
          pipe.offset,
        );
      }
      if (headerLength > 0)
        throw new PayloadStreamError('incomplete', 'the stream ends inside a header block', messageNumber + 1, headerLength);
    },
    output: (bytes) => body.push(bytes), // (a view, valid only for the call: copied)
  };
}
