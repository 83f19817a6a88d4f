// Writes a compiled codec into WASM memory: the descriptor the core reads (field offsets
// match assembly/layout.ts) and the tables it points to.
import type { Automaton } from '../automaton.js';
import { latin1Bytes, lowerAscii } from '../text-util.js';
import { allocate, heap, heap32 } from './memory.js';

const D = {
  trans: 0, classes: 4, accept: 8, classCount: 12, teddy: 16, prefix: 20, prefixLength: 24,
  prefixOut: 28, suffix: 32, suffixLength: 36, hex: 40, widen: 44, matches: 48,
  grams: 56, gramMask: 60,
} as const;
const DESCRIPTOR_SIZE = 64;


function place(data: Uint8Array): number {
  const ptr = allocate(data.length);
  heap().set(data, ptr);
  return ptr;
}

export interface Descriptor {
  readonly ptr: number;
  /** Matches (encoding) or tokens (decoding) found by the last call. */
  matchCount(): number;
}

export function writeDescriptor(a: Automaton, prefix: string, suffix: string, hexDigits: string, widen: number): Descriptor {
  const ptr = allocate(DESCRIPTOR_SIZE);
  const fields: [number, number][] = [
    [D.trans, place(new Uint8Array(a.transitions.buffer, a.transitions.byteOffset, a.transitions.byteLength))],
    [D.classes, place(a.classes)],
    [D.accept, place(a.accepting)],
    [D.classCount, a.classCount],
    [D.teddy, place(a.teddy)],
    [D.prefix, place(latin1Bytes(lowerAscii(prefix)))],
    [D.prefixLength, prefix.length],
    [D.prefixOut, place(latin1Bytes(prefix))],
    [D.suffix, place(latin1Bytes(suffix))],
    [D.suffixLength, suffix.length],
    [D.hex, place(latin1Bytes(hexDigits))],
    [D.widen, widen],
    [D.grams, place(a.grams)],
    [D.gramMask, a.gramMask],
  ];
  for (const [offset, value] of fields) heap32()[(ptr + offset) >> 2] = value;
  const read = (offset: number) => heap32()[(ptr + offset) >> 2]!;
  return { ptr, matchCount: () => read(D.matches) };
}
