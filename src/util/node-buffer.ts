// Node's Buffer where there is one (never imported: the root and ./stream entries stay free of
// Node built-ins for browsers). Its native helpers beat what plain JS and typed arrays offer.

interface BufferLike {
  byteLength(s: string, encoding: 'utf8'): number;
  /** Its methods; `indexOf` takes any Uint8Array as `this` (Node checks for an ArrayBufferView). */
  readonly prototype: { indexOf(this: Uint8Array, byte: number, from: number): number };
}

export const NodeBuffer: BufferLike | undefined = (globalThis as { Buffer?: BufferLike }).Buffer;
