// The exported functions of a WASM module with their signatures, read from the module's own
// sections (type, import, function, export): a small parse of the binary format, enough for
// test/abi.test.ts to hold the core to the host's declared interface.

export interface Signature {
  params: string[];
  results: string[];
}

const VALUE_TYPES: Record<number, string> = { 127: 'i32', 126: 'i64', 125: 'f32', 124: 'f64', 123: 'v128' };

/** Each exported function's name and signature. */
export function exportedFunctions(bytes: Uint8Array): Map<string, Signature> {
  let at = 8; // (magic and version)
  const u32 = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
  };
  const name = () => {
    const n = u32();
    at += n;
    return new TextDecoder().decode(bytes.subarray(at - n, at));
  };
  const vector = <T>(item: () => T): T[] => Array.from({ length: u32() }, item);
  const valueType = () => VALUE_TYPES[bytes[at++]!] ?? 'other';
  const types: Signature[] = [];
  const functions: number[] = []; // type index of each function, imported ones first
  const exports = new Map<string, Signature>();
  while (at < bytes.length) {
    const id = bytes[at++]!;
    const size = u32();
    const end = at + size;
    if (id === 1) {
      for (const t of vector(() => {
        if (bytes[at++] !== 0x60) throw new Error('wasm-signatures: a type that is not a function type');
        return { params: vector(valueType), results: vector(valueType) };
      }))
        types.push(t);
    } else if (id === 2) {
      vector(() => {
        name();
        name();
        const kind = bytes[at++]!;
        if (kind === 0) functions.push(u32());
        else throw new Error('wasm-signatures: an import other than a function'); // (the core imports nothing)
      });
    } else if (id === 3) functions.push(...vector(u32));
    else if (id === 7) {
      vector(() => {
        const n = name();
        const kind = bytes[at++]!;
        const index = u32();
        if (kind === 0) exports.set(n, types[functions[index]!]!);
      });
    }
    at = end;
  }
  return exports;
}
