// Content-Length framing (LSP-style base protocol, HTTP bodies): a header block, a blank line,
// then exactly Content-Length BYTES of body. The body is transformed on the fly; its new length
// is only known at its end, so the transformed body is held until then and the header block is
// written with Content-Length recomputed (every other header, and the line endings, kept).
import { latin1Bytes } from '../text-util.js';
import type { Framer } from './framer.js';
import type { MessagePipe } from './pipe.js';
import { PayloadStreamError } from './transducer.js';

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

export function contentLengthFramer(pipe: MessagePipe, emit: (b: Uint8Array) => void): Framer {
  const body: Uint8Array[] = [];
  let header = new Uint8Array(1024);
  let headerLength = 0;
  let headerText = '';
  let remaining = -1; // body bytes still expected; -1 while reading headers
  let messageNumber = 0;

  const endBody = () => {
    remaining = -1;
    const result = pipe.end();
    if (result === 'dropped' || result === 'invalid') {
      body.length = 0; // the whole message goes: no header, no body
      return;
    }
    const length = body.reduce((n, p) => n + p.length, 0);
    emit(latin1Bytes(headerText.replace(CONTENT_LENGTH, (_, name: string, _n, pad: string) => `${name}${length}${pad}`)));
    for (const p of body) emit(p);
    if (body.length) body.length = 0;
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
            if (headerLength > MAX_HEADER_BYTES) throw new PayloadStreamError('header block too large', messageNumber + 1, MAX_HEADER_BYTES);
            at += take;
            continue;
          }
          messageNumber++;
          headerText = latin1.decode(header.subarray(0, end));
          const match = CONTENT_LENGTH.exec(headerText);
          if (!match) throw new PayloadStreamError('no valid Content-Length header', messageNumber, 0);
          remaining = Number(match[2]);
          at += end - before;
          headerLength = 0;
          if (remaining === 0) endBody();
          continue;
        }
        const n = Math.min(remaining, chunk.length - at);
        pipe.feed(chunk.subarray(at, at + n));
        if (pipe.invalid && body.length) body.length = 0; // (skipped to its end, not held)
        remaining -= n;
        at += n;
        if (remaining === 0) endBody();
      }
    },
    close() {
      if (remaining > 0) {
        throw new PayloadStreamError(`Content-Length runs past the end of the stream (${remaining} bytes missing)`, messageNumber, pipe.offset);
      }
      if (headerLength > 0) throw new PayloadStreamError('the stream ends inside a header block', messageNumber + 1, headerLength);
    },
    output: (bytes) => body.push(bytes.slice()), // (a view, valid only for the call)
  };
}
