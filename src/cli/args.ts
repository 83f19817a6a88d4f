// The command line, parsed by hand: node:util's parseArgs cannot stop at the first argument
// that is not ours, which `wrap` needs (MCP Inspector's CLIs consume `--` themselves, so
// `wrap server --flag` must work without it).
//
// Rules: every option of ours either always takes a value (`--prefix X` or `--prefix=X`) or
// never does (`--guard`); none takes an optional one, so no argument's meaning depends on the
// next, except that a separate value may not be one of our options (`--prefix --guard` is
// refused; `--prefix=--guard` gives that prefix). Options may come before or after the command name. For a command that runs a child
// (`wrap`, `serve`), the first argument that is not an option of ours starts the
// child's command line, and everything from there on is the child's, even `--guard` or `--`.
// `--` ends our options anywhere.
import type { TermSetInput } from '../codec/terms.js';
import { UsageError } from './usage-error.js';

export const VALUE_OPTIONS = [
  'framing',
  'prefix',
  'suffix',
  'hex-case',
  'fold',
  'terms',
  'max-message-bytes',
  'upstream',
  'upstream-timeout',
  'port',
  'host',
  'session-idle',
  'max-sessions',
  'auth-token-file',
  'oauth-issuer',
  'oauth-audience',
  'oauth-resource',
  'rate',
  'max-sessions-per-client',
  'call-timeout',
  'call-timeout-max',
  'audit',
  'config',
] as const;
/** Options that take a value and may be given again, each time adding one. */
export const LIST_OPTIONS = ['header', 'allowed-host', 'allowed-origin', 'oauth-scope', 'upstream-header', 'root', 'confirm'] as const;
export const FLAG_OPTIONS = ['audit-all', 'guard', 'guard-tools-only', 'help', 'no-auth'] as const;

/**
 * What an option's value is, where it is more than any string: the config file is checked
 * against it and its JSON Schema made from it (config.ts, config-schema.ts), so an option added
 * above is taken from the file as a string, a list of strings or a boolean without a word here.
 */
export type ValueType =
  | { kind: 'string' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'integer'; min: number; max: number }
  /** '90s', '10m', '1h', or plain seconds (not 0): as `duration` in http-args.ts reads it. */
  | { kind: 'duration' }
  /** A file or folder: in a config file, relative to the file's folder (but a `word` it may be instead). */
  | { kind: 'path'; words?: readonly string[] }
  /** A terms file's path, or (in a config file) the terms object itself. */
  | { kind: 'terms' };

const count = (min: number, max = Number.MAX_SAFE_INTEGER): ValueType => ({ kind: 'integer', min, max });
/** The type of each value or list item that is not a plain string. */
export const VALUE_TYPES: { readonly [name in ValueOption | ListOption]?: ValueType } = {
  framing: { kind: 'enum', values: ['ndjson', 'content-length', 'sse'] },
  'hex-case': { kind: 'enum', values: ['lower', 'upper'] },
  fold: { kind: 'enum', values: ['ascii', 'nfkc'] },
  terms: { kind: 'terms' },
  'max-message-bytes': count(1),
  port: count(0, 65535),
  'upstream-timeout': { kind: 'duration' },
  'session-idle': { kind: 'duration' },
  'max-sessions': count(1),
  'auth-token-file': { kind: 'path' },
  rate: count(1),
  'max-sessions-per-client': count(1),
  'call-timeout': { kind: 'duration' },
  'call-timeout-max': { kind: 'duration' },
  audit: { kind: 'path' },
  root: { kind: 'path', words: ['client'] },
};
export const valueType = (name: ValueOption | ListOption): ValueType => VALUE_TYPES[name] ?? { kind: 'string' };

/** Flags of which a command takes one: the one on the command line replaces the file's. */
export const ONE_OF: readonly (readonly FlagOption[])[] = [['guard', 'guard-tools-only']];

/** Options a config file does not hold, and why (the command line still takes them). */
export const NOT_IN_CONFIG: { readonly [name in OptionName]?: string } = {
  help: 'an action, not a setting',
  config: 'a config file does not name another',
  header: 'headers carry credentials, which a config file must not hold',
  'upstream-header': 'headers carry credentials, which a config file must not hold',
};
/** Why a config file does not hold `name` (its own entry only: `toString` is no option), or undefined. */
export const notInConfig = (name: string): string | undefined =>
  Object.hasOwn(NOT_IN_CONFIG, name) ? NOT_IN_CONFIG[name as OptionName] : undefined;

/** Commands whose arguments end with a child's command line. */
export const CHILD_COMMANDS: ReadonlySet<string> = new Set(['wrap', 'serve']);

/** The environment variable that gives serve and proxy their bearer tokens, beside --auth-token-file. */
export const AUTH_TOKENS_ENV = 'MCP_PAYLOAD_CODEC_AUTH_TOKENS';

const CODEC = ['prefix', 'suffix', 'hex-case', 'fold', 'terms', 'max-message-bytes'] as const;
const GUARD = ['guard', 'guard-tools-only', 'root', 'audit', 'audit-all'] as const;
const TIMEOUT = ['call-timeout', 'call-timeout-max'] as const;
const LISTEN = ['port', 'host', 'allowed-host', 'allowed-origin'] as const;
const ACCESS = [
  'auth-token-file',
  'oauth-issuer',
  'oauth-audience',
  'oauth-scope',
  'oauth-resource',
  'rate',
  'max-sessions-per-client',
  'no-auth',
] as const;
/** Options every command takes. */
export const EVERY_COMMAND = ['config', 'help'] as const satisfies readonly OptionName[];
/**
 * The commands (in the order refusals name them) and the options each takes besides those, in
 * the order its help lists them: the parser refuses the others (notFor), and `COMMAND --help` is
 * made from this (help/render.ts).
 */
export const APPLIES = {
  wrap: [...GUARD, 'confirm', ...TIMEOUT, ...CODEC],
  proxy: ['upstream', ...LISTEN, 'upstream-header', 'upstream-timeout', ...GUARD, ...TIMEOUT, ...ACCESS, ...CODEC],
  connect: ['header', ...GUARD, ...TIMEOUT, ...CODEC],
  serve: [
    'port',
    'host',
    'session-idle',
    'max-sessions',
    'allowed-host',
    'allowed-origin',
    ...GUARD,
    'confirm',
    ...TIMEOUT,
    ...ACCESS,
    ...CODEC,
  ],
  encode: ['framing', ...CODEC],
  decode: ['framing', ...CODEC],
  scan: [],
  help: [],
} as const satisfies Record<string, readonly OptionName[]>;
export type Command = keyof typeof APPLIES;
export const COMMANDS = Object.keys(APPLIES) as Command[];
export const isCommand = (name: string): name is Command => Object.hasOwn(APPLIES, name);
/** The options `command` takes, those of every command last. */
export const optionsOf = (command: Command): readonly OptionName[] => [...APPLIES[command], ...EVERY_COMMAND];

const WHY: Partial<Record<OptionName, string>> = {
  framing: ' (wrap speaks NDJSON, as MCP stdio does)',
};
/** Why option `name` does not apply to `command`, or undefined. */
export function notFor(command: Command, name: OptionName): string | undefined {
  if (optionsOf(command).includes(name)) return undefined;
  const users = COMMANDS.filter((c) => optionsOf(c).includes(name));
  return `--${name} applies to ${users.join(', ')}, not ${command}${WHY[name] ?? ''}`;
}

/** Refuses the first option on `line` that its command does not take. */
export function checkApplies(line: CommandLine, command: Command): void {
  for (const name of [...Object.keys(line.values), ...Object.keys(line.lists), ...Object.keys(line.flags)] as OptionName[]) {
    const why = notFor(command, name);
    if (why) throw new UsageError(why);
  }
}

export type ValueOption = (typeof VALUE_OPTIONS)[number];
export type ListOption = (typeof LIST_OPTIONS)[number];
export type FlagOption = (typeof FLAG_OPTIONS)[number];
/** Any option's name. */
export type OptionName = ValueOption | ListOption | FlagOption;

export interface CommandLine {
  command: string | undefined;
  values: Partial<Record<ValueOption, string>>;
  lists: Partial<Record<ListOption, string[]>>;
  flags: Partial<Record<FlagOption, true>>;
  /** Plain arguments after the command name (for a child command: none). */
  positionals: string[];
  /** For wrap and serve: the child's command line, from its file name on. */
  child: string[] | undefined;
  /** The terms object a config file holds inline (a terms file in `values.terms` replaces it). */
  inlineTerms?: TermSetInput;
}

const SHORT: Record<string, FlagOption> = { '-h': 'help' };

const isValueOption = (name: string): name is ValueOption => (VALUE_OPTIONS as readonly string[]).includes(name);
const isFlagOption = (name: string): name is FlagOption => (FLAG_OPTIONS as readonly string[]).includes(name);
const isListOption = (name: string): name is ListOption => (LIST_OPTIONS as readonly string[]).includes(name);

/** The option of ours that `arg` names (`--guard`, `--prefix=x`, `-h`), or undefined. */
function optionNamed(arg: string): string | undefined {
  if (Object.hasOwn(SHORT, arg)) return arg;
  if (!arg.startsWith('--')) return undefined;
  const eq = arg.indexOf('=');
  const name = arg.slice(2, eq < 0 ? undefined : eq);
  return isFlagOption(name) || isValueOption(name) || isListOption(name) ? `--${name}` : undefined;
}

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const line: CommandLine = { command: undefined, values: {}, lists: {}, flags: {}, positionals: [], child: undefined };
  const seen = new Set<string>();
  const once = (name: string) => {
    if (seen.has(name)) throw new UsageError(`--${name} given twice`);
    seen.add(name);
  };
  // A plain argument: the command name, then positionals or the child's command line.
  const plain = (i: number): boolean => {
    const arg = argv[i]!;
    if (line.command === undefined) {
      line.command = arg;
      return false;
    }
    if (CHILD_COMMANDS.has(line.command)) {
      line.child = argv.slice(i);
      return true;
    }
    line.positionals.push(arg);
    return false;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      for (let j = i + 1; j < argv.length; j++) if (plain(j)) break;
      // `wrap --` with nothing after it: no child command (reported by the caller).
      return line;
    }
    if (!arg.startsWith('-') || arg === '-') {
      if (plain(i)) return line;
      continue;
    }
    if (SHORT[arg]) {
      once(SHORT[arg]);
      line.flags[SHORT[arg]] = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq < 0 ? undefined : eq) : '';
    if (isFlagOption(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      once(name);
      line.flags[name] = true;
    } else if (isValueOption(name) || isListOption(name)) {
      let value: string;
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length) {
        value = argv[++i]!;
        // `--prefix --guard` is more likely a forgotten value than a prefix: taken as one, the
        // guard would be silently off. Such a value must come joined, which cannot be a slip.
        const ours = optionNamed(value);
        if (ours)
          throw new UsageError(`--${name} needs a value, and ${ours} is an option; to give it as the value, write --${name}=${value}`);
      } else throw new UsageError(`--${name} needs a value`);
      if (isListOption(name)) line.lists[name] = [...(line.lists[name] ?? []), value];
      else {
        once(name);
        line.values[name] = value;
      }
    } else {
      // Not ours: a typo, or a child command that starts with '-' (put -- before it).
      throw new UsageError(
        `unknown option ${JSON.stringify(arg.slice(0, eq < 0 ? undefined : eq))} (see --help; put -- before a command that starts with -)`,
      );
    }
  }
  return line;
}
