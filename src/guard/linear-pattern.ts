// Schema `pattern`s come from the server: run on a backtracking engine, `^(a+)+$` against 40
// characters takes hours. They run on re2js instead (linear time), translated so that they
// mean what JavaScript's RegExp with the `u` flag (what ajv uses) means.
import { RE2JS } from 're2js';

/** What ajv's `code.regExp` must return. */
interface RegExpLike {
  test(s: string): boolean;
}

/** JavaScript's `\s` (WhiteSpace and LineTerminator), as the inside of an RE2 class. */
const JS_SPACE = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** JavaScript's `.` without the `s` flag. */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

class Unsupported extends Error {}

const hex = (cp: number) => `\\x{${cp.toString(16)}}`;

/**
 * RE2 syntax for a pattern JavaScript accepts with the `u` flag, or throws Unsupported where
 * the two differ in ways not worth translating (backreferences; `\S` inside a class; Unicode
 * properties beyond general categories). Lookarounds are left to RE2 to refuse.
 */
function translate(p: string): string {
  let out = '';
  let inClass = false;
  let i = 0;
  // \uXXXX, with a surrogate pair written as two escapes read as one code point (as `u` does).
  const unicodeEscape = (): number => {
    if (p[i] === '{') {
      const end = p.indexOf('}', i);
      const cp = parseInt(p.slice(i + 1, end), 16);
      i = end + 1;
      return cp;
    }
    let cp = parseInt(p.slice(i, i + 4), 16);
    i += 4;
    if (cp >= 0xd800 && cp <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(p.slice(i, i + 6))) {
      cp = 0x10000 + ((cp - 0xd800) << 10) + (parseInt(p.slice(i + 2, i + 6), 16) - 0xdc00);
      i += 6;
    }
    return cp;
  };
  while (i < p.length) {
    const c = p[i++]!;
    if (c === '\\') {
      const e = p[i++]!;
      if ('dDwWtnrvf'.includes(e)) out += `\\${e}`;
      else if (e === 'b' || e === 'B') out += inClass ? (e === 'b' ? hex(8) : fail()) : `\\${e}`;
      else if (e === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (e === 'S') out += inClass ? fail() : `[^${JS_SPACE}]`;
      else if (e === 'u') out += hex(unicodeEscape());
      else if (e === 'x') {
        out += hex(parseInt(p.slice(i, i + 2), 16));
        i += 2;
      } else if (e === 'c') out += hex(p.charCodeAt(i++) % 32);
      else if (e === '0') out += hex(0);
      else if (e === 'p' || e === 'P') {
        const end = p.indexOf('}', i);
        const name = p.slice(i + 1, end);
        // General categories by their short names mean the same in both; anything else is not checked.
        if (!/^[A-Z][a-z]?$/.test(name)) fail();
        out += `\\${e}{${name}}`;
        i = end + 1;
      } else if (/[1-9k]/.test(e))
        fail(); // backreference
      else out += `\\${e}`; // an escaped syntax character (or `-` in a class): literal in both
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c === '[' ? '\\[' : c; // RE2 reads `[:alpha:]` in a class as a POSIX class
    } else if (c === '[') {
      if (p.startsWith(']', i)) {
        out += '[^\\x{0}-\\x{10FFFF}]'; // JS `[]` matches nothing; RE2 refuses it
        i++;
      } else if (p.startsWith('^]', i)) {
        out += '[\\x{0}-\\x{10FFFF}]';
        i += 2;
      } else {
        inClass = true;
        out += c;
        if (p[i] === '^') out += p[i++];
      }
    } else if (c === '.') out += JS_DOT;
    else if (c === '(' && p.startsWith('?<', i) && p[i + 2] !== '=' && p[i + 2] !== '!') {
      out += '(?P<';
      i += 2;
    } else out += c;
  }
  return out;
}

function fail(): never {
  throw new Unsupported();
}

/** Patterns compiled so far, by source (null: not checkable); bounded by dropping all when full. */
let cache = new Map<string, RE2JS | null>();

function compiled(pattern: string, flags: string): RE2JS | null {
  const key = `${flags}/${pattern}`;
  let rx = cache.get(key);
  if (rx === undefined) {
    try {
      new RegExp(pattern, flags); // syntax check only (compiling runs nothing)
      rx = RE2JS.compile(translate(pattern));
    } catch {
      rx = null;
    }
    if (cache.size >= 1024) cache = new Map();
    cache.set(key, rx);
  }
  return rx;
}

/**
 * ajv's `code.regExp`: a linear-time matcher for a schema pattern. A pattern JavaScript refuses,
 * or that re2js cannot run (lookaround, backreferences), is not checked: it matches every string
 * (see also neutralisePatternProperties). It is never run on a backtracking engine.
 */
export function linearPattern(pattern: string, flags: string): RegExpLike & { toString(): string } {
  const rx = compiled(pattern, flags);
  // ajv keys compiled patterns by toString(): it must tell patterns apart.
  const source = `/${pattern}/${flags}`;
  return rx ? { test: (s) => rx.test(s), toString: () => source } : { test: () => true, toString: () => source };
}
linearPattern.code = 'linearPattern';

type Json = unknown;
type Schema = Record<string, Json>;

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SCHEMAS = [
  'additionalProperties',
  'items',
  'additionalItems',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedProperties',
  'unevaluatedItems',
];

const isObject = (v: Json): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of `o` with `key` set (an own data property, even for `__proto__`). */
function withKey<T extends object>(o: T, key: string | number, value: Json): T {
  const copy = (Array.isArray(o) ? [...o] : { ...o }) as T;
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Applies `f` to each value of a map or list, copying it only if one changes. */
function mapValues<T extends object>(o: T, f: (v: Json, k: string) => Json): T {
  let out = o;
  for (const [k, v] of Object.entries(o)) {
    const next = f(v, k);
    if (next !== v) out = withKey(out, Array.isArray(o) ? Number(k) : k, next);
  }
  return out;
}

/**
 * "Not checked" must never block. For `pattern` (and `propertyNames`) a pattern that matches
 * everything does that; under `patternProperties` it would instead apply the subschema to every
 * property. So the subschema of an uncheckable pattern becomes `true`: every property counts as
 * matched (none is "additional") and nothing is required of it. Only schema positions are
 * followed (never `const`, `enum` or `default` data). Copy on write: the server's schema is
 * never mutated, and an unaffected schema is returned as it is.
 */
export function neutralisePatternProperties(schema: Json, flags = 'u', depth = 0): Json {
  if (!isObject(schema) || depth > 200) return schema; // deeper schemas are left to ajv as they are
  const sub = (v: Json) => neutralisePatternProperties(v, flags, depth + 1);
  let out = schema;
  for (const key of Object.keys(schema)) {
    const v = schema[key];
    let next = v;
    if (SCHEMA_MAPS.includes(key) && isObject(v)) next = mapValues(v, (s) => (Array.isArray(s) ? s : sub(s)));
    else if (SCHEMA_LISTS.includes(key) && Array.isArray(v)) next = mapValues(v, sub);
    else if (SCHEMAS.includes(key)) next = sub(v);
    if (key === 'patternProperties' && isObject(next)) {
      next = mapValues(next, (s, pattern) => (compiled(pattern, flags) === null ? true : s));
    }
    if (next !== v) out = withKey(out, key, next);
  }
  return out;
}
