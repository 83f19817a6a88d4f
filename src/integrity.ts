// U+FFFD reports: where replacement characters sit in a value, never what surrounds them.
import { ArgumentIntegrityError, type JsonPath } from './errors.js';
import { core } from './core/instance.js';
import { heap, heap32, workspace } from './core/memory.js';
import { NodeBuffer } from './node-buffer.js';
import { walkStrings } from './walk.js';

export interface IntegrityReport {
  /** Keys and indices from the root to the string (for a key: to the property it names). */
  readonly path: JsonPath;
  /** The first element of `path` as a string: the tool parameter; '' for a bare string. */
  readonly parameterName: string;
  /** Whether the U+FFFD is in a property value (or array element, or bare string) or a key. */
  readonly location: 'value' | 'key';
  readonly replacementCharacterCount: number;
  /** UTF-16 index of the first U+FFFD. */
  readonly characterOffset: number;
  /** UTF-8 byte length of the text before the first U+FFFD. */
  readonly utf8ByteOffset: number;
}

const FFFD = '\uFFFD';

const encoder = new TextEncoder();
const scratch = new Uint8Array(64 * 1024);

/**
 * UTF-8 length of s[0, end); a lone surrogate counts 3 bytes, as an encoder writes U+FFFD.
 * Long prefixes are measured natively (a JS loop ran at a third of the speed of the search).
 */
function utf8Length(s: string, end = s.length): number {
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

function report(s: string, first: number, path: JsonPath, location: 'value' | 'key'): IntegrityReport {
  let count = 0;
  for (let i = first; i !== -1; i = s.indexOf(FFFD, i + 1)) count++;
  return {
    path,
    parameterName: path.length === 0 ? '' : String(path[0]),
    location,
    replacementCharacterCount: count,
    characterOffset: first,
    utf8ByteOffset: utf8Length(s, first),
  };
}

/**
 * One report per string (keys included) that holds U+FFFD, in document order (a key before its
 * value). Finding them is V8's native `indexOf`, which no copy into WASM memory can beat for
 * strings already in the JS heap; byte input goes through the WASM scanner instead.
 */
export function findReplacementCharacters(value: unknown): IntegrityReport[] {
  const reports: IntegrityReport[] = [];
  walkStrings(value, (s, path, location) => {
    const first = s.indexOf(FFFD);
    if (first !== -1) reports.push(report(s, first, path(), location));
  });
  return reports;
}

/** Throws {@link ArgumentIntegrityError} when `args` holds U+FFFD anywhere. */
export function assertNoReplacementCharacters(args: unknown, options: { toolName?: string } = {}): void {
  const reports = findReplacementCharacters(args);
  if (reports.length > 0) throw new ArgumentIntegrityError(reports, options.toolName);
}

export interface ByteIntegrityReport {
  readonly replacementCharacterCount: number;
  /** Byte offset of the first U+FFFD (EF BF BD), or -1. */
  readonly utf8ByteOffset: number;
}

const BYTE_SLICE = 256 * 1024;

/**
 * U+FFFD in UTF-8 bytes (a request body, a file, a stream chunk), counted in the WASM core
 * without decoding. Overlapping slices of the input keep sequences across slice edges whole.
 */
export function findReplacementBytes(bytes: Uint8Array): ByteIntegrityReport {
  const ws = workspace(BYTE_SLICE, 16);
  let count = 0;
  let first = -1;
  // Slices overlap by 2 bytes; a hit is counted in the slice where it starts.
  for (let at = 0; at < bytes.length; at += BYTE_SLICE - 2) {
    const n = Math.min(BYTE_SLICE, bytes.length - at);
    heap().set(bytes.subarray(at, at + n), ws.input);
    core.countReplacement(ws.input, n, ws.output);
    const words = heap32();
    const c = words[ws.output >> 2]!;
    const f = words[(ws.output >> 2) + 1]! | 0;
    if (c > 0 && first < 0) first = at + f;
    count += c;
    if (at + n >= bytes.length) break;
  }
  return { replacementCharacterCount: count, utf8ByteOffset: first };
}
