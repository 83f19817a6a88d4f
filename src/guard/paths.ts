// Confinement: which tool arguments are paths, and whether each one stays inside the roots the
// host gave. Pure logic, free of node:path (the guards run in browsers too): the only I/O is a
// realpath the caller injects where the server runs on this machine.
//
// The rule (docs/MCP.md, "What counts as a path"): a string argument, or an element of an array
// argument, is a path when
// - its parameter's name says so: its last word, or its last two words joined, is path, file,
//   filename, filepath, pathname, dir, dirname, directory, folder, cwd, root, source,
//   destination, target, output, saveto or uri, or a plural of one (`paths`, `filePath`,
//   `source_path`, `targetDir`, `fileName`, `saveTo`; not `profile`, `pathPattern`,
//   `targetLanguage`, `outputType`);
// - or its schema says `format: "uri"` / `"uri-reference"`;
// - or it is a `file:` URI, whatever its name, at any depth (as a URL parser reads it: tabs and
//   line breaks in it dropped; `file:/` then anything, or `file:` then no space: not prose).
// A path or uri parameter's value that a URL parser reads as `file:` is a file URI, spaces or not.
// A value of a uri parameter (or format) with another scheme (`https:`) is not a local path.
//
// Resolution: relative paths against the first root (and again with white space and quotes
// trimmed off, as some servers read them); `.` and `..` normalised (never above a
// drive, share or `/`). The roots' form decides the flavour: Windows (drive letters in any case,
// UNC, `\` and `/` both separators, compared without case) or POSIX (where `\` is taken as a
// separator too, and a drive letter or a leading `~` is outside: a server may read either as a
// place the guard cannot judge). A path is inside a root when it equals it or is below it.
// With a realpath, symlinks are followed both ways a server may go (lexically normalised then
// resolved, and resolved step by step as the OS walks), each from the nearest existing parent.

/** The real path of an existing path, or undefined when it does not exist; throws when it cannot tell. */
export type Realpath = (path: string) => string | undefined;

/** A path argument: where it is (a JSON pointer) and how it is read. */
export interface PathArgument {
  readonly pointer: string;
  readonly value: string;
  /** 'uri': a uri parameter or format (another scheme than file: is no local path). */
  readonly kind: 'path' | 'uri';
}

/** An argument that leaves the roots: its place (never its value) and why. */
export interface OutsideRoots {
  readonly pointer: string;
  readonly reason: string;
}

const PATH_WORDS = new Set([
  'path',
  'file',
  'filename',
  'filepath',
  'pathname',
  'dir',
  'dirname',
  'directory',
  'folder',
  'cwd',
  'root',
  'source',
  'destination',
  'target',
  'output',
  'saveto',
  'uri',
]);

const isPathWord = (w: string) =>
  PATH_WORDS.has(w) || (w.endsWith('ies') && PATH_WORDS.has(`${w.slice(0, -3)}y`)) || (w.endsWith('s') && PATH_WORDS.has(w.slice(0, -1)));

/** The words of a parameter name: camelCase, PascalCase, snake_case, kebab-case, dotted. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** How a parameter's name says its values are read: 'path', 'uri', or not at all. */
export function pathName(name: string): 'path' | 'uri' | undefined {
  const w = nameWords(name);
  const last = w.at(-1);
  if (last === undefined) return undefined;
  if (isPathWord(last)) return last.startsWith('uri') ? 'uri' : 'path';
  return w.length > 1 && isPathWord(w.at(-2)! + last) ? 'path' : undefined;
}

/** A string as a URL parser reads it: tabs and line breaks dropped, C0 controls and spaces around it trimmed. */
function urlText(s: string): string {
  const t = s.replace(/[\t\n\r]/g, '');
  let start = 0;
  let end = t.length;
  while (start < end && t.charCodeAt(start) <= 0x20) start++;
  while (end > start && t.charCodeAt(end - 1) <= 0x20) end--;
  return t.slice(start, end);
}
/** Whether a string of any parameter is a `file:` URI: `file:/` then anything, or `file:` then no space (prose, `file: notes`, is not). */
const isFileUri = (s: string) => /^file:(?:\/|[^ ]*$)/i.test(urlText(s));
/** Whether a path or uri parameter's value is read as a `file:` URI by a server that parses URLs. */
const hasFileScheme = (s: string) => /^file:/i.test(urlText(s));

type Schema = Record<string, unknown> | undefined;
const asSchema = (s: unknown): Schema =>
  typeof s === 'object' && s !== null && !Array.isArray(s) ? (s as Record<string, unknown>) : undefined;

/** Whether a schema (or a branch of its anyOf / oneOf / allOf) gives a URI format. */
function uriFormat(schema: Schema): boolean {
  if (!schema) return false;
  if (schema.format === 'uri' || schema.format === 'uri-reference') return true;
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(schema[k]) && (schema[k] as unknown[]).some((b) => uriFormat(asSchema(b)))) return true;
  return false;
}

function propertySchema(schema: Schema, key: string): Schema {
  const props = asSchema(schema?.properties);
  if (props && Object.hasOwn(props, key)) return asSchema(props[key]);
  return asSchema(schema?.additionalProperties);
}

function itemSchema(schema: Schema, i: number): Schema {
  const prefix = schema?.prefixItems;
  if (Array.isArray(prefix) && i < prefix.length) return asSchema(prefix[i]);
  return asSchema(schema?.items);
}

const pointerPart = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** Every path argument of a call, in document order (`schema`: the tool's inputSchema). */
export function pathArguments(args: Record<string, unknown>, schema?: unknown): PathArgument[] {
  const found: PathArgument[] = [];
  // (an explicit stack: arguments may nest deeper than the call stack)
  const stack: [value: unknown, pointer: string, named: 'path' | 'uri' | undefined, schema: Schema][] = [
    [args, '', undefined, asSchema(schema)],
  ];
  while (stack.length) {
    const [value, pointer, named, s] = stack.pop()!;
    if (typeof value === 'string') {
      if (isFileUri(value)) found.push({ pointer, value, kind: 'uri' });
      else if (uriFormat(s)) found.push({ pointer, value, kind: 'uri' });
      else if (named) found.push({ pointer, value, kind: named });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${pointer}/${i}`, named, itemSchema(s, i)]);
    } else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        stack.push([(value as Record<string, unknown>)[k], `${pointer}/${pointerPart(k)}`, pathName(k), propertySchema(s, k)]);
      }
    }
  }
  return found;
}

type Flavour = 'posix' | 'win32';

/** An absolute path: its device ('' on POSIX; `c:` or `\\server\share` on Windows) and segments. */
interface Absolute {
  device: string;
  segments: string[];
}

const DRIVE = /^([A-Za-z]):/;
/** Steps a path may have (Linux's PATH_MAX is 4096 bytes: 2048 steps at most). */
export const MAX_SEGMENTS = 4096;
const UNC = /^\\\\([^\\]+)\\([^\\]+)(?:\\|$)/;

const text = (p: Absolute, flavour: Flavour) =>
  flavour === 'posix' ? `/${p.segments.join('/')}` : `${p.device}\\${p.segments.join('\\')}`;

/** `.` and `..` taken out (never above the device's top). */
function normalised(segments: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of segments) {
    if (s === '' || s === '.') continue;
    if (s === '..') out.pop();
    else out.push(s);
  }
  return out;
}

/**
 * A value as the server will take it, joined to the first root when relative, NOT yet
 * normalised (the step-by-step walk needs the `..` where they are); undefined when it is not a
 * path the guard can place under a root (then it is outside).
 */
function placed(value: string, flavour: Flavour, first: Absolute): Absolute | undefined {
  if (flavour === 'posix') {
    if (DRIVE.test(value) || value.startsWith('~')) return undefined;
    const s = value.replaceAll('\\', '/');
    const parts = s.split('/');
    return s.startsWith('/') ? { device: '', segments: parts } : { device: '', segments: [...first.segments, ...parts] };
  }
  const s = value.replaceAll('/', '\\');
  if (s.startsWith('~')) return undefined;
  if (s.startsWith('\\\\')) {
    const unc = UNC.exec(s);
    // (`\\?\` and `\\.\` device paths, and a server without a share, are not placed)
    if (!unc || unc[1] === '?' || unc[1] === '.') return undefined;
    return { device: `\\\\${unc[1]}\\${unc[2]}`, segments: s.slice(unc[0].length).split('\\') };
  }
  const drive = DRIVE.exec(s);
  if (drive) {
    const device = `${drive[1]}:`;
    const rest = s.slice(2);
    if (rest.startsWith('\\')) return { device, segments: rest.split('\\') };
    // C:name is relative to that drive's current folder: the first root's, if on that drive.
    if (device.toLowerCase() !== first.device.toLowerCase()) return undefined;
    return { device: first.device, segments: [...first.segments, ...rest.split('\\')] };
  }
  if (s.startsWith('\\')) return { device: first.device, segments: s.split('\\') };
  return { device: first.device, segments: [...first.segments, ...s.split('\\')] };
}

/** An absolute path in the flavour, normalised; undefined if it is not one. */
function absolute(path: string, flavour: Flavour): Absolute | undefined {
  if (flavour === 'posix') return path.startsWith('/') ? { device: '', segments: normalised(path.split('/')) } : undefined;
  const s = path.replaceAll('/', '\\');
  const unc = UNC.exec(s);
  if (unc && unc[1] !== '?' && unc[1] !== '.')
    return { device: `\\\\${unc[1]}\\${unc[2]}`, segments: normalised(s.slice(unc[0].length).split('\\')) };
  const drive = DRIVE.exec(s);
  if (drive && (s.length === 2 || s[2] === '\\')) return { device: `${drive[1]}:`, segments: normalised(s.slice(2).split('\\')) };
  return undefined;
}

/**
 * The path of a `file:` URI as a server's URL parser reads it (WHATWG URL: `..` and `%2e%2e`
 * resolved, never above a drive; a `localhost` host is none), percent-decoded; undefined when
 * it names no local path of the flavour.
 */
export function fileUriPath(uri: string, flavour: Flavour): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  // (an encoded separator is refused, as Node's fileURLToPath does: it would hide a `..`)
  if (url.protocol !== 'file:' || /%2f|%5c/i.test(url.pathname)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return undefined; // (a `%` that is no escape)
  }
  if (flavour === 'posix') return url.hostname === '' ? path : undefined;
  if (url.hostname !== '') return `\\\\${url.hostname}${path}`; // a share
  return /^\/[A-Za-z]:/.test(path) ? path.slice(1) : undefined; // (a Windows path without a drive is none)
}

const scheme = (s: string) => /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(s)?.[1]; // (2+ characters: not a drive letter)

const key = (p: Absolute, flavour: Flavour) =>
  flavour === 'win32' ? { device: p.device.toLowerCase(), segments: p.segments.map((s) => s.toLowerCase()) } : p;

function below(p: Absolute, root: Absolute, flavour: Flavour): boolean {
  const a = key(p, flavour);
  const r = key(root, flavour);
  return a.device === r.device && r.segments.length <= a.segments.length && r.segments.every((s, i) => a.segments[i] === s);
}

/** The host's roots and the check of a call's arguments against them. */
export class Roots {
  readonly flavour: Flavour;
  private readonly roots: Absolute[];

  /** `roots`: absolute paths, all POSIX or all Windows (real paths, where a realpath is given). */
  constructor(
    readonly list: readonly string[],
    private readonly realpath?: Realpath,
  ) {
    if (!list.length) throw new TypeError('roots: give at least one');
    const windows = list.map((r) => DRIVE.test(r) || r.startsWith('\\\\'));
    if (windows.some((w) => w !== windows[0])) throw new TypeError('roots: give all POSIX paths or all Windows paths, not both');
    this.flavour = windows[0] ? 'win32' : 'posix';
    this.roots = list.map((r, i) => {
      const a = absolute(r, this.flavour);
      if (!a) throw new TypeError(`roots: root ${i + 1} is not an absolute path`);
      return a;
    });
  }

  /**
   * Whether one value stays inside a root: as it is, and with surrounding white space and a
   * quote at either end taken off (a server that trims its input opens that one).
   */
  inside(value: string, kind: 'path' | 'uri' = 'path'): boolean {
    const trimmed = value.trim().replace(/^["']|["']$/g, '');
    return this.insideAsIs(value, kind) && (trimmed === value || this.insideAsIs(trimmed, kind));
  }

  private insideAsIs(value: string, kind: 'path' | 'uri'): boolean {
    let path = value;
    if (hasFileScheme(value)) {
      const p = fileUriPath(value, this.flavour);
      if (p === undefined) return false;
      path = p;
    } else if (kind === 'uri') {
      if (scheme(value) !== undefined) return true; // another scheme: not a local path
      try {
        path = decodeURIComponent(value); // a relative reference
      } catch {
        return false;
      }
    }
    const p = placed(path, this.flavour, this.roots[0]!);
    // (a path no file system takes: it costs a realpath a step, so it is not walked)
    if (!p || p.segments.length > MAX_SEGMENTS) return false;
    const lexical = { device: p.device, segments: normalised(p.segments) };
    if (!this.realpath) return this.within(lexical);
    try {
      // As a server that normalises first, then resolves; and as the OS walks the path as given.
      return this.within(this.walk(lexical)) && this.within(this.walk(p));
    } catch {
      return false; // (a loop, no permission: cannot tell, so not inside)
    }
  }

  private within(p: Absolute | null): boolean {
    return p !== null && this.roots.some((r) => below(p, r, this.flavour));
  }

  /**
   * The path as the OS walks it: each existing step replaced by its real path (so `..` after a
   * link leaves the link's target), the steps past the first missing one taken lexically.
   * null when a real path is not one the guard can read.
   */
  private walk(p: Absolute): Absolute | null {
    const realpath = this.realpath!;
    let at: Absolute = { device: p.device, segments: [] };
    const top = realpath(text(at, this.flavour));
    if (top !== undefined) at = absolute(top, this.flavour) ?? at;
    for (let i = 0; i < p.segments.length; i++) {
      const s = p.segments[i]!;
      if (s === '' || s === '.') continue;
      if (s === '..') {
        at = { device: at.device, segments: at.segments.slice(0, -1) };
        continue;
      }
      const next = { device: at.device, segments: [...at.segments, s] };
      const real = realpath(text(next, this.flavour));
      if (real === undefined) return { device: next.device, segments: normalised([...next.segments, ...p.segments.slice(i + 1)]) };
      const a = absolute(real, this.flavour);
      if (!a) return null;
      at = a;
    }
    return at;
  }

  /** The first argument of a call that leaves every root (`schema`: the tool's inputSchema). */
  check(args: Record<string, unknown>, schema?: unknown): OutsideRoots | undefined {
    for (const a of pathArguments(args, schema))
      if (!this.inside(a.value, a.kind))
        return {
          pointer: a.pointer,
          reason: `argument ${JSON.stringify(a.pointer)} is a path outside the allowed roots (${this.list.map((r) => JSON.stringify(r)).join(', ')})`,
        };
    return undefined;
  }
}
