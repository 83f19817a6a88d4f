// The mcp-payload-codec command: wrap any stdio MCP server, put the filter on Streamable HTTP
// (proxy, connect, serve), transform stdin to stdout, or scan NDJSON for U+FFFD. Node only (child processes, files); the library entries stay portable.
import { type CommandLine, type OptionName, parseCommandLine } from './cli/args.js';
import { codecOptions, framing, maxMessageBytes } from './cli/codec-options.js';
import { readConfig, withConfig } from './cli/config.js';
import { confirmOption } from './cli/confirm-option.js';
import { connectCommand } from './cli/connect.js';
import { HELP } from './cli/help.js';
import { callTimeout } from './cli/http-args.js';
import { proxyCommand } from './cli/proxy.js';
import { localRootsOption } from './cli/roots.js';
import { scan } from './cli/scan.js';
import { serveCommand } from './cli/serve.js';
import { transformStdio } from './cli/transform.js';
import { UsageError } from './cli/usage-error.js';
import { wrap } from './cli/wrap.js';

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
/** The options each command takes (help goes with all). */
const APPLIES: Record<string, readonly OptionName[]> = {
  wrap: [...CODEC, ...GUARD, 'confirm', ...TIMEOUT],
  proxy: [...CODEC, ...GUARD, ...TIMEOUT, ...LISTEN, ...ACCESS, 'upstream', 'upstream-header'],
  connect: [...CODEC, ...GUARD, ...TIMEOUT, 'header'],
  serve: [...CODEC, ...GUARD, 'confirm', ...TIMEOUT, ...LISTEN, ...ACCESS, 'session-idle', 'max-sessions'],
  encode: [...CODEC, 'framing'],
  decode: [...CODEC, 'framing'],
  scan: [],
};
const WHY: Partial<Record<OptionName, string>> = {
  framing: ' (wrap speaks NDJSON, as MCP stdio does)',
};

/** Why option `name` does not apply to `command` (help and config go with all), or undefined. */
function notFor(command: string, name: OptionName): string | undefined {
  if (name === 'help' || name === 'config' || APPLIES[command]!.includes(name)) return undefined;
  const users = Object.keys(APPLIES).filter((c) => APPLIES[c]!.includes(name));
  return `--${name} applies to ${users.join(', ')}, not ${command}${WHY[name] ?? ''}`;
}

function checkApplies(line: CommandLine, command: string): void {
  for (const name of [...Object.keys(line.values), ...Object.keys(line.lists), ...Object.keys(line.flags)] as OptionName[]) {
    const why = notFor(command, name);
    if (why) throw new UsageError(why);
  }
}

/** The guard asked for, after checking that --root and --audit have what they need (--call-timeout makes decisions too). */
function guardMode({ command, flags, lists, values }: CommandLine): 'all' | 'tools' | false {
  if (flags.guard && flags['guard-tools-only'])
    throw new UsageError('--guard and --guard-tools-only: give one (--guard-tools-only checks tools only, --guard also U+FFFD)');
  const guard = flags.guard ? 'all' : flags['guard-tools-only'] ? 'tools' : false;
  if (lists.root && !guard) throw new UsageError('--root needs --guard or --guard-tools-only (the tool guard checks the paths)');
  if (flags['audit-all'] && values.audit === undefined) throw new UsageError('--audit-all needs --audit FILE');
  const timed = APPLIES[command!]!.includes('call-timeout');
  if (values.audit !== undefined && !guard && values['call-timeout'] === undefined)
    throw new UsageError(
      `--audit needs --guard${timed ? ', --guard-tools-only or --call-timeout' : ' or --guard-tools-only'} (the decisions it records)`,
    );
  return guard;
}

export async function main(argv: string[]): Promise<number> {
  let line = parseCommandLine(argv);
  const { command } = line;
  if (line.flags.help || command === undefined) {
    process.stdout.write(HELP);
    return command !== undefined || line.flags.help ? 0 : 2;
  }
  if (!Object.hasOwn(APPLIES, command)) throw new UsageError(`unknown command ${JSON.stringify(command)} (see --help)`);
  checkApplies(line, command);
  const file = line.values.config;
  // (proxy and connect roots are the server's paths, checked lexically: as written, as on the command line)
  const serverPaths: OptionName[] = command === 'proxy' || command === 'connect' ? ['root'] : [];
  const config = file === undefined ? undefined : readConfig(file, (name) => notFor(command, name), serverPaths);
  if (config) line = withConfig(line, config);
  const maxBytes = maxMessageBytes(line);
  const options = { ...codecOptions(line), ...(maxBytes === undefined ? {} : { maxMessageBytes: maxBytes }) };
  switch (command) {
    case 'wrap': {
      const guard = guardMode(line);
      const roots = localRootsOption(line);
      const timeout = callTimeout(line);
      const confirm = confirmOption(line, guard);
      const audit = line.values.audit;
      return wrap(line.child ?? [], {
        stream: options,
        guard,
        ...(audit === undefined ? {} : { audit, auditAll: Boolean(line.flags['audit-all']) }),
        ...(roots ? { roots } : {}),
        ...timeout,
        ...(confirm ? { confirm } : {}),
      });
    }
    case 'proxy':
      return proxyCommand(line, options, guardMode(line));
    case 'connect':
      return connectCommand(line, options, guardMode(line));
    case 'serve':
      return serveCommand(line, options, guardMode(line));
    case 'encode':
    case 'decode':
      if (line.positionals.length)
        throw new UsageError(`${command} reads stdin and takes no file (got ${line.positionals.length} argument(s))`);
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
