// `mcp-payload-codec serve [options] -- <command> [args...]`: exposes a stdio MCP server over
// Streamable HTTP at /mcp, filtered. One child per MCP session, started at initialize and ended
// on DELETE, after --session-idle without a request, or when it exits. The HTTP side is the
// SDK's WebStandardStreamableHTTPServerTransport (loaded when serve starts: the SDK is an
// optional peer dependency), so sessions, SSE and resumption follow the SDK exactly.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createCodec } from '../codec.js';
import { PayloadKeyCollisionError } from '../errors.js';
import { BodyTooLargeError, readBounded } from '../http/body.js';
import { CallGuard, type GuardMode } from '../http/call-guard.js';
import { hostAllowed, originAllowed } from '../http/guard.js';
import { firstInvalidUtf8Byte, readLeniently } from '../invalid-utf8.js';
import {
  collisionReplies,
  errorResponse,
  type Id,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isId,
  isResponse,
  PARSE_ERROR,
  refusalReplies,
  SERVER_ERROR,
} from '../jsonrpc.js';
import type { CodecOptions } from '../options.js';
import { messageText } from '../raw-id.js';
import { createByteTransformer, DEFAULT_MAX_MESSAGE_BYTES, type PayloadStreamError } from '../stream/index.js';
import type { CommandLine } from './args.js';
import { BoundedEventStore } from './event-store.js';
import { HeldStreams } from './held-streams.js';
import { duration, port as portFlag, positiveInt, type StreamCommandOptions, untilSignal } from './http-args.js';
import { ndjsonLines } from './ndjson-lines.js';
import { listen } from './node-http.js';
import { RefusedLines, refusalOfLine } from './refused-lines.js';
import { UsageError } from './usage-error.js';

/**
 * Bytes a session may hold that its host has not read yet (plus the message being sent): beyond
 * them serve stops reading the server's stdout until the host catches up (the SDK transport
 * would queue without limit).
 */
export const SERVE_HOLD_BYTES = 8 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** A refused server line is kept up to this many bytes to read its ids (as wrap keeps one). */
const REFUSED_LINE_BYTES = 1024 * 1024;

/** Where and why, never what: `message 3 (invalid JSON at byte 0; blank lines not counted)`. */
const describeInvalid = (e: PayloadStreamError) =>
  `message ${e.messageNumber} (${e.reason} at byte ${e.byteOffset}; blank lines not counted)`;

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
  log?: (line: string) => void;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  child: ChildProcess;
  idle?: ReturnType<typeof setTimeout>;
  /** Since when the child waits for the host to read what it was sent (see SERVE_HOLD_BYTES). */
  heldSince?: number;
  /** The host was told (once) that messages wait for its GET stream. */
  toldNoGet?: boolean;
  /** Requests sent to the child and not yet answered, in order (server messages relate to the latest). */
  inFlight: (string | number)[];
  progress: Map<string | number, string | number>;
  /** The response streams handed to the host: which it left, and what waits in them. */
  streams: HeldStreams;
  /** --guard: this session's tool list and checks; messages from the host pass it in order. */
  guard?: CallGuard;
  checks: Promise<void>;
}

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
    log: _log,
    ...codecOptions
  } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`mcp-payload-codec: ${line}\n`));
  const [file, ...args] = command;
  if (!file) throw new TypeError('serve needs a command after --');
  const max = codecOptions.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const codec = createCodec(codecOptions);
  let sdk: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
  try {
    sdk = await import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
  } catch {
    throw new Error('serve needs the MCP SDK: npm install @modelcontextprotocol/sdk');
  }
  const sessions = new Map<string, Session>();
  let starting = 0;

  const end = (id: string, why: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    clearTimeout(s.idle);
    log(`session ended (${why}); ${sessions.size} open`);
    s.child.stdin?.end();
    s.child.kill('SIGTERM');
    void s.transport.close().catch(() => {});
  };
  const touch = (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    clearTimeout(s.idle);
    // (A request still being answered is activity: a long tool call does not end its session;
    // unless the host has read nothing of its answer for as long.)
    s.idle = setTimeout(() => {
      if (s.heldSince !== undefined && Date.now() - s.heldSince >= sessionIdleMs) end(id, 'idle: the host reads nothing');
      else if (s.inFlight.length) touch(id);
      else end(id, 'idle');
    }, sessionIdleMs);
    s.idle.unref?.();
  };

  /** A child and a transport for a new session (registered once initialize is handled). */
  const open = async (): Promise<Session> => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const session: Session = {
      child,
      inFlight: [],
      progress: new Map(),
      streams: new HeldStreams(),
      transport: undefined!,
      checks: Promise.resolve(),
    };
    if (guardMode) session.guard = new CallGuard(guardMode, log);
    const transport = new sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new BoundedEventStore(),
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        touch(id);
        log(`session started; ${sessions.size} open`);
      },
      onsessionclosed: (id) => end(id, 'DELETE'),
    });
    session.transport = transport;
    // Host to child: already decoded (below); one message per line. With --guard, a blocked
    // call is answered as if by the child (encoded, on the stream of its request), never sent.
    const deliver = (message: JSONRPCMessage) => {
      const m = message as { id?: unknown; method?: unknown; params?: { _meta?: { progressToken?: unknown }; requestId?: unknown } };
      if (typeof m.method === 'string' && isId(m.id)) {
        session.inFlight.push(m.id);
        const token = m.params?._meta?.progressToken;
        if (isId(token)) session.progress.set(token, m.id);
      } else if (m.method === 'notifications/cancelled' && isId(m.params?.requestId)) {
        // (The server sends no answer to a cancelled request: it is no longer in flight.)
        forget(session, m.params.requestId);
      }
      child.stdin!.write(JSON.stringify(message) + '\n');
    };
    transport.onmessage = (message) => {
      const guard = session.guard;
      if (!guard) return deliver(message);
      // (A check may wait for the schema compiler: what follows waits behind it, in order.)
      session.checks = session.checks
        .then(() => guard.answer(message))
        .then(
          (answer) => (answer ? route(session, codec.encodeMessage(answer) as JSONRPCMessage) : deliver(message)),
          (e: unknown) => {
            log(`the guard failed (${(e as Error).name}): message not delivered`);
            const id = (message as { id?: unknown }).id;
            if (typeof (message as { method?: unknown }).method === 'string' && isId(id))
              route(session, codec.encodeMessage(errorResponse(id, SERVER_ERROR, 'The tool call guard failed')) as JSONRPCMessage);
          },
        );
    };
    // Child to host: encoded on bytes, then routed: a response to its request's stream, a
    // progress notification to the request that asked for it, anything else to the latest
    // request in flight (as the SDK relates what a handler sends), or the GET stream.
    // A line that is not a message (a banner, a stray log line) is skipped with a note, as
    // wrap does; one over maxMessageBytes still ends the session (its request would wait forever).
    // A refused line whose ids can be read is answered as wrap answers it: the host's request
    // gets the error (routed as the server's answer would have been), the server's its own.
    async function* encoded(): AsyncGenerator<Uint8Array> {
      const out: Uint8Array[] = [];
      const refused = new RefusedLines(REFUSED_LINE_BYTES, max, (e, line) => {
        const { replies, toOtherSide } = refusalOfLine('server', e, line);
        if (replies) child.stdin!.write(`${messageText(replies)}\n`);
        // (After a '\n' of its own: the spoiled start of the refused line, if one went out, may not be ended yet.)
        for (const m of toOtherSide) out.push(new TextEncoder().encode(`\n${messageText(codec.encodeMessage(m))}\n`));
        const told = [replies && 'the server answered', toOtherSide.length && 'the host told'].filter(Boolean).join(', ');
        log(`from the server: skipped ${describeInvalid(e)}: not forwarded${told && ` (${told})`}; the session goes on`);
      });
      const encoder = createByteTransformer(
        'encode',
        {
          ...codecOptions,
          framing: 'ndjson',
          onInvalidMessage: (e) => {
            if (e.code === 'too-large') throw e;
            refused.refuse(e);
          },
        },
        (b) => out.push(b),
      );
      try {
        for await (const chunk of child.stdout! as AsyncIterable<Uint8Array>) {
          refused.push(chunk, (b) => encoder.push(b));
          yield* out.splice(0);
        }
        encoder.close();
        refused.end();
        yield* out.splice(0);
      } finally {
        encoder.release(); // (a host gone mid-stream: the WASM memory goes back)
      }
    }
    const lines = encoded();
    void (async () => {
      const decoder = new TextDecoder();
      let why = 'the server exited';
      try {
        // (Each line is a message the encoder wrote whole, or the spoiled start of one it refused.)
        for await (const bytes of ndjsonLines(lines)) {
          const line = decoder.decode(bytes);
          if (!line.trim()) continue;
          let message: JSONRPCMessage;
          try {
            message = JSON.parse(line) as JSONRPCMessage;
          } catch {
            continue; // (the encoder spoiled it on purpose and has logged why)
          }
          await route(session, message);
          // Backpressure: while the host has not read what it was sent, the child waits.
          while (session.streams.waiting(session.inFlight) > SERVE_HOLD_BYTES && !closed(session)) {
            session.heldSince ??= Date.now();
            await new Promise((r) => setTimeout(r, 20));
          }
          session.heldSince = undefined;
        }
      } catch (e) {
        log(`from the server: ${(e as Error).message}`);
        why = 'a message from the server could not be read';
      }
      if (transport.sessionId) end(transport.sessionId, why);
      else void transport.close().catch(() => {});
    })();
    child.on('error', (e) => log(`cannot start ${file}: ${e.message}`));
    child.stdin!.on('error', () => {}); // (it may exit first; 'close' tells)
    await transport.start();
    return session;
  };

  const closed = (s: Session) => !s.transport.sessionId || sessions.get(s.transport.sessionId) !== s;
  /** Request `id` is answered or cancelled. */
  const forget = (s: Session, id: Id) => {
    s.inFlight = s.inFlight.filter((x) => x !== id);
    for (const [token, x] of s.progress) if (x === id) s.progress.delete(token);
  };

  const route = async (s: Session, message: JSONRPCMessage) => {
    const m = message as { id?: unknown; method?: unknown; params?: { progressToken?: unknown } };
    let related: Id | undefined;
    if (typeof m.method !== 'string' && isId(m.id)) {
      related = m.id;
      forget(s, m.id);
    } else {
      // Progress to the request that asked for it, anything else to the latest request in
      // flight, while the host still reads that request's stream; else the GET stream.
      const token = m.method === 'notifications/progress' ? m.params?.progressToken : undefined;
      const asked = isId(token) ? s.progress.get(token) : undefined;
      related = asked;
      if (related === undefined || !s.streams.reachable(related)) related = s.inFlight.findLast((id) => s.streams.reachable(id));
      // With no stream open (the host left its requests' streams, and has no GET stream), a
      // message stays on a request's stream: the one that asked for progress, else the latest
      // in flight. The SDK stores it there for Last-Event-ID, as it does a handler's own; a GET
      // stream the host never opened can never be resumed.
      if (related === undefined && !s.streams.reachable('GET')) related = asked ?? s.inFlight.at(-1);
      if (related !== undefined || s.streams.reachable('GET')) s.toldNoGet = false;
      else if (!s.toldNoGet) {
        s.toldNoGet = true; // (once until the host opens one: a chatty server does not flood the log)
        log('messages from the server outside any request wait for the host to open its GET stream (kept for Last-Event-ID)');
      }
    }
    if (s.guard?.wants(message)) {
      try {
        s.guard.learn(codec.decodeMessage(message));
      } catch {
        // keys that collide once decoded: encoding made them from distinct keys; cannot happen
      }
    }
    try {
      await s.transport.send(message, related === undefined ? undefined : { relatedRequestId: related });
    } catch (e) {
      log(`dropped a message from the server: ${(e as Error).message.split(':')[0]}`); // (the host left that stream)
    }
  };

  /** What a response's stream carries: a POST's requests, or (a GET without Last-Event-ID) messages outside any request. */
  const carried = (request: Request, body: unknown): Id[] | 'GET' => {
    if (request.method === 'GET') return request.headers.has('last-event-id') ? [] : 'GET';
    const items = (Array.isArray(body) ? body : [body]) as { id?: unknown; method?: unknown }[];
    return items.filter((m) => typeof m?.method === 'string' && isId(m.id)).map((m) => m.id as Id);
  };

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(messageText(codec.encodeMessage(body)), { status, headers: { 'content-type': 'application/json', ...headers } });

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (
      !hostAllowed(request.headers.get('host') ?? url.host, allowedHosts) ||
      !originAllowed(request.headers.get('origin'), allowedOrigins)
    ) {
      return json(403, errorResponse(null, SERVER_ERROR, 'Forbidden: Host or Origin not allowed'));
    }
    if (url.pathname !== '/mcp') return new Response('Not Found', { status: 404 });
    const sessionId = request.headers.get('mcp-session-id');
    let parsedBody: unknown;
    if (request.method === 'POST') {
      let bytes: Uint8Array;
      try {
        if (Number(request.headers.get('content-length')) > max) throw new BodyTooLargeError(max);
        bytes = await readBounded(request.body, max);
      } catch (e) {
        if (!(e instanceof BodyTooLargeError)) throw e;
        void request.body?.cancel().catch(() => {});
        return json(413, errorResponse(null, INVALID_REQUEST, `Request body larger than ${max} bytes`), { connection: 'close' });
      }
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        // Not UTF-8: not delivered with U+FFFD in place of the bad bytes (silently, as it was).
        // Its requests are answered, its responses reach the server as that error (as wrap).
        const reason = `the request body is not valid UTF-8 (at byte ${firstInvalidUtf8Byte(bytes)}) and was not forwarded`;
        log(`POST refused: ${reason}`);
        const { replies, toOtherSide, toOtherSideAsSent } = refusalReplies(readLeniently(bytes), PARSE_ERROR, reason);
        if (!toOtherSide.length) return json(replies ? 200 : 400, replies ?? errorResponse(null, PARSE_ERROR, `Parse error: ${reason}`));
        if (replies) {
          // (A batch of both: the server's errors as the host's messages would have gone.)
          const s = sessionId ? sessions.get(sessionId) : undefined;
          for (const m of toOtherSide) s?.transport.onmessage?.(m as JSONRPCMessage);
          return json(200, replies);
        }
        text = JSON.stringify(toOtherSideAsSent);
      }
      try {
        parsedBody = JSON.parse(text);
      } catch {
        return json(400, errorResponse(null, PARSE_ERROR, 'Parse error'));
      }
      try {
        parsedBody = codec.decodeMessage(parsedBody);
      } catch (e) {
        if (!(e instanceof PayloadKeyCollisionError)) throw e;
        // Answered here, never forwarded; a batch has every request answered.
        const items = (Array.isArray(parsedBody) ? parsedBody : [parsedBody]) as { id?: unknown; method?: unknown }[];
        const responses = items.every(isResponse);
        if (items.length && responses) {
          // Responses to the server's own requests (sampling, elicitation), alone or a batch of
          // them: the server gets an error under each id instead of waiting forever, as the
          // HTTP proxy does for one; they go to the child like the responses would have (real
          // values: nothing to encode).
          const errors = (items as { id: Id }[]).map((m) => errorResponse(m.id, INVALID_PARAMS, e.message));
          parsedBody = Array.isArray(parsedBody) ? errors : errors[0];
        } else {
          const replies = collisionReplies(
            items.filter((m) => typeof m?.method === 'string').map((m) => m.id),
            e.message,
          );
          if (!replies.length) return json(400, errorResponse(null, INVALID_PARAMS, e.message));
          return json(200, Array.isArray(parsedBody) ? replies : replies[0]);
        }
      }
    }
    if (sessionId) {
      const s = sessions.get(sessionId);
      if (!s) return json(404, errorResponse(null, SERVER_ERROR - 1, 'Session not found'));
      touch(sessionId);
      return s.streams.watch(await s.transport.handleRequest(request, { parsedBody }), carried(request, parsedBody), s.inFlight);
    }
    const initialize = (Array.isArray(parsedBody) ? parsedBody : [parsedBody]).some(
      (m) => (m as { method?: unknown })?.method === 'initialize',
    );
    if (request.method !== 'POST' || !initialize)
      return json(400, errorResponse(null, SERVER_ERROR, 'Bad Request: no session (send initialize first)'));
    if (sessions.size + starting >= maxSessions) {
      log(`refused a session: ${maxSessions} open (503)`);
      return json(503, errorResponse(null, SERVER_ERROR, `Too many sessions (${maxSessions})`), { 'retry-after': '5' });
    }
    starting++;
    try {
      const s = await open();
      const response = s.streams.watch(await s.transport.handleRequest(request, { parsedBody }), carried(request, parsedBody), s.inFlight);
      if (!s.transport.sessionId) {
        s.child.kill('SIGTERM'); // initialize failed: no session
        void s.transport.close().catch(() => {});
      }
      return response;
    } finally {
      starting--;
    }
  };

  const { server, url } = await listen(handler, host, port, log);
  log(`serving ${file} on ${url}/mcp`);
  return {
    server,
    url: `${url}/mcp`,
    async close() {
      for (const id of [...sessions.keys()]) end(id, 'shutdown');
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export const SERVE_HELP = `  serve [options] [--] <command> [args] Expose a stdio MCP server over Streamable HTTP at
                                         http://HOST:PORT/mcp, filtered. One child per MCP
                                         session (started at initialize, ended on DELETE, when
                                         idle, or when it exits). Each session keeps its last
                                         1000 events for Last-Event-ID resumption.
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
`;

/** `serve` from its command line (the server command from its first plain argument on); runs until a signal. */
export async function serveCommand(line: CommandLine, options: StreamCommandOptions, guard: GuardMode | false): Promise<number> {
  const { values, lists } = line;
  const command = line.child ?? [];
  if (!command.length) throw new UsageError('serve needs the server command: serve [options] [--] <command> [args...]');
  const served = await runServe({
    ...options,
    command,
    port: portFlag(values.port, 8080),
    host: values.host ?? '127.0.0.1',
    sessionIdleMs: duration(values['session-idle'], '--session-idle', 10 * 60_000),
    maxSessions: positiveInt(values['max-sessions'], '--max-sessions', 32),
    allowedHosts: lists['allowed-host'],
    allowedOrigins: lists['allowed-origin'],
    guard,
  });
  await untilSignal();
  await served.close();
  return 0;
}
