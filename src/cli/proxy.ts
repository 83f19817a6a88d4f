// `mcp-payload-codec proxy --upstream URL [--port N] [--host H]`: the filtering proxy on a
// local port, in front of a remote Streamable HTTP server.
import type { Server } from 'node:http';
import type { CodecOptions } from '../codec/options.js';
import type { OnAudit } from '../guard/audit.js';
import type { AccessOptions } from '../http/access/index.js';
import type { GuardMode } from '../http/call-guard.js';
import { filteringProxy } from '../http/proxy.js';
import { commandAccess, upstreamHeaders } from './access-args.js';
import type { CommandLine } from './args.js';
import { auditOption } from './audit-file.js';
import { callTimeout, duration, port as portFlag, type StreamCommandOptions, untilSignal } from './http-args.js';
import { listen, listenDirect } from './node-http.js';
import { UPSTREAM_LIMITS, upstreamOpener } from './node-upstream.js';
import { lexicalRootsOption } from './roots.js';
import { UsageError } from './usage-error.js';

export interface ProxyCommandOptions extends CodecOptions {
  upstream: string;
  /** Default 127.0.0.1: the MCP spec asks local servers to bind to localhost only. */
  host?: string;
  /** Default 0 (a free port, printed). */
  port?: number;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  maxMessageBytes?: number;
  /** Check tool calls before they go up ('all': tools and U+FFFD, as wrap --guard). */
  guard?: GuardMode | false;
  /** With a guard: absolute folders (the upstream's) path arguments must stay in; a lexical check. */
  roots?: string[];
  /** With a guard: told each tools/call judged, with its session, before its answer or the call goes on. */
  onAudit?: OnAudit;
  /** Where the URL and log lines go; default stderr. */
  log?: (line: string) => void;
  /** Who may use it (authentication, per-credential limits); default: anyone who reaches it. */
  access?: AccessOptions;
  /** Headers set on every request sent upstream. */
  upstreamHeaders?: Record<string, string>;
  /** How long the upstream may keep silent before a response's head, and inside its body (node-upstream.ts); default 300 s. */
  upstreamTimeoutMs?: number;
  /** Answer a request the upstream leaves unanswered this long (http/timed.ts); default: none. */
  callTimeoutMs?: number;
  /** How long progress may keep a request going in all; default 10 times callTimeoutMs. */
  callTimeoutMaxMs?: number;
}

/** Starts the proxy; resolves with the server and the URL of its MCP endpoint once listening. */
export async function runProxy(options: ProxyCommandOptions): Promise<{ server: Server; url: string }> {
  const {
    upstream,
    host = '127.0.0.1',
    port = 0,
    log = (line) => process.stderr.write(`mcp-payload-codec: ${line}\n`),
    access,
    upstreamTimeoutMs,
    ...rest
  } = options;
  // (GET event streams over node:http, held without fetch or Web streams: node-upstream.ts)
  const limits = upstreamTimeoutMs === undefined ? UPSTREAM_LIMITS : { headersMs: upstreamTimeoutMs, bodyIdleMs: upstreamTimeoutMs };
  // (served without Web objects unless an access layer, which reads Web Requests, comes first)
  const { direct, web } = filteringProxy({ ...rest, ...access, upstream, onLog: log, openStream: upstreamOpener(limits) });
  const { server, url } = await (direct ? listenDirect(direct, host, port, log) : listen(web, host, port, log));
  log(`proxy listening on ${url}/mcp (upstream ${new URL(upstream).origin})`);
  return { server, url: `${url}/mcp` };
}

/** `proxy` from its command line; runs until SIGINT/SIGTERM/SIGHUP, then resolves 0. */
export async function proxyCommand(line: CommandLine, options: StreamCommandOptions, guard: GuardMode | false): Promise<number> {
  const { values, lists, positionals } = line;
  if (positionals.length) throw new UsageError('proxy takes no positional arguments (use --upstream URL)');
  if (values.upstream === undefined) throw new UsageError('proxy needs --upstream URL');
  let upstream: URL;
  try {
    upstream = new URL(values.upstream);
  } catch {
    throw new UsageError('--upstream must be an http: or https: URL');
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new UsageError('--upstream must be an http: or https: URL');
  const host = values.host ?? '127.0.0.1';
  const log = (text: string) => process.stderr.write(`mcp-payload-codec: ${text}\n`);
  const { access, reload } = await commandAccess(line, host, log);
  const roots = lexicalRootsOption(line);
  const audit = auditOption(line, log);
  // (listening for signals before listening on the port: a SIGHUP just after the URL is printed
  // re-reads the token file, where it used to find no handler yet and end the process)
  const stopped = untilSignal(reload && (() => void reload()));
  const { server } = await runProxy({
    ...options,
    upstream: values.upstream,
    port: portFlag(values.port, 8080),
    host,
    allowedHosts: lists['allowed-host'],
    allowedOrigins: lists['allowed-origin'],
    guard,
    ...(roots ? { roots } : {}),
    ...(audit ? { onAudit: audit.onAudit } : {}),
    log,
    access,
    upstreamHeaders: upstreamHeaders(lists['upstream-header'] ?? []),
    upstreamTimeoutMs: duration(values['upstream-timeout'], '--upstream-timeout', UPSTREAM_LIMITS.headersMs),
    ...callTimeout(line),
  });
  await stopped;
  server.closeAllConnections();
  server.close();
  audit?.close();
  return 0;
}
