// Finding a delimiter byte in a chunk. Node's Buffer#indexOf is memchr (about 30 GB/s here);
// Uint8Array#indexOf is a plain loop (about 2 GB/s), which cost a stream a tenth of its time.
// Browsers have no Buffer and get the plain loop. Every search here goes through indexOfByte.
import { NodeBuffer } from '../util/node-buffer.js';

const buffers = NodeBuffer?.prototype;

/**
 * Where `byte` is in `b` from `from`, or -1. Buffer's indexOf called on the Uint8Array itself
 * (Node takes any typed array there): memchr with no Buffer view made, which costs more than a
 * search of a few hundred bytes (a 200-byte SSE event: about 10 ns a search, against 70 for the
 * view and 90-120 for Uint8Array#indexOf). (Looked up per call: tests count what is searched.)
 */
export const indexOfByte: (b: Uint8Array, byte: number, from: number) => number = buffers
  ? (b, byte, from) => buffers.indexOf.call(b, byte, from)
  : (b, byte, from) => b.indexOf(byte, from);

type Finder = (byte: number, from: number) => number;

/** A search function over `chunk` (indexOfByte, bound to it). */
export function byteFinder(chunk: Uint8Array): Finder {
  return (byte, from) => indexOfByte(chunk, byte, from);
}
