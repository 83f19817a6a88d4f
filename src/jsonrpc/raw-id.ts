// Request ids as their sender wrote them. JSON.parse turns `9007199254740993` into
// 9007199254740992 (and `1e400` into Infinity, which JSON.stringify writes as null), so an
// answer the library writes itself under a parsed id is lost: the client waits for its timeout.
// Every such answer carries the id's JSON text instead, byte for byte: numbers of any size and
// spelling (`1.0`, `1e3`, `-0`) and strings with their escapes as written (`"a\u0041"` is
// answered as `"a\u0041"`, which any JSON reader takes as the same string; the server's own
// answers pass the encoder with their ids untouched, so both agree with the wire).
//
// The text is read where the library already holds it (a line, a body, a stream's id span),
// by a scan of the top-level members only (nested values are skipped a quote or bracket at a
// time, natively); an answer holds a RawId where its id goes, and `messageText` writes it.
import type { PayloadKeyCollisionError } from '../errors.js';
import { parseJson } from '../util/json.js';

/** A JSON-RPC id as JSON.parse reads it. */
export type Id = string | number;

/** An id as its message wrote it (a JSON string or number). Plain JSON.stringify writes its parsed value. */
export class RawId {
  constructor(readonly text: string) {}

  /** The value JSON.parse gives (how the SDK and most peers match answers). */
  get value(): Id {
    return JSON.parse(this.text) as Id;
  }

  toJSON(): Id {
    return this.value;
  }
}

/** An id a request can be answered under: parsed, or as written. */
export type AnswerId = Id | RawId;

export const isRawId = (id: unknown): id is RawId => id instanceof RawId;

/** Whether two ids name the same request (raw ones by their text). */
export const sameId = (a: unknown, b: unknown): boolean =>
  a instanceof RawId || b instanceof RawId ? a instanceof RawId && b instanceof RawId && a.text === b.text : a === b;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Where a scalar (number or literal) ends: a space, ',' ']' or '}'. */
const isScalarEnd = (c: number) => isSpace(c) || c === 0x2c || c === 0x5d || c === 0x7d;
const NESTED = /["[\]{}]/g;

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Past the string whose opening quote is at `i`. */
function skipString(text: string, i: number): number {
  for (let q = text.indexOf('"', i + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let k = q - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1; // an even run of backslashes: the quote closes it
  }
  return text.length;
}

/** Past the value that starts at `i` (valid JSON). */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return skipString(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    while (i < text.length && !isScalarEnd(text.charCodeAt(i))) i++;
    return i;
  }
  let depth = 0;
  NESTED.lastIndex = i;
  for (let m = NESTED.exec(text); m; m = NESTED.exec(text)) {
    const at = m.index;
    const b = text.charCodeAt(at);
    if (b === QUOTE) NESTED.lastIndex = skipString(text, at);
    else if (b === 0x7b || b === 0x5b) depth++;
    else if (--depth === 0) return at + 1;
  }
  return text.length;
}

/** The `id` member's value text of the object at `i` (the last one, as JSON.parse keeps), and where the object ends. */
function objectId(text: string, i: number): { id: string | undefined; end: number } {
  let id: string | undefined;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return { id, end: i + 1 };
  for (;;) {
    const keyEnd = skipString(text, i);
    const key = text.slice(i, keyEnd);
    const isId = key === '"id"' || (key.includes('\\') && JSON.parse(key) === 'id');
    const from = skipSpace(text, skipSpace(text, keyEnd) + 1); // (past the ':')
    const to = skipValue(text, from);
    if (isId) id = text.slice(from, to);
    i = skipSpace(text, to);
    if (text.charCodeAt(i) !== 0x2c) return { id, end: i + 1 }; // '}'
    i = skipSpace(text, i + 1);
  }
}

/** Where the value of the object at `i`'s member `name` starts (the last one, as JSON.parse keeps); -1 when it has none. */
function memberValue(text: string, i: number, name: string): number {
  let at = -1;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return at;
  for (;;) {
    const keyEnd = skipString(text, i);
    const key = text.slice(i, keyEnd);
    const from = skipSpace(text, skipSpace(text, keyEnd) + 1); // (past the ':')
    if (key === `"${name}"` || (key.includes('\\') && JSON.parse(key) === name)) at = from;
    i = skipSpace(text, skipValue(text, from));
    if (text.charCodeAt(i) !== 0x2c) return at; // '}'
    i = skipSpace(text, i + 1);
  }
}

/**
 * The text of the value at `path` (member names, outermost first) in the object `text` (valid
 * JSON), as written: `["params", "requestId"]` of a cancellation. Undefined where there is none.
 */
export function memberText(text: string, path: readonly string[]): string | undefined {
  let i = skipSpace(text, 0);
  for (const name of path) {
    if (text.charCodeAt(i) !== 0x7b) return undefined;
    i = memberValue(text, i, name);
    if (i < 0) return undefined;
  }
  return text.slice(i, skipValue(text, i));
}

/** A string or number's text as a RawId; anything else (null, an object) is no id to answer under. */
const answerable = (text: string | undefined): RawId | undefined => {
  const c = text?.charCodeAt(0);
  return c === QUOTE || c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39) ? new RawId(text!) : undefined;
};

/**
 * The id of each message in `text` (valid JSON: one message, or a batch, one entry per element
 * in order), as written; undefined where a message has none (or is not an object).
 */
export function rawIds(text: string): (RawId | undefined)[] {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) === 0x7b) return [answerable(objectId(text, i).id)];
  if (text.charCodeAt(i) !== 0x5b) return [undefined];
  const ids: (RawId | undefined)[] = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x5d) return ids;
  for (;;) {
    if (text.charCodeAt(i) === 0x7b) {
      const { id, end } = objectId(text, i);
      ids.push(answerable(id));
      i = end;
    } else {
      ids.push(undefined);
      i = skipValue(text, i);
    }
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== 0x2c) return ids; // ']'
    i = skipSpace(text, i + 1);
  }
}

/** A message or batch as JSON.parse reads it, with each message's id as written. */
export interface ReadMessage {
  readonly value: unknown;
  /** One per message (per element of a batch). */
  readonly ids: readonly (RawId | undefined)[];
}

/** A ReadMessage whose ids are read when first asked for (many readers never ask). */
export class LazyIds implements ReadMessage {
  private read: readonly (RawId | undefined)[] | undefined;

  constructor(
    readonly value: unknown,
    private readonly readIds: () => readonly (RawId | undefined)[],
  ) {}

  get ids(): readonly (RawId | undefined)[] {
    this.read ??= this.readIds();
    return this.read;
  }
}

/** Parses `text` (its ids are read when asked for); undefined if it is not JSON. */
export function readMessage(text: string): ReadMessage | undefined {
  const value = parseJson(text);
  return value === undefined ? undefined : new LazyIds(value, () => rawIds(text));
}

/** `answer` under `id` when it is known (the answer's own id otherwise). */
export const underId = <T extends { id?: unknown }>(answer: T, id: RawId | undefined): T => (id ? { ...answer, id } : answer);

/**
 * The JSON text of a message or batch, as JSON.stringify writes it, except that an `id` that is
 * a RawId is written as its text. The one serializer of answers the library writes itself.
 */
export function messageText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((m) => messageText(m)).join(',')}]`;
  const id = (value as { id?: unknown } | null)?.id;
  if (!(id instanceof RawId)) return JSON.stringify(value);
  const parts: string[] = [];
  for (const [key, v] of Object.entries(value as object)) {
    const text = key === 'id' ? id.text : JSON.stringify(v);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** The ids of a stream's collision error as written (string and number ids only; none for null). */
export function collisionIds(e: PayloadKeyCollisionError): {
  id: RawId | undefined;
  batchIds: RawId[] | undefined;
  batchResponseIds: RawId[] | undefined;
} {
  const all = (texts: readonly string[] | undefined) => texts?.flatMap((t) => answerable(t) ?? []);
  return { id: answerable(e.idText), batchIds: all(e.batchIdTexts), batchResponseIds: all(e.batchResponseIdTexts) };
}

/**
 * The key under which ids a JSON reader takes for the same request meet: a string by its value
 * (`"a\u0041"` and `"aA"`), a number by its value where a double holds it exactly (`1.0` and
 * `1`), else by its text (a server that parsed an integer past 2^53 could not give it back).
 * For peers that answer under the id they parsed rather than the one they read.
 */
export function idKey(text: string): string {
  const value = parseJson(text);
  if (value === undefined) return text;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'number' || !Number.isFinite(value)) return text;
  return Number.isInteger(value) && !Number.isSafeInteger(value) ? text : String(value);
}
