// A compiled codec's tables in WASM memory: the descriptor the core reads (field offsets D_*
// from the core's abi.ts) and the tables it points to, in one block. The tables stay in JS
// too, so a block can be freed and placed again: only the most recently used few are resident,
// and every core call asks for `ptr` first, so a codec or stream in use always has its own.
// Memory stays flat however many codecs a process makes (the cache of compiled codecs in
// compiled.ts is bounded too).

import { type Dfa, walkTable } from '../compile/walk-table.js';
import { latin1Bytes, lowerAscii } from '../util/ascii.js';
import {
  D_ACCEPT_FROM,
  D_CLASSES,
  D_GRAM_MASK,
  D_GRAMS,
  D_HEX,
  D_MATCHES,
  D_PREFIX,
  D_PREFIX_LEN,
  D_PREFIX_OUT,
  D_QUOTE_FREE,
  D_RAW_ESCAPES,
  D_ROW_SHIFT,
  D_SERIAL,
  D_START,
  D_SUFFIX,
  D_SUFFIX_LEN,
  D_TEDDY,
  D_TEDDY_ASCII,
  D_TRANS,
  D_WIDEN,
  DESCRIPTOR_SIZE,
} from './abi.js';
import { allocate, free, heap, heap32 } from './memory.js';

/**
 * Descriptors kept in WASM memory at once; the least recently used beyond them is freed. As
 * many as codecs are cached (compiled.ts MAX_COMPILED), so codecs taking turns do not copy their
 * tables in on every call.
 */
const MAX_RESIDENT = 16;

/** The tables of a term set (the compiler, src/compile/, fills them); the core walks the DFA as walk-table.ts lays it out. */
export interface CoreTables extends Dfa {
  readonly classes: Uint8Array; // 256 entries: byte -> class
  readonly teddy: Uint8Array; // 4 positions x (16 low-nibble + 16 high-nibble masks)
  /** The same for fingerprints whose four bytes are ASCII (fold 'nfkc'); absent: `teddy` serves. */
  readonly teddyAscii?: Uint8Array;
  readonly grams: Uint8Array; // 32768-bit set of hashed folded pattern starts
  readonly gramMask: number; // which of the 4 loaded bytes the hash uses
}

export interface Descriptor {
  /** Its address in WASM memory, placing it there first if it is not resident. */
  readonly ptr: number;
  /** Matches (encoding) or tokens (decoding) found by the last call. */
  matchCount(): number;
}

const align = (n: number) => (n + 15) & ~15;

/** Resident descriptors, least recently used first. */
const resident: TableSet[] = [];
/** Descriptors placed so far (D_SERIAL: a number is never given twice, below 2 ** 53). */
let placements = 0;

class TableSet implements Descriptor {
  private at = 0;
  private size = 0;

  constructor(
    /** [field, bytes] for pointer fields, [field, number] for the rest. */
    private readonly tables: readonly [number, Uint8Array][],
    private readonly numbers: readonly [number, number][],
  ) {}

  get ptr(): number {
    if (this.at === 0) this.place();
    else if (resident[resident.length - 1] !== this) {
      resident.splice(resident.indexOf(this), 1);
      resident.push(this);
    }
    return this.at;
  }

  matchCount(): number {
    return heap32()[(this.at + D_MATCHES) >>> 2]!;
  }

  private place(): void {
    if (resident.length >= MAX_RESIDENT) resident.shift()!.evict();
    this.size = this.tables.reduce((n, [, t]) => n + align(t.length), DESCRIPTOR_SIZE);
    const at = allocate(this.size);
    const fields: [number, number][] = [...this.numbers, [D_MATCHES, 0]];
    let p = at + DESCRIPTOR_SIZE;
    for (const [field, t] of this.tables) {
      heap().set(t, p);
      fields.push([field, p]);
      p += align(t.length);
    }
    placements++;
    fields.push([D_SERIAL, placements >>> 0], [D_SERIAL + 4, Math.floor(placements / 2 ** 32)]);
    const w = heap32();
    for (const [field, value] of fields) w[(at + field) >>> 2] = value;
    this.at = at;
    resident.push(this);
  }

  private evict(): void {
    free(this.at, this.size);
    this.at = 0;
  }
}

export function writeDescriptor(a: CoreTables, prefix: string, suffix: string, hexDigits: string, widen: number): Descriptor {
  const walk = walkTable(a);
  return new TableSet(
    [
      [D_TRANS, new Uint8Array(walk.rows.buffer, walk.rows.byteOffset, walk.rows.byteLength)],
      [D_CLASSES, a.classes],
      [D_TEDDY, a.teddy],
      [D_PREFIX, latin1Bytes(lowerAscii(prefix))],
      [D_PREFIX_OUT, latin1Bytes(prefix)],
      [D_SUFFIX, latin1Bytes(suffix)],
      [D_HEX, latin1Bytes(hexDigits)],
      [D_GRAMS, a.grams],
      ...(a.teddyAscii ? [[D_TEDDY_ASCII, a.teddyAscii] as [number, Uint8Array]] : []),
    ],
    [
      [D_ROW_SHIFT, walk.shift],
      [D_START, walk.start],
      [D_ACCEPT_FROM, walk.acceptFrom],
      [D_PREFIX_LEN, prefix.length],
      [D_SUFFIX_LEN, suffix.length],
      [D_WIDEN, widen],
      [D_GRAM_MASK, a.gramMask],
      [D_QUOTE_FREE, diesOn(a, [0x22]) ? 1 : 0],
      [D_RAW_ESCAPES, diesOn(a, SHORT_ESCAPED) ? 1 : 0],
      ...(a.teddyAscii ? [] : [[D_TEDDY_ASCII, 0] as [number, number]]),
    ],
  );
}

/**
 * Whether every state dies on each of `bytes`: then no match holds one. On '"' (D_QUOTE_FREE),
 * none runs from one JSON string into the next; on SHORT_ESCAPED (D_RAW_ESCAPES), none holds
 * what a short escape other than `\/` stands for.
 */
function diesOn(a: CoreTables, bytes: readonly number[]): boolean {
  for (const b of bytes) {
    const column = a.classes[b]!;
    for (let at = column; at < a.transitions.length; at += a.classCount) if (a.transitions[at] !== 0) return false;
  }
  return true;
}

/** What the short escapes `\"` `\\` `\b` `\f` `\n` `\r` `\t` stand for (`\/`, a '/', is not one of them: terms and data: URIs hold it). */
const SHORT_ESCAPED = [0x22, 0x5c, 0x08, 0x0c, 0x0a, 0x0d, 0x09];
