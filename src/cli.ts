// The mcp-payload-codec command: wrap any stdio MCP server, put the filter on Streamable HTTP
// (proxy, connect, serve), transform stdin to stdout, or scan NDJSON for U+FFFD. Node only (child processes, files); the library entries stay portable.
import { parseCommandLine, type CommandLine, type FlagOption, type ValueOption } from './cli/args.js';
import { connectCommand } from './cli/connect.js';
import { proxyCommand } from './cli/proxy.js';
import { serveCommand } from './cli/serve.js';
import { codecOptions, framing, maxMessageBytes } from './cli/codec-options.js';
import { HELP } from './cli/help.js';
import { scan } from './cli/scan.js';
import { transformStdio } from './cli/transform.js';
import { UsageError } from './cli/usage-error.js';
import { wrap } from './cli/wrap.js';

const CODEC = ['prefix', 'suffix', 'hex-case', 'fold', 'terms'] as const;
/** The options each command takes (help goes with all). */
const APPLIES: Record<string, readonly (ValueOption | FlagOption)[]> = {
  wrap: [...CODEC, 'max-message-bytes', 'guard', 'guard-tools-only'],
  encode: [...CODEC, 'max-message-bytes', 'framing'],
  decode: [...CODEC, 'max-message-bytes', 'framing'],
  scan: [],
};
const WHY: Partial<Record<ValueOption | FlagOption, string>> = {
  framing: ' (wrap speaks NDJSON, as MCP stdio does)',
};

function checkApplies(line: CommandLine, command: string): void {
  const allowed = APPLIES[command]!;
  for (const name of [...Object.keys(line.values), ...Object.keys(line.flags)] as (ValueOption | FlagOption)[]) {
    if (name === 'help' || allowed.includes(name)) continue;
    const users = Object.keys(APPLIES).filter((c) => APPLIES[c]!.includes(name));
    throw new UsageError(`--${name} applies to ${users.join(' and ')}, not ${command}${WHY[name] ?? ''}`);
  }
}

/** The HTTP commands parse their own options; the codec options are taken out first. */
const HTTP_COMMANDS = { proxy: proxyCommand, connect: connectCommand } as const;

function httpCommand(argv: string[]): Promise<number> {
  const command = argv[0]!;
  const dashdash = argv.indexOf('--');
  const own = dashdash >= 0 ? argv.slice(1, dashdash) : argv.slice(1);
  const values: CommandLine['values'] = {};
  const rest: string[] = [];
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq < 0 ? undefined : eq) : '';
    if (!(CODEC as readonly string[]).includes(name)) {
      rest.push(arg);
      continue;
    }
    if (values[name as ValueOption] !== undefined) throw new UsageError(`--${name} given twice`);
    const value = eq >= 0 ? arg.slice(eq + 1) : own[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    values[name as ValueOption] = value;
  }
  const options = codecOptions({ command, values, flags: {}, positionals: [], child: undefined });
  if (command === 'serve') return serveCommand(rest, dashdash >= 0 ? argv.slice(dashdash + 1) : [], options);
  return HTTP_COMMANDS[command as keyof typeof HTTP_COMMANDS](rest, options);
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'proxy' || argv[0] === 'connect' || argv[0] === 'serve') return httpCommand(argv);
  const line = parseCommandLine(argv);
  const { command } = line;
  if (line.flags.help || command === undefined) {
    process.stdout.write(HELP);
    return command !== undefined || line.flags.help ? 0 : 2;
  }
  if (!APPLIES[command]) throw new UsageError(`unknown command ${JSON.stringify(command)} (see --help)`);
  checkApplies(line, command);
  const maxBytes = maxMessageBytes(line);
  const options = { ...codecOptions(line), ...(maxBytes === undefined ? {} : { maxMessageBytes: maxBytes }) };
  switch (command) {
    case 'wrap':
      if (line.flags.guard && line.flags['guard-tools-only']) throw new UsageError('--guard and --guard-tools-only: give one (--guard-tools-only checks tools only, --guard also U+FFFD)');
      return wrap(line.child ?? [], { stream: options, guard: line.flags.guard ? 'all' : line.flags['guard-tools-only'] ? 'tools' : false });
    case 'encode':
    case 'decode':
      if (line.positionals.length) throw new UsageError(`${command} reads stdin and takes no file (got ${line.positionals.length} argument(s))`);
      return transformStdio(command, { ...options, framing: framing(line) });
    default:
      if (line.positionals.length > 1) throw new UsageError('scan takes at most one file');
      return scan(line.positionals[0]);
  }
}

export function run(argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`mcp-payload-codec: ${(e as Error).message.split('\n')[0]}\n`);
      process.exitCode = e instanceof UsageError ? 2 : 1;
    },
  );
}
