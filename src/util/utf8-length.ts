// The UTF-8 length of a string without encoding it (a report's byte offset, an answer's size).
import { NodeBuffer } from './node-buffer.js';

const encoder = new TextEncoder();
const scratch = new Uint8Array(64 * 1024);

/**
 * UTF-8 length of s[0, end); a lone surrogate counts 3 bytes, as an encoder writes U+FFFD.
 * Long prefixes are measured natively (a JS loop ran at a third of the speed of the search).
 */
export function utf8Length(s: string, end = s.length): number {
  if (end > 256) {
    const prefix = s.slice(0, end);
    if (NodeBuffer) return NodeBuffer.byteLength(prefix, 'utf8');
    let n = 0;
    for (let at = 0; at < end; ) {
      const { read, written } = encoder.encodeInto(at === 0 ? prefix : prefix.slice(at), scratch);
      at += read;
      n += written;
    }
    return n;
  }
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
