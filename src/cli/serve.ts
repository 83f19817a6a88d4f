// `mcp-payload-codec serve [options] -- <command> [args...]`: exposes a stdio MCP server over
// Streamable HTTP at /mcp, filtered. One child per MCP session, started at initialize and ended
// on DELETE, after --session-idle without a request, or when it exits. The HTTP side is serve's
// own (serve-handler.ts, serve-session.ts), on bytes: the SDK's transport takes and gives parsed values, which
// changed numbers (12345678901234567890 reached the child as 12345678901234567000); it follows
// the SDK's in sessions, headers, status codes, event ids and resumption.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createCodec } from '../codec/codec.js';
import type { CodecOptions } from '../codec/options.js';
import type { OnAudit } from '../guard/audit.js';
import { Roots } from '../guard/paths.js';
import type { AccessOptions } from '../http/access/index.js';
import { CallGuard, type GuardMode } from '../http/call-guard.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { commandAccess } from './access-args.js';
import type { CommandLine } from './args.js';
import { auditOption } from './audit-file.js';
import { confirmOption } from './confirm-option.js';
import { callTimeout, duration, port as portFlag, positiveInt, type StreamCommandOptions, untilSignal } from './http-args.js';
import { listen } from './node-http.js';
import { localRealpath, localRootsOption } from './roots.js';
import { ServeHandler } from './serve-handler.js';
import { ServeSession } from './serve-session.js';
import { ServeSessions } from './serve-sessions.js';
import { UsageError } from './usage-error.js';

export { MAX_IN_FLIGHT, PENDING_BYTES, PENDING_MESSAGES, SERVE_HOLD_BYTES } from './serve-session.js';

/** At shutdown, how long responses still being sent (the answers to calls in flight) have to finish. */
const SHUTDOWN_GRACE_MS = 1000;

export interface ServeCommandOptions extends CodecOptions {
  command: string[];
  host?: string;
  port?: number;
  /** Milliseconds without a request before a session ends; default 10 minutes. */
  sessionIdleMs?: number;
  /** Sessions at once; more get 503. Default 32. */
  maxSessions?: number;
  maxMessageBytes?: number;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** Check tool calls before they reach the child ('all': tools and U+FFFD, as wrap --guard). */
  guard?: GuardMode | false;
  /**
   * With a guard: real absolute folders path arguments must stay in (symlinks followed: the child
   * runs here), or 'client': the roots each session's client lists (asked with roots/list).
   */
  roots?: string[] | 'client';
  /** With a guard: calls each session's client is asked to confirm first (tool names, 'destructive'; elicitation/create). */
  confirm?: string[];
  /** How long the user has to confirm; default callTimeoutMs, else guard/confirm.ts's CONFIRM_TIMEOUT_MS. */
  confirmTimeoutMs?: number;
  /** With a guard: told each tools/call judged, with its session, before its answer or the call goes on. */
  onAudit?: OnAudit;
  log?: (line: string) => void;
  /** Who may use it (authentication, per-credential limits); default: anyone who reaches it. */
  access?: AccessOptions;
  /** Answer a request the child leaves unanswered this long (serve-session.ts); default: none. */
  callTimeoutMs?: number;
  /** How long progress may keep a request going in all; default 10 times callTimeoutMs. */
  callTimeoutMaxMs?: number;
}

export async function runServe(options: ServeCommandOptions): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const { command, host = '127.0.0.1', port = 0, sessionIdleMs = 10 * 60_000, maxSessions = 32, access } = options;
  const { guard, roots, confirm, onAudit, callTimeoutMs } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`mcp-payload-codec: ${line}\n`));
  const [file] = command;
  if (!file) throw new TypeError('serve needs a command after --');
  if (!guard && (roots || confirm || (onAudit && callTimeoutMs === undefined)))
    throw new TypeError(
      'roots, confirm and onAudit need guard (the tool guard checks the paths, knows the tools and makes the decisions; or, for onAudit, callTimeoutMs)',
    );
  if (Array.isArray(roots)) new Roots(roots, localRealpath); // (a bad root is refused now, not at the first session)
  const codecOptions = codecOptionsOf(options);
  const maxMessageBytes = codecOptions.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const codec = createCodec(codecOptions);
  let versions: typeof import('@modelcontextprotocol/sdk/types.js');
  try {
    versions = await import('@modelcontextprotocol/sdk/types.js'); // (the protocol versions the SDK knows)
  } catch {
    throw new Error('serve needs the MCP SDK: npm install @modelcontextprotocol/sdk');
  }
  const sessions = new ServeSessions({
    maxSessions,
    idleMs: sessionIdleMs,
    log,
    create: (onEnd) =>
      new ServeSession({
        command,
        codec,
        codecOptions,
        maxMessageBytes,
        guard: callGuard(options, log),
        log,
        onEnd,
        ...timeLimit(options),
      }),
  });
  const handler = new ServeHandler({
    sessions,
    codec,
    codecOptions,
    maxMessageBytes,
    versions: { supported: versions.SUPPORTED_PROTOCOL_VERSIONS, fallback: versions.DEFAULT_NEGOTIATED_PROTOCOL_VERSION },
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    log,
  });
  const { server, url } = await listen(handler.entry(access), host, port, log);
  log(`serving ${file} on ${url}/mcp`);
  // (Responses not yet finished: at shutdown, the answers just written to them go out first.)
  const responses = new Set<ServerResponse>();
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    responses.add(res);
    res.once('close', () => responses.delete(res));
  });
  return {
    server,
    url: `${url}/mcp`,
    async close() {
      sessions.endAll('shutdown');
      const closed = new Promise((r) => server.close(r));
      for (const until = Date.now() + SHUTDOWN_GRACE_MS; responses.size && Date.now() < until; )
        await new Promise((r) => setTimeout(r, 10));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The codec's options among serve's (with maxMessageBytes: the child's encoder takes it too). */
function codecOptionsOf(options: ServeCommandOptions): CodecOptions & { maxMessageBytes?: number } {
  const {
    command,
    host,
    port,
    sessionIdleMs,
    maxSessions,
    allowedHosts,
    allowedOrigins,
    guard,
    roots,
    confirm,
    confirmTimeoutMs,
    onAudit,
    log,
    access,
    callTimeoutMs,
    callTimeoutMaxMs,
    ...codecOptions
  } = options;
  return codecOptions;
}

/** A session's tool guard, when serve has one. */
function callGuard(o: ServeCommandOptions, log: (line: string) => void): CallGuard | undefined {
  if (!o.guard) return undefined;
  return new CallGuard(o.guard, log, {
    ...(o.roots ? { roots: o.roots, realpath: localRealpath } : {}),
    // (the user has as long as the child would: the call time limit, else guard/confirm.ts's default)
    ...(o.confirm ? { confirm: o.confirm, confirmTimeoutMs: o.confirmTimeoutMs ?? o.callTimeoutMs } : {}),
    onAudit: o.onAudit,
  });
}

/** A session's call time limit, when serve has one. */
const timeLimit = (o: ServeCommandOptions) =>
  o.callTimeoutMs === undefined ? {} : { callTimeout: { limitMs: o.callTimeoutMs, maxMs: o.callTimeoutMaxMs, onAudit: o.onAudit } };

/** `serve` from its command line (the server command from its first plain argument on); runs until a signal. */
export async function serveCommand(line: CommandLine, options: StreamCommandOptions, guard: GuardMode | false): Promise<number> {
  const { values, lists } = line;
  const command = line.child ?? [];
  if (!command.length) throw new UsageError('serve needs the server command: serve [options] [--] <command> [args...]');
  const host = values.host ?? '127.0.0.1';
  const log = (text: string) => process.stderr.write(`mcp-payload-codec: ${text}\n`);
  // (before any child starts: the token variable is taken out of the environment it inherits)
  const { access, reload } = await commandAccess(line, host, log);
  const roots = localRootsOption(line);
  const confirm = confirmOption(line, guard);
  const audit = auditOption(line, log);
  // (listening for signals before listening on the port: a SIGHUP just after the URL is printed
  // re-reads the token file, where it used to find no handler yet and end the process)
  const stopped = untilSignal(reload && (() => void reload()));
  const served = await runServe({
    ...options,
    command,
    port: portFlag(values.port, 8080),
    host,
    sessionIdleMs: duration(values['session-idle'], '--session-idle', 10 * 60_000),
    maxSessions: positiveInt(values['max-sessions'], '--max-sessions', 32),
    allowedHosts: lists['allowed-host'],
    allowedOrigins: lists['allowed-origin'],
    guard,
    ...(roots ? { roots } : {}),
    ...(confirm ? { confirm } : {}),
    ...(audit ? { onAudit: audit.onAudit } : {}),
    log,
    access,
    ...callTimeout(line),
  });
  await stopped;
  await served.close();
  audit?.close();
  return 0;
}
