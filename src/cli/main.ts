// The mcp-payload-codec command: wrap any stdio MCP server, put the filter on Streamable HTTP
// (proxy, connect, serve), transform stdin to stdout, or scan NDJSON for U+FFFD. Node only (child processes, files); the library entries stay portable.
// This file loads only the parser and the help: each command's code (the codec and its WASM core,
// node:http, node:child_process) is imported when that command runs, so --help and wrap start
// without what they do not use.
import { type Command, type CommandLine, checkApplies, isCommand, notFor, type OptionName, parseCommandLine } from './args.js';
import { helpText } from './help/index.js';
import { UsageError } from './usage-error.js';

/** The guard asked for, after checking that --root and --audit have what they need (--call-timeout makes decisions too). */
function guardMode({ flags, lists, values }: CommandLine, command: Command): 'all' | 'tools' | false {
  if (flags.guard && flags['guard-tools-only'])
    throw new UsageError('--guard and --guard-tools-only: give one (--guard-tools-only checks tools only, --guard also U+FFFD)');
  const guard = flags.guard ? 'all' : flags['guard-tools-only'] ? 'tools' : false;
  if (lists.root && !guard) throw new UsageError('--root needs --guard or --guard-tools-only (the tool guard checks the paths)');
  if (flags['audit-all'] && values.audit === undefined) throw new UsageError('--audit-all needs --audit FILE');
  const timed = notFor(command, 'call-timeout') === undefined;
  if (values.audit !== undefined && !guard && values['call-timeout'] === undefined)
    throw new UsageError(
      `--audit needs --guard${timed ? ', --guard-tools-only or --call-timeout' : ' or --guard-tools-only'} (the decisions it records)`,
    );
  return guard;
}

/** The help `line` asks for (`--help`, `help [COMMAND]`, or no command at all), or undefined. */
function helpAsked(line: CommandLine): string | undefined {
  const { command, flags, positionals } = line;
  if (command === undefined) return helpText();
  if (!isCommand(command)) throw new UsageError(`unknown command ${JSON.stringify(command)} (see --help)`);
  if (flags.help) return helpText(command);
  if (command !== 'help') return undefined;
  checkApplies(line, command);
  if (positionals.length > 1) throw new UsageError('help takes at most one command');
  const about = positionals[0];
  if (about === undefined) return helpText();
  if (!isCommand(about)) throw new UsageError(`unknown command ${JSON.stringify(about)} (see --help)`);
  return helpText(about);
}

export async function main(argv: string[]): Promise<number> {
  let line = parseCommandLine(argv);
  const help = helpAsked(line);
  if (help !== undefined) {
    process.stdout.write(help);
    return line.command !== undefined || line.flags.help ? 0 : 2;
  }
  const command = line.command as Exclude<Command, 'help'>;
  checkApplies(line, command);
  const file = line.values.config;
  if (file !== undefined) {
    // (proxy and connect roots are the server's paths, checked lexically: as written, as on the command line)
    const serverPaths: OptionName[] = command === 'proxy' || command === 'connect' ? ['root'] : [];
    const { readConfig, withConfig } = await import('./config.js');
    line = withConfig(
      line,
      readConfig(file, (name) => notFor(command, name), serverPaths),
    );
  }
  const { codecOptions, framing, maxMessageBytes } = await import('./codec-options.js');
  const maxBytes = maxMessageBytes(line);
  const options = { ...codecOptions(line), ...(maxBytes === undefined ? {} : { maxMessageBytes: maxBytes }) };
  // (wrap builds it once its server is starting: wrap-command.ts)
  if (command !== 'wrap') (await import('./codec-build.js')).buildCodec(options);
  switch (command) {
    case 'wrap':
      return (await import('./wrap-command.js')).wrapCommand(line, options, guardMode(line, command));
    case 'proxy':
      return (await import('./proxy.js')).proxyCommand(line, options, guardMode(line, command));
    case 'connect':
      return (await import('./connect.js')).connectCommand(line, options, guardMode(line, command));
    case 'serve':
      return (await import('./serve.js')).serveCommand(line, options, guardMode(line, command));
    case 'encode':
    case 'decode':
      if (line.positionals.length)
        throw new UsageError(`${command} reads stdin and takes no file (got ${line.positionals.length} argument(s))`);
      return (await import('./transform.js')).transformStdio(command, { ...options, framing: framing(line) });
    default:
      if (line.positionals.length > 1) throw new UsageError('scan takes at most one file');
      return (await import('./scan.js')).scan(line.positionals[0]);
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
