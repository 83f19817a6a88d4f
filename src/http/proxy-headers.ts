// What createFilteringProxy does to headers on the way through: a connection's own headers stay
// with it (RFC 9110 7.6.1), and a decompressed body loses its coding and length. Heads are read
// as Web Headers (a Web Request or Response) or as Fields (the Node CLI's, read from node:http:
// the same semantics without undici's cost per field, several µs a call).

/** What the proxy reads of a head: Web Headers have it, and so do Fields. */
export interface HeadFields {
  get(name: string): string | null;
  /** Each field in name order (Set-Cookie once per cookie), as Headers lists them. */
  forEach(each: (value: string, name: string) => void): void;
  getSetCookie(): string[];
}

/**
 * Text a field value or a status text may hold, as node:http writes it and Web Headers and
 * Response take it: HTAB, SP, VCHAR, obs-text (RFC 9110 5.5, 4). Both HTTP clients read more
 * (a control character), which no server will send on.
 */
export const isFieldText = (text: string): boolean => /^[\t\x20-\x7e\x80-\xff]*$/.test(text);
/** Whether `name` is a field name (an HTTP token). */
export const isFieldName = (name: string): boolean => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);

const COOKIE = 'set-cookie';
const isOws = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** A value as Headers keeps it: HTTP whitespace stripped at both ends (not trim()'s Unicode spaces). */
export function normal(value: string): string {
  if (!value.length || (!isOws(value.charCodeAt(0)) && !isOws(value.charCodeAt(value.length - 1)))) return value;
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

/** A listed field's value as appending it to a copy keeps it: stripped again (Set-Cookie's is kept apart, as it is). */
const relisted = (name: string, value: string): string => (name === COOKIE ? value : normal(value));

/** Heads with more names than this are sorted by sort() (insertion is quadratic). */
const INSERTION_MAX = 32;

/**
 * A map's keys in code-unit order (as sort() orders them), a usual head's by insertion: its
 * dozen names sorted by Array.prototype.sort cost a copy of them as its work array, per listing.
 */
function sortedKeys(map: Map<string, string>): string[] {
  if (map.size > INSERTION_MAX) return [...map.keys()].sort();
  const names = new Array<string>(map.size);
  let n = 0;
  for (const key of map.keys()) {
    let i = n++;
    for (; i > 0 && names[i - 1]! > key; i--) names[i] = names[i - 1]!;
    names[i] = key;
  }
  return names;
}

/**
 * Header fields kept as Headers keeps them (names lower-cased, a repeated field's values joined
 * with ", ", each Set-Cookie apart, listed in name order), for heads read from node:http. Names
 * and values are not checked again: Node's parser has. Iterable as Headers is, so that
 * `new Headers(fields)` or fetch's `headers` takes its fields, not its private members.
 */
export class Fields implements HeadFields {
  private readonly map = new Map<string, string>();
  private readonly cookies: string[] = [];
  /** The names in order, sorted when first listed after a name came or went (a head is listed several times a call). */
  private names: string[] | undefined;

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const v = normal(value);
    if (key === COOKIE) this.cookies.push(v);
    const had = this.map.get(key);
    if (had === undefined) this.names = undefined;
    this.map.set(key, had === undefined ? v : `${had}, ${v}`);
  }

  set(name: string, value: string): void {
    const key = name.toLowerCase();
    const v = normal(value);
    if (key === COOKIE) this.cookies.splice(0, this.cookies.length, v);
    if (!this.map.has(key)) this.names = undefined;
    this.map.set(key, v);
  }

  delete(name: string): void {
    const key = name.toLowerCase();
    if (key === COOKIE) this.cookies.length = 0;
    if (this.map.delete(key)) this.names = undefined;
  }

  /**
   * The fields whose names `keep` takes, as appending each listed field to a new Fields makes
   * them, without lower-casing or sorting again (a joined value is stripped once more: empty
   * values joined end with ", ").
   */
  filter(keep: (name: string) => boolean): Fields {
    const out = new Fields();
    const names = this.sortedNames().filter(keep);
    for (const name of names) out.map.set(name, relisted(name, this.map.get(name)!));
    if (out.map.has(COOKIE)) out.cookies.push(...this.cookies);
    out.names = names;
    return out;
  }

  private sortedNames(): string[] {
    if (!this.names) this.names = sortedKeys(this.map);
    return this.names;
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  getSetCookie(): string[] {
    return [...this.cookies];
  }

  forEach(each: (value: string, name: string) => void): void {
    for (const name of this.sortedNames()) {
      if (name === COOKIE) for (const c of this.cookies) each(c, name);
      else each(this.map.get(name)!, name);
    }
  }
  /** [name, value] pairs in forEach's order (a Headers' iteration). */
  [Symbol.iterator](): Iterator<[string, string]> {
    return pairsOf(this);
  }
}

/** A head's [name, value] pairs in forEach's order (a Headers' iteration). */
function pairsOf(head: HeadFields): Iterator<[string, string]> {
  const pairs: [string, string][] = [];
  head.forEach((value, name) => void pairs.push([name, value]));
  return pairs[Symbol.iterator]();
}

/** A head that a Headers or fetch's `headers` option takes as it is (an OpenStream's). */
export type ListedFields = HeadFields & Iterable<[string, string]>;

/** A head as Web Headers (a Response's, a fetch's). */
export function toHeaders(head: HeadFields): Headers {
  if (head instanceof Headers) return head;
  const headers = new Headers();
  head.forEach((value, name) => {
    headers.append(name, value);
  });
  return headers;
}

/** Headers that belong to one connection, not to the message (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

/** Whether a field goes on: not one of the connection's (RFC 9110 7.6.1), nor of `also`. */
function keeper(source: HeadFields, also: readonly string[]): (name: string) => boolean {
  const connection = source.get('connection');
  // (most heads name one: keep-alive or close, taken without a split, an array and a Set each)
  const one = connection && !connection.includes(',') ? connection.trim().toLowerCase() : undefined;
  const named =
    connection && one === undefined
      ? new Set(
          connection
            .split(',')
            .map((name) => name.trim().toLowerCase())
            .filter(Boolean),
        )
      : undefined;
  return (name: string) => !HOP_BY_HOP.has(name) && !also.includes(name) && name !== one && !named?.has(name);
}

/** `source` without the fields of its connection, and without `also`: a copy, for more calls. */
export function withoutHopByHop(source: HeadFields, also: readonly string[] = []): Fields {
  const keep = keeper(source, also);
  if (source instanceof Fields) return source.filter(keep);
  const fields = new Fields();
  source.forEach((value, name) => {
    if (keep(name)) fields.append(name, value);
  });
  return fields;
}

/**
 * The fields of `source` that `keep` takes, read through it rather than copied (an answer's head
 * is read once, as it is written: a copy cost a Map and its entries per call). Values as a copy
 * by append would hold them: stripped again (a joined empty value ends with ", "). `keep` was
 * made from the source's Connection field when the view was: a source changed after (a custom
 * openStream's Headers) would be read through a stale list, so the view is for reading at once.
 */
class KeptFields implements ListedFields {
  constructor(
    private readonly source: HeadFields,
    private readonly keep: (name: string) => boolean,
  ) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (!this.keep(key)) return null;
    const value = this.source.get(key);
    return value === null ? value : relisted(key, value);
  }

  getSetCookie(): string[] {
    return this.keep(COOKIE) ? this.source.getSetCookie() : [];
  }

  forEach(each: (value: string, name: string) => void): void {
    this.source.forEach((value, name) => {
      if (this.keep(name)) each(relisted(name, value), name);
    });
  }

  [Symbol.iterator](): Iterator<[string, string]> {
    return pairsOf(this);
  }
}

/**
 * `source` without the fields of its connection, and without `also`, read through it: what
 * withoutHopByHop copies, for a head read at once (a request's sent upstream: the copy cost a
 * Map, its entries and a list of names per call).
 */
export const keptFields = (source: HeadFields, also: readonly string[]): ListedFields => new KeptFields(source, keeper(source, also));

const NOT_DOWN = ['content-encoding', 'content-length'];

/**
 * A response's headers as they go to the client, read only: the upstream's body was
 * decompressed, and the server frames the length.
 */
export const downstream = (source: HeadFields): HeadFields => keptFields(source, NOT_DOWN);
