// U+FFFD reports: where replacement characters sit in a value, never what surrounds them. A
// lone UTF-16 surrogate (a pair cut in two by a host that counts in UTF-16) is the same damage
// one step earlier: any UTF-8 writer turns it into U+FFFD, so it is reported as one.

import { FFFD_COUNT, FFFD_FIRST, FFFD_RESULT_SIZE } from '../core/abi.js';
import { core } from '../core/instance.js';
import { heap, heap32, workspace } from '../core/memory.js';
import { ArgumentIntegrityError, type IntegrityReport, type JsonPath } from '../errors.js';
import { utf8Length } from '../util/utf8-length.js';
import { walkStrings } from './walk.js';
import { LONE_SURROGATE } from './well-formed.js';

export type { IntegrityReport } from '../errors.js';

const FFFD = '\uFFFD';

/** Whether `s` holds U+FFFD, or a lone surrogate that becomes one in UTF-8. */
export const isDamaged = (s: string): boolean => s.includes(FFFD) || !s.isWellFormed();

function report(s: string, first: number, path: JsonPath, location: 'value' | 'key'): IntegrityReport {
  let count = 0;
  for (let i = first; i !== -1; i = s.indexOf(FFFD, i + 1)) count++;
  let lone = 0;
  if (!s.isWellFormed()) {
    for (const m of s.matchAll(LONE_SURROGATE)) {
      if (lone++ === 0 && (first < 0 || m.index < first)) first = m.index;
    }
  }
  return {
    path,
    parameterName: path.length === 0 ? '' : String(path[0]),
    location,
    replacementCharacterCount: count + lone,
    loneSurrogateCount: lone,
    characterOffset: first,
    utf8ByteOffset: utf8Length(s, first),
  };
}

/** The reports found, in document order, and how many there are in all. */
export interface IntegrityReports extends Array<IntegrityReport> {
  /**
   * How many strings hold U+FFFD, reported or not (non-enumerable, so the array still
   * compares, spreads and serialises as a plain array). `length < total` means the reports
   * were cut short by `limit` or `pathBudget`.
   */
  readonly total: number;
}

export interface FindReplacementOptions {
  /** At most this many reports are returned (a non-negative integer or Infinity); default 256. */
  limit?: number;
  /**
   * How much path the returned reports may hold together, counted as one per key or index plus
   * one per key character; default 16,384. Reports stop at the first one that would exceed it.
   */
  pathBudget?: number;
}

/**
 * Enough to name every damaged string of any realistic tool call (tools take tens of
 * parameters; hundreds of damaged strings already say "all of it"), while keeping the reports
 * (about 150 bytes each plus their paths) around 100 KB at most however large the input.
 */
export const DEFAULT_REPORT_LIMIT = 256;
/**
 * Every report carries its full path, so without a budget 256 reports 100,000 levels deep
 * would hold 25 million path entries. The budget caps memory and any reply built from the
 * reports, whatever the nesting.
 */
export const DEFAULT_PATH_BUDGET = 16_384;

function checkCount(value: unknown, name: string): number {
  if (typeof value !== 'number' || !(value >= 0) || (value !== Infinity && !Number.isInteger(value))) {
    throw new TypeError(`findReplacementCharacters: ${name} must be a non-negative integer or Infinity`);
  }
  return value;
}

function pathSize(path: JsonPath): number {
  let n = path.length;
  for (const p of path) if (typeof p === 'string') n += p.length;
  return n;
}

/**
 * One report per string (keys included) that holds U+FFFD or a lone surrogate, in document order (a key before its
 * value): the first `limit` of them, as far as `pathBudget` allows; `total` on the result counts
 * them all. Paths and counts are built only for the reports returned, so the cost is linear in
 * the input whatever the nesting. Finding U+FFFD is V8's native `indexOf`, which no copy into
 * WASM memory can beat for strings already in the JS heap; byte input goes through the WASM
 * scanner instead.
 */
export function findReplacementCharacters(value: unknown, options: FindReplacementOptions = {}): IntegrityReports {
  const limit = checkCount(options.limit ?? DEFAULT_REPORT_LIMIT, 'limit');
  let budget = checkCount(options.pathBudget ?? DEFAULT_PATH_BUDGET, 'pathBudget');
  const reports: IntegrityReport[] = [];
  let total = 0;
  let open = limit > 0; // still taking reports: they are always a prefix in document order
  walkStrings(value, (s, path, location, depth) => {
    const first = s.indexOf(FFFD);
    if (first === -1 && s.isWellFormed()) return;
    total++;
    if (!open) return;
    const p = depth <= budget ? path() : undefined; // too deep: not even built
    const size = p ? pathSize(p) : Infinity;
    if (size > budget) {
      open = false;
      return;
    }
    budget -= size;
    reports.push(report(s, first, p!, location));
    if (reports.length >= limit) open = false;
  });
  return Object.defineProperty(reports, 'total', { value: total }) as IntegrityReports;
}

/**
 * Throws {@link ArgumentIntegrityError} when `args` holds U+FFFD (or a lone surrogate) anywhere; the error carries
 * the reports (bounded by `options`, as for {@link findReplacementCharacters}) and the total.
 */
export function assertNoReplacementCharacters(args: unknown, options: { toolName?: string } & FindReplacementOptions = {}): void {
  const reports = findReplacementCharacters(args, options);
  if (reports.total > 0) throw new ArgumentIntegrityError(reports, options.toolName, reports.total);
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
  const ws = workspace(BYTE_SLICE, FFFD_RESULT_SIZE);
  let count = 0;
  let first = -1;
  // Slices overlap by 2 bytes; a hit is counted in the slice where it starts.
  for (let at = 0; at < bytes.length; at += BYTE_SLICE - 2) {
    const n = Math.min(BYTE_SLICE, bytes.length - at);
    heap().set(bytes.subarray(at, at + n), ws.input);
    core.countReplacement(ws.input, n, ws.output);
    const words = heap32();
    const c = words[(ws.output + FFFD_COUNT) >>> 2]!;
    const f = words[(ws.output + FFFD_FIRST) >>> 2]! | 0;
    if (c > 0 && first < 0) first = at + f;
    count += c;
    if (at + n >= bytes.length) break;
  }
  return { replacementCharacterCount: count, utf8ByteOffset: first };
}
