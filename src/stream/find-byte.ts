// Finding a delimiter byte in a chunk. Node's Buffer#indexOf is memchr (about 30 GB/s here);
// Uint8Array#indexOf is a plain loop (about 2 GB/s), which cost a stream a tenth of its time.
// Browsers have no Buffer and get the plain loop.
import { NodeBuffer } from '../util/node-buffer.js';

type Finder = (byte: number, from: number) => number;

/** `chunk` as searched: a Buffer over it where memchr pays (its indexOf is Uint8Array's). */
export function searchView(chunk: Uint8Array): Uint8Array {
  return NodeBuffer && chunk.length >= 256 ? NodeBuffer.from(chunk.buffer, chunk.byteOffset, chunk.length) : chunk;
}

/** A search function over `chunk` (make one per chunk, call it per delimiter). */
export function byteFinder(chunk: Uint8Array): Finder {
  const view = searchView(chunk);
  return (byte, from) => view.indexOf(byte, from);
}
