// Who may use `serve` and `proxy`, from their command line: bearer tokens (a file re-read on
// SIGHUP, or MCP_PAYLOAD_CODEC_AUTH_TOKENS), an OAuth issuer, per-credential limits, and the
// safe default: listening beyond loopback without any of it refuses to start (exit 2) unless
// --no-auth says so. No token is ever printed, and the variable is taken out of the
// environment once read, so no child inherits it.
import { readFileSync } from 'node:fs';
import { type AccessOptions, type Authorize, bearerTokens, oauthResource } from '../http/access/index.js';
import { isFieldName, isFieldText } from '../http/proxy-headers.js';
import { AUTH_TOKENS_ENV, type CommandLine } from './args.js';
import { positiveInt } from './http-args.js';
import { UsageError } from './usage-error.js';

/** Loopback names and addresses (127.0.0.0/8, ::1, localhost): reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** The tokens in `text` (one per line; blank lines and # comments skipped); `where` names the source in errors. */
function tokensIn(text: string, where: string): string[] {
  const tokens: string[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (/\s/.test(line)) throw new UsageError(`${where} line ${i + 1}: one token per line`);
    tokens.push(line);
  }
  return tokens;
}

export interface CommandAccess {
  access: AccessOptions | undefined;
  /** Re-reads the token file (SIGHUP); undefined when there is none. */
  reload: (() => Promise<void>) | undefined;
}

/** The access options from the command line; `host` is where the command listens. */
export async function commandAccess(line: CommandLine, host: string, log: (line: string) => void): Promise<CommandAccess> {
  const { values, lists, flags } = line;
  const file = values['auth-token-file'];
  const fromEnv = process.env[AUTH_TOKENS_ENV];
  delete process.env[AUTH_TOKENS_ENV]; // (no child inherits it)
  const issuer = values['oauth-issuer'];
  const audience = values['oauth-audience'];
  const scopes = lists['oauth-scope'] ?? [];
  const resource = values['oauth-resource'];
  const hasTokens = file !== undefined || (fromEnv !== undefined && fromEnv.trim() !== '');
  const any = hasTokens || issuer !== undefined;
  if (flags['no-auth'] && any) throw new UsageError('--no-auth contradicts the authentication options given');
  if (issuer === undefined && (audience !== undefined || scopes.length || resource !== undefined))
    throw new UsageError('--oauth-audience, --oauth-scope and --oauth-resource need --oauth-issuer');
  if (issuer !== undefined && audience === undefined)
    throw new UsageError('--oauth-issuer needs --oauth-audience (the identifier tokens must be issued for)');
  for (const [flag, url] of [
    ['--oauth-issuer', issuer],
    ['--oauth-resource', resource],
  ] as const)
    if (url !== undefined && !/^https?:\/\//.test(url)) throw new UsageError(`${flag} must be an http: or https: URL`);
  const limited = values.rate !== undefined || values['max-sessions-per-client'] !== undefined;
  if (!any) {
    if (limited) throw new UsageError('--rate and --max-sessions-per-client are per credential: they need authentication');
    if (!isLoopback(host) && !flags['no-auth'])
      throw new UsageError(
        `refusing to listen on ${host} without authentication: anyone who reaches it could use the server. ` +
          `Give --auth-token-file FILE, ${AUTH_TOKENS_ENV} or --oauth-issuer, or --no-auth to allow it`,
      );
    if (flags['no-auth']) log(`--no-auth: anyone who reaches ${host} can use this server`);
    return { access: undefined, reload: undefined };
  }
  const readTokens = (): string[] => {
    const list: string[] = [];
    if (file !== undefined) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        throw new UsageError(`--auth-token-file: cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      list.push(...tokensIn(text, '--auth-token-file'));
    }
    if (fromEnv !== undefined) list.push(...tokensIn(fromEnv.replace(/,/g, '\n'), AUTH_TOKENS_ENV));
    return list;
  };
  const oauth: Authorize | undefined =
    issuer === undefined
      ? undefined
      : oauthResource({ issuer, audience: audience!, scopes, ...(resource ? { resource } : {}), onLog: log });
  let tokens: Awaited<ReturnType<typeof bearerTokens>> | undefined;
  if (hasTokens) {
    const list = readTokens();
    if (!list.length && !oauth) throw new UsageError('no bearer tokens given (the token file and the variable are empty)');
    try {
      tokens = await bearerTokens(list, oauth);
    } catch (e) {
      throw new UsageError(`${file !== undefined ? '--auth-token-file' : AUTH_TOKENS_ENV}: ${(e as Error).message}`);
    }
  }
  const authorize = tokens?.authorize ?? oauth!;
  const reload =
    tokens && file !== undefined
      ? async () => {
          try {
            const list = readTokens();
            // (an emptied file is a mistake more often than a wish to lock everyone out)
            if (!list.length && !oauth) throw new Error('it holds no token');
            await tokens!.replace(list);
            log(`auth: ${list.length} token${list.length === 1 ? '' : 's'} in force (re-read on SIGHUP)`);
          } catch (e) {
            // A bad file keeps the tokens in force: a typo must not lock everyone out, or let everyone in.
            log(`auth: token file not re-read, the previous tokens stay: ${(e as Error).message}`);
          }
        }
      : undefined;
  return {
    access: {
      authorize,
      // (`10` or `10/s`, as #34 writes it)
      ratePerSecond: values.rate === undefined ? undefined : positiveInt(values.rate.replace(/\/s$/, ''), '--rate', 0),
      maxSessionsPerClient:
        values['max-sessions-per-client'] === undefined
          ? undefined
          : positiveInt(values['max-sessions-per-client'], '--max-sessions-per-client', 0),
      onLog: log,
    },
    reload,
  };
}

/** `--upstream-header 'Name: value'` lines as headers (names and values checked; values never printed). */
export function upstreamHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [i, line] of lines.entries()) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!isFieldName(name)) throw new UsageError(`--upstream-header ${i + 1} must be 'Name: value' with a valid header name`);
    const value = line.slice(colon + 1).trim();
    // (at start: sent as it is, such a value would fail every request upstream, a 502 each)
    if (!isFieldText(value))
      throw new UsageError(
        `--upstream-header ${i + 1} (${name}): its value holds a character a header cannot carry (a control character, CR or LF, or past U+00FF)`,
      );
    headers[name.toLowerCase()] = value;
  }
  return headers;
}
