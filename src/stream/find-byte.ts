// Finding a delimiter byte in a chunk. Node's Buffer#indexOf is memchr (about 30 GB/s here);
// Uint8Array#indexOf is a plain loop (about 2 GB/s), which cost a stream a tenth of its time.
// Browsers have no Buffer and get the plain loop.
import { NodeBuffer } from '../util/node-buffer.js';

type Finder = (byte: number, from: number) => number;

/** A search function over `chunk` (make one per chunk, call it per delimiter). */
export function byteFinder(chunk: Uint8Array): Finder {
  if (NodeBuffer && chunk.length >= 256) {
    const view = NodeBuffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    return (byte, from) => view.indexOf(byte, from);
  }
  return (byte, from) => chunk.indexOf(byte, from);
}
