// Node's Buffer where there is one (never imported: the root and ./stream entries stay free of
// Node built-ins for browsers). Its native helpers beat what plain JS and typed arrays offer.

interface BufferLike {
  byteLength(s: string, encoding: 'utf8'): number;
  /** A Buffer over the whole of `b` (no copy). */
  from(b: ArrayBuffer): Uint8Array;
  /**
   * Its methods; `indexOf` takes any Uint8Array as `this` (Node checks for an ArrayBufferView).
   * `ucs2Write` and `ucs2Slice` are Node's and Bun's undocumented UTF-16 helpers: test for them.
   */
  readonly prototype: {
    indexOf(this: Uint8Array, byte: number, from: number): number;
    ucs2Write?: unknown;
    ucs2Slice?: unknown;
  };
}

export const NodeBuffer: BufferLike | undefined = (globalThis as { Buffer?: BufferLike }).Buffer;
