// `mcp-payload-codec serve [options] -- <command> [args...]`: exposes a stdio MCP server over
// Streamable HTTP at /mcp, filtered. One child per MCP session, started at initialize and ended
// on DELETE, after --session-idle without a request, or when it exits. The HTTP side is serve's
// own (serve-session.ts), on bytes: the SDK's transport takes and gives parsed values, which
// changed numbers (12345678901234567890 reached the child as 12345678901234567000); it follows
// the SDK's in sessions, headers, status codes, event ids and resumption.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createCodec } from '../codec.js';
import type { OnAudit } from '../guard/audit.js';
import { Roots } from '../guard/paths.js';
import { type AccessOptions, withAccess } from '../http/access/index.js';
import { BodyTooLargeError, decodeBytes, readBounded } from '../http/body.js';
import { CallGuard, type GuardMode } from '../http/call-guard.js';
import { hostAllowed, originAllowed } from '../http/guard.js';
import { readLeniently } from '../invalid-utf8.js';
import { arrayElementSpans } from '../json-spans.js';
import {
  collisionReplies,
  errorResponse,
  type Id,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isId,
  isResponse,
  type Message,
  PARSE_ERROR,
  refusalCode,
  refusalReplies,
  SERVER_ERROR,
} from '../jsonrpc.js';
import type { CodecOptions } from '../options.js';
import { messageText, readMessage } from '../raw-id.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { ACCESS_HELP, commandAccess } from './access-args.js';
import type { CommandLine } from './args.js';
import { auditOption } from './audit-file.js';
import { confirmOption } from './confirm-option.js';
import { callTimeout, duration, port as portFlag, positiveInt, type StreamCommandOptions, untilSignal } from './http-args.js';
import { listen } from './node-http.js';
import { oneLine } from './one-line.js';
import { localRealpath, localRootsOption } from './roots.js';
import { type HostMessage, ServeSession } from './serve-session.js';
import { UsageError } from './usage-error.js';

export { MAX_IN_FLIGHT, PENDING_BYTES, PENDING_MESSAGES, SERVE_HOLD_BYTES } from './serve-session.js';

/** At shutdown, how long responses still being sent (the answers to calls in flight) have to finish. */
const SHUTDOWN_GRACE_MS = 1000;
/** Messages in one POST at most (the SDK's bound). */
const MAX_BATCH = 100;

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

type Value = HostMessage['value'];
const isObject = (v: unknown): v is Value => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A JSON-RPC 2.0 request, notification or response (what the SDK's schema lets through, ids aside: any number). */
const isMessage = (v: unknown): v is Value =>
  isObject(v) &&
  v.jsonrpc === '2.0' &&
  (typeof v.method === 'string'
    ? v.id === undefined || isId(v.id)
    : ('result' in v && isId(v.id)) || ('error' in v && (isId(v.id) || v.id === null)));

export async function runServe(options: ServeCommandOptions): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const {
    command,
    host = '127.0.0.1',
    port = 0,
    sessionIdleMs = 10 * 60_000,
    maxSessions = 32,
    allowedHosts,
    allowedOrigins,
    guard: guardMode,
    roots,
    confirm,
    confirmTimeoutMs = options.callTimeoutMs,
    onAudit,
    log: _log,
    access,
    callTimeoutMs,
    callTimeoutMaxMs,
    ...codecOptions
  } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`mcp-payload-codec: ${line}\n`));
  const [file] = command;
  if (!file) throw new TypeError('serve needs a command after --');
  if (!guardMode && (roots || confirm || (onAudit && callTimeoutMs === undefined)))
    throw new TypeError(
      'roots, confirm and onAudit need guard (the tool guard checks the paths, knows the tools and makes the decisions; or, for onAudit, callTimeoutMs)',
    );
  if (Array.isArray(roots)) new Roots(roots, localRealpath); // (a bad root is refused now, not at the first session)
  const max = codecOptions.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const codec = createCodec(codecOptions);
  let versions: typeof import('@modelcontextprotocol/sdk/types.js');
  try {
    versions = await import('@modelcontextprotocol/sdk/types.js'); // (the protocol versions the SDK knows)
  } catch {
    throw new Error('serve needs the MCP SDK: npm install @modelcontextprotocol/sdk');
  }
  const sessions = new Map<string, ServeSession>();

  const end = (id: string, why: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    s.close(`the session has ended (${why})`);
    log(`session ended (${why}); ${sessions.size} open`);
  };
  const touch = (s: ServeSession) => {
    clearTimeout(s.idle);
    // (A request still being answered is activity: a long tool call does not end its session;
    // unless the host has read nothing of its answer for as long.)
    s.idle = setTimeout(() => {
      if (s.heldSince !== undefined && Date.now() - s.heldSince >= sessionIdleMs) end(s.id, 'idle: the host reads nothing');
      else if (s.inFlight.length) touch(s);
      else end(s.id, 'idle');
    }, sessionIdleMs);
    s.idle.unref?.();
  };

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(codec.encodeMessage(body)), { status, headers: { 'content-type': 'application/json', ...headers } });
  const jsonText = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  const refuse = (status: number, code: number, message: string) => json(status, errorResponse(null, code, message));
  const streamHeaders = (s: ServeSession) => ({
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'mcp-session-id': s.id,
  });
  /** 400 for a protocol version header the SDK does not know. */
  const badVersion = (request: Request) => {
    const v = request.headers.get('mcp-protocol-version');
    if (v === null || versions.SUPPORTED_PROTOCOL_VERSIONS.includes(v)) return undefined;
    return refuse(
      400,
      SERVER_ERROR,
      `Bad Request: Unsupported protocol version (supported versions: ${versions.SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  };

  /**
   * A body serve cannot forward (the decoder refused it, or its keys collide once decoded): its
   * requests are answered here, its responses (answers to the child's requests) reach the child
   * as errors, so no one waits for a timeout; all under their ids as written (RawId).
   */
  const notForwarded = (
    session: ServeSession | undefined,
    replies: Message | Message[] | undefined,
    toChild: Message[],
    none: { status: number; code: number; message: string },
  ) => {
    if (toChild.length) session?.toChildLines(toChild.map((m) => messageText(m)));
    if (replies !== undefined && (!Array.isArray(replies) || replies.length)) return jsonText(messageText(codec.encodeMessage(replies)));
    return toChild.length || none.status === 202 ? new Response(null, { status: 202 }) : refuse(none.status, none.code, none.message);
  };

  const post = async (request: Request, sessionId: string | null): Promise<Response> => {
    const accept = request.headers.get('accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      return refuse(406, SERVER_ERROR, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return refuse(415, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
    // (Backpressure to the host: while its child has not taken what it was sent, the body is not read.)
    const waitFor = sessionId ? sessions.get(sessionId) : undefined;
    if (waitFor) await waitFor.writable(request.signal);
    if (request.signal.aborted) return refuse(503, SERVER_ERROR, 'The host left while its server was busy');
    let bytes: Uint8Array;
    try {
      if (Number(request.headers.get('content-length')) > max) throw new BodyTooLargeError(max);
      bytes = await readBounded(request.body, max);
    } catch (e) {
      if (!(e instanceof BodyTooLargeError)) throw e;
      void request.body?.cancel().catch(() => {});
      return json(413, errorResponse(null, INVALID_REQUEST, `Request body larger than ${max} bytes`), { connection: 'close' });
    }
    const session = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !session) return refuse(404, SERVER_ERROR - 1, 'Session not found');
    // Decoded on bytes (as the proxy decodes a body): what goes on is what the host wrote.
    const decoded = await decodeBytes(bytes, codecOptions);
    if (decoded.refused) {
      // Not delivered (with U+FFFD for bad bytes, or half): read leniently, answered, as wrap does.
      const e = decoded.refused;
      const reason = `the request body was refused (${e.reason} at byte ${e.byteOffset}) and not forwarded`;
      log(`POST refused: ${reason}`);
      const { replies, toOtherSide } = refusalReplies(readLeniently(bytes), refusalCode(e.code), reason);
      return notForwarded(session, replies, toOtherSide, { status: 400, code: refusalCode(e.code), message: `Parse error: ${reason}` });
    }
    // (What the guard and the routing look at: the decoded values, with each id as written; the
    // original's, to answer a collision.)
    const read = readMessage(new TextDecoder().decode(decoded.collision ? bytes : decoded.bytes));
    if (!read) return refuse(400, PARSE_ERROR, 'Parse error');
    const { value } = read;
    const idOf = (k: number, m: Value) => read.ids[k] ?? (m.id as Id);
    if (decoded.collision) {
      // Answered here, never forwarded; a batch has every request answered. Responses to the
      // child's own requests (sampling, elicitation), alone or a batch of them: the child gets an
      // error under each id instead of waiting forever, as the HTTP proxy does for one.
      const e = decoded.collision;
      const items = (Array.isArray(value) ? value : [value]) as Value[];
      if (items.length && items.every(isResponse))
        return notForwarded(
          session,
          undefined,
          // (an answer to the guard's own question fails that question instead: it is not the child's)
          items.flatMap((m, k) => (session?.ownAnswerUnread(m) ? [] : [errorResponse(idOf(k, m), INVALID_PARAMS, e.message)])),
          { status: 202, code: 0, message: '' },
        );
      const replies = collisionReplies(
        items.flatMap((m, k) => (typeof m?.method === 'string' ? [m.id === undefined ? undefined : idOf(k, m)] : [])),
        e.message,
      );
      return notForwarded(session, Array.isArray(value) ? replies : replies[0], [], {
        status: 400,
        code: INVALID_PARAMS,
        message: e.message,
      });
    }
    // (The session may have ended while the body was decoded: its child exited, say.)
    if (session?.ended) return refuse(404, SERVER_ERROR - 1, 'Session not found');
    const body = decoded.bytes;
    const values = (Array.isArray(value) ? value : [value]) as unknown[];
    if (!values.length || !values.every(isMessage)) return refuse(400, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
    if (values.length > MAX_BATCH) return refuse(400, INVALID_REQUEST, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    const spans = Array.isArray(value) ? arrayElementSpans(body) : [[0, body.length] as [number, number]];
    const messages: HostMessage[] = values.map((v, k) => {
      const b = body.subarray(...spans[k]!);
      return { bytes: oneLine(b), value: v, rawId: v.id === undefined ? undefined : read.ids[k]?.text };
    });
    const init = values.find((v) => v.method === 'initialize');
    if (session) {
      if (init) return refuse(400, INVALID_REQUEST, 'Invalid Request: Server already initialized');
      const bad = badVersion(request);
      if (bad) return bad;
      touch(session);
      const version = request.headers.get('mcp-protocol-version') ?? versions.DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
      return session.post(messages, version, streamHeaders(session));
    }
    if (!init) return refuse(400, SERVER_ERROR, 'Bad Request: no session (send initialize first)');
    if (messages.length > 1) return refuse(400, INVALID_REQUEST, 'Invalid Request: Only one initialization request is allowed');
    if (sessions.size >= maxSessions) {
      log(`refused a session: ${maxSessions} open (503)`);
      return json(503, errorResponse(null, SERVER_ERROR, `Too many sessions (${maxSessions})`), { 'retry-after': '5' });
    }
    const s: ServeSession = new ServeSession({
      command,
      codec,
      codecOptions,
      maxMessageBytes: max,
      guard: guardMode
        ? new CallGuard(guardMode, log, {
            ...(roots ? { roots, realpath: localRealpath } : {}),
            // (the user has as long as the child would: the call time limit, else guard/confirm.ts's default)
            ...(confirm ? { confirm, confirmTimeoutMs } : {}),
            onAudit,
          })
        : undefined,
      log,
      onEnd: (why) => end(s.id, why),
      ...(callTimeoutMs === undefined ? {} : { callTimeout: { limitMs: callTimeoutMs, maxMs: callTimeoutMaxMs, onAudit } }),
    });
    sessions.set(s.id, s);
    touch(s);
    log(`session started; ${sessions.size} open`);
    const version = (init.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    return s.post(messages, typeof version === 'string' ? version : versions.DEFAULT_NEGOTIATED_PROTOCOL_VERSION, streamHeaders(s));
  };

  const hostOrOriginRefused = (request: Request): Response | undefined =>
    !hostAllowed(request.headers.get('host') ?? new URL(request.url).host, allowedHosts) ||
    !originAllowed(request.headers.get('origin'), allowedOrigins)
      ? json(403, errorResponse(null, SERVER_ERROR, 'Forbidden: Host or Origin not allowed'))
      : undefined;
  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const refused = hostOrOriginRefused(request);
    if (refused) return refused;
    if (url.pathname !== '/mcp') return new Response('Not Found', { status: 404 });
    const sessionId = request.headers.get('mcp-session-id');
    if (request.method === 'POST') return post(request, sessionId);
    if (request.method !== 'GET' && request.method !== 'DELETE') {
      return json(405, errorResponse(null, SERVER_ERROR, 'Method not allowed.'), { allow: 'GET, POST, DELETE' });
    }
    if (request.method === 'GET' && !request.headers.get('accept')?.includes('text/event-stream'))
      return refuse(406, SERVER_ERROR, 'Not Acceptable: Client must accept text/event-stream');
    if (!sessionId) return refuse(400, SERVER_ERROR, 'Bad Request: no session (send initialize first)');
    const s = sessions.get(sessionId);
    if (!s) return refuse(404, SERVER_ERROR - 1, 'Session not found');
    const bad = badVersion(request);
    if (bad) return bad;
    touch(s);
    if (request.method === 'DELETE') {
      end(sessionId, 'DELETE');
      return new Response(null, { status: 200 });
    }
    const got = s.get(request.headers.get('last-event-id'), streamHeaders(s));
    return got instanceof Response ? got : refuse(got.status, SERVER_ERROR, got.message);
  };

  // Who may come in, how often, and whose sessions are whose: before anything reads the request.
  // (Host and Origin before it: a name this server does not answer to gets no OAuth metadata naming it)
  const guarded = access ? withAccess(handler, { ...access, onLog: log }) : undefined;
  const entry = guarded
    ? async (request: Request) => {
        const refused = hostOrOriginRefused(request);
        if (refused) {
          void request.body?.cancel().catch(() => {});
          return refused;
        }
        return guarded(request);
      }
    : handler;
  const { server, url } = await listen(entry, host, port, log);
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
      for (const id of [...sessions.keys()]) end(id, 'shutdown');
      const closed = new Promise((r) => server.close(r));
      for (const until = Date.now() + SHUTDOWN_GRACE_MS; responses.size && Date.now() < until; )
        await new Promise((r) => setTimeout(r, 10));
      server.closeAllConnections();
      await closed;
    },
  };
}

export const SERVE_HELP = `  serve [options] [--] <command> [args] Expose a stdio MCP server over Streamable HTTP at
                                         http://HOST:PORT/mcp, filtered. One child per MCP
                                         session (started at initialize, ended on DELETE, when
                                         idle, when it exits, or at shutdown: its requests in
                                         flight are then answered at once; a child that ignores
                                         SIGTERM gets SIGKILL 3 s later). Each session keeps
                                         its last 1000 events for Last-Event-ID resumption.
                                         Numbers and ids pass byte for byte.
    --port N                             default 8080 (0: any free port)
    --host ADDRESS                       default 127.0.0.1 (only this machine)
    --session-idle DURATION              end a session after this long without a request
                                         (90s, 10m, 1h; default 10m)
    --max-sessions N                     sessions at once; more get 503 (default 32)
    --allowed-host, --allowed-origin     as for proxy (default: localhost only; others 403)
    --max-message-bytes N                bigger request bodies get 413, a bigger message from
                                         the server ends its session (default 536870912)
                                         (A line from the server that is not JSON is skipped
                                         with a note on stderr. Beyond 8 MiB not yet read by
                                         the host, serve stops reading the server's stdout.)
    --guard, --guard-tools-only          check tool calls as wrap does (below)
    --root DIR                           with a guard: confine path arguments to DIR
                                         (repeatable; symlinks followed, as wrap); --root
                                         client: to the roots each session's client lists
    --confirm NAME|destructive           with a guard: ask the client's user first, as wrap
                                         (elicitation/create on the call's event stream)
    --audit FILE, --audit-all            with a guard: a JSON line per blocked (--audit-all:
                                         and allowed) call, with its session, as wrap (below)
    --call-timeout DURATION              answer a request the server leaves unanswered that
                                         long, on its stream, and send the server
                                         notifications/cancelled (as wrap, below)
    --call-timeout-max DURATION          how long progress may extend it (default 10 times)
${ACCESS_HELP}`;

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
  await untilSignal(reload && (() => void reload()));
  await served.close();
  audit?.close();
  return 0;
}
