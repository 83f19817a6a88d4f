// Node's Buffer where there is one (never imported: the root and ./stream entries stay free of
// Node built-ins for browsers). Its native helpers beat what plain JS and typed arrays offer.

interface BufferLike {
  from(b: ArrayBufferLike, offset: number, length: number): Uint8Array & { indexOf(byte: number, from: number): number };
  byteLength(s: string, encoding: 'utf8'): number;
  allocUnsafeSlow(size: number): Uint8Array;
}

export const NodeBuffer: BufferLike | undefined = (globalThis as { Buffer?: BufferLike }).Buffer;

/** Below this a fresh array costs too little for skipping its zeroing to matter. */
const UNZEROED_FROM = 1024;

/**
 * A Uint8Array of exactly n bytes with an ArrayBuffer of its own, not zeroed where Node can skip
 * that (output chunks: zeroing what is then copied over cost a third of making them). The caller
 * writes every byte before anyone can read it: the old bytes of the process's memory are in it.
 */
export function unzeroed(n: number): Uint8Array {
  if (!NodeBuffer || n < UNZEROED_FROM) return new Uint8Array(n);
  const b = NodeBuffer.allocUnsafeSlow(n); // (its own ArrayBuffer, of n bytes)
  return new Uint8Array(b.buffer, b.byteOffset, n);
}
