// --config FILE: a command's options from a JSON object whose keys are the options' names (as
// written after `--`). Each value is checked against the option's type in args.ts before
// anything starts; a key that is no option, or a value of the wrong type, is a usage error
// (exit 2) naming its JSON pointer (`/root/2`), never the value. The checked file becomes
// command-line values, so every later check (ranges, options that need others) is the command
// line's own. The command line wins: a value or a list given there replaces the file's (a list
// whole), and a flag set in either is set (--guard-tools-only there replaces the file's guard).
import { closeSync, openSync, readSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { TermSetInput } from '../codec/terms.js';
import { isObject } from '../util/json.js';
import {
  type CommandLine,
  FLAG_OPTIONS,
  type FlagOption,
  LIST_OPTIONS,
  type ListOption,
  notInConfig,
  ONE_OF,
  type OptionName,
  VALUE_OPTIONS,
  type ValueOption,
  type ValueType,
  valueType,
} from './args.js';
import { DURATION } from './http-args.js';
import { UsageError } from './usage-error.js';

/** What a config file gives, in the command line's form. */
export type ConfigOptions = Pick<CommandLine, 'values' | 'lists' | 'flags' | 'inlineTerms'>;

/** The terms object's fields (TermSetInput): each a list of terms, pairs a list of two-term lists. */
export const TERMS_FIELDS = ['ascii', 'exact', 'pairs'] as const;

const has = (list: readonly string[], name: string) => list.includes(name);

/** A JSON pointer (RFC 6901) to `key` under `at`, with control characters escaped for stderr. */
export function pointer(at: string, key: string | number): string {
  const token = String(key).replaceAll('~', '~0').replaceAll('/', '~1');
  return at + '/' + token.replace(/[^ -~\u00a0-\u2027\u202a-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const refuse = (at: string, what: string): never => {
  throw new UsageError(at ? `${at}: ${what}` : what);
};

function nonEmptyString(value: unknown, at: string, what = 'must be a non-empty string'): string {
  if (typeof value !== 'string' || value === '') refuse(at, what);
  return value as string;
}

/** Reads a terms object as createCodec takes it; only its shape here (createCodec checks the terms). */
function inlineTerms(value: Record<string, unknown>, at: string): TermSetInput {
  const terms: { -readonly [k in keyof TermSetInput]: string[] | [string, string][] } = {};
  for (const [field, list] of Object.entries(value)) {
    const here = pointer(at, field);
    if (!has(TERMS_FIELDS, field)) refuse(here, `is not a field of terms (${TERMS_FIELDS.join(', ')})`);
    if (!Array.isArray(list)) refuse(here, 'must be an array');
    const strings = (items: unknown[], where: string) => items.map((t, i) => nonEmptyString(t, pointer(where, i)));
    terms[field as keyof TermSetInput] =
      field === 'pairs'
        ? (list as unknown[]).map((pair, i) => {
            const there = pointer(here, i);
            if (!Array.isArray(pair) || pair.length !== 2) refuse(there, 'must be a pair of terms ["first", "second"]');
            return strings(pair as unknown[], there) as [string, string];
          })
        : strings(list as unknown[], here);
  }
  return terms as TermSetInput;
}

/**
 * One value checked against its type: the command-line string it stands for, or inline terms.
 * A path is taken from `dir`, unless there is none (the server's path: as written).
 */
function checked(type: ValueType, value: unknown, at: string, dir: string | undefined): string | TermSetInput {
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') refuse(at, 'must be a string');
      return value as string;
    case 'enum':
      if (typeof value !== 'string' || !type.values.includes(value)) refuse(at, `must be one of ${type.values.join(', ')}`);
      return value as string;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < type.min || value > type.max)
        refuse(at, `must be a whole number from ${type.min} to ${type.max}`);
      return String(value);
    case 'duration':
      if (typeof value !== 'string' || !DURATION.test(value)) refuse(at, 'must be a duration such as "90s", "10m" or "1h"');
      return value as string;
    case 'path': {
      if (typeof value === 'string' && type.words?.includes(value)) return value; // (`"root": ["client"]`)
      const path = nonEmptyString(value, at, 'must be a non-empty path (relative to the config file)');
      return dir === undefined ? path : resolve(dir, path);
    }
    case 'terms':
      if (isObject(value)) return inlineTerms(value, at);
      return resolve(dir!, nonEmptyString(value, at, 'must be a terms file (relative to the config file) or the terms object'));
  }
}

/**
 * A parsed config file checked and turned into command-line values; relative paths are taken
 * from `dir` (the file's folder), except those of `serverPaths` (the server's own, where it runs
 * elsewhere: proxy and connect roots), taken as written. `notFor(name)` says why an option does
 * not apply to the command, or nothing when it does. Throws a UsageError naming the JSON pointer.
 */
export function configFromJson(
  json: unknown,
  dir: string,
  notFor: (name: OptionName) => string | undefined = () => undefined,
  serverPaths: readonly OptionName[] = [],
): ConfigOptions {
  if (!isObject(json)) refuse('', 'must hold a JSON object of options');
  const config: ConfigOptions = { values: {}, lists: {}, flags: {} };
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    const at = pointer('', key);
    if (key === '$schema') {
      if (typeof value !== 'string') refuse(at, 'must be a string');
      continue;
    }
    const inConfig = (list: readonly string[]) => has(list, key) && notInConfig(key) === undefined;
    if (!inConfig(VALUE_OPTIONS) && !inConfig(LIST_OPTIONS) && !inConfig(FLAG_OPTIONS)) {
      const why = notInConfig(key);
      refuse(at, why ? `is not taken from a config file (${why}); give --${key} on the command line` : 'is not an option (see --help)');
    }
    const why = notFor(key as OptionName);
    if (why) refuse(at, why);
    const from = serverPaths.includes(key as OptionName) ? undefined : dir;
    if (has(FLAG_OPTIONS, key)) {
      if (typeof value !== 'boolean') refuse(at, 'must be true or false');
      if (value) config.flags[key as FlagOption] = true;
    } else if (has(LIST_OPTIONS, key)) {
      if (!Array.isArray(value)) refuse(at, 'must be an array');
      const type = valueType(key as ListOption);
      config.lists[key as ListOption] = (value as unknown[]).map((item, i) => checked(type, item, pointer(at, i), from) as string);
    } else {
      const got = checked(valueType(key as ValueOption), value, at, from);
      if (typeof got === 'string') config.values[key as ValueOption] = got;
      else config.inlineTerms = got;
    }
  }
  return config;
}

/** A config holds options: past this it is not read on (/dev/zero or an endless pipe named by mistake). */
export const CONFIG_MAX_BYTES = 4 << 20;

/** At most `max` + 1 bytes of the file, so that a larger one can be told from one of `max`. */
function readBounded(file: string, max: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(max + 1);
    let length = 0;
    for (let n = 1; n > 0 && length <= max; length += n) n = readSync(fd, buffer, length, max + 1 - length, null);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** Reads `--config FILE` (relative to the working directory); usage errors name the file (see configFromJson). */
export function readConfig(
  file: string,
  notFor: (name: OptionName) => string | undefined,
  serverPaths: readonly OptionName[] = [],
): ConfigOptions {
  const fail = (what: string): never => {
    throw new UsageError(`--config ${file}: ${what}`);
  };
  let bytes: Buffer = Buffer.alloc(0);
  try {
    bytes = readBounded(file, CONFIG_MAX_BYTES);
  } catch (e) {
    fail(`cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (bytes.length > CONFIG_MAX_BYTES) fail(`larger than ${CONFIG_MAX_BYTES >> 20} MiB`);
  const text = bytes.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    // V8's message may quote the text: say where only, when it says where.
    const at = /at position (\d+)/.exec((e as Error).message);
    const before = at ? text.slice(0, Number(at[1])).split('\n') : undefined;
    fail(`not JSON${before ? ` (line ${before.length}, column ${before.at(-1)!.length + 1})` : ''}`);
  }
  try {
    return configFromJson(json, dirname(resolve(file)), notFor, serverPaths);
  } catch (e) {
    if (e instanceof UsageError) fail(e.message);
    throw e;
  }
}

/**
 * The command line over the config file: its values and lists replace the file's; flags add,
 * except that a flag of a ONE_OF group on the command line replaces the file's flags of that group.
 */
export function withConfig(line: CommandLine, config: ConfigOptions): CommandLine {
  const flags = { ...config.flags };
  for (const group of ONE_OF) if (group.some((f) => line.flags[f])) for (const f of group) delete flags[f];
  const merged: CommandLine = {
    ...line,
    values: { ...config.values, ...line.values },
    lists: { ...config.lists, ...line.lists },
    flags: { ...flags, ...line.flags },
  };
  if (line.values.terms === undefined && config.inlineTerms !== undefined) merged.inlineTerms = config.inlineTerms;
  return merged;
}
