// serve's HTTP side: one handler for /mcp, after the SDK's Streamable HTTP server transport in
// its sessions, headers, status codes and messages, on bytes. Host and Origin first (a name this
// server does not answer to gets nothing, not even OAuth metadata), then the method: POST takes
// the host's messages (decoded, checked, each with its bytes and its id as written) to their
// session, or starts one at initialize; GET opens the GET stream or resumes one (Last-Event-ID);
// DELETE ends the session.
import type { Codec } from '../codec/codec.js';
import { readLeniently } from '../codec/invalid-utf8.js';
import { arrayElementSpans } from '../codec/json-spans.js';
import type { CodecOptions } from '../codec/options.js';
import { refusedUnread } from '../http/access/body-follows.js';
import { type AccessOptions, withAccess } from '../http/access/index.js';
import { BodyTooLargeError, decodeBytes, readBounded } from '../http/body.js';
import { NameCheck } from '../http/guard.js';
import { SESSION_NOT_FOUND } from '../http/replies.js';
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
} from '../jsonrpc/message.js';
import { messageText, readMessage } from '../jsonrpc/raw-id.js';
import type { HostMessage } from './host-message.js';
import type { Handler } from './node-http.js';
import { oneLine } from './one-line.js';
import type { ServeSession } from './serve-session.js';
import type { ServeSessions, TableSession } from './serve-sessions.js';

/** Messages in one POST at most (the SDK's bound). */
const MAX_BATCH = 100;

/** What the handler needs of a session (a ServeSession; a fake one in tests). */
export type HandlerSession = TableSession &
  Pick<ServeSession, 'ended' | 'post' | 'get' | 'writable' | 'ownAnswerUnread' | 'toChildLines' | 'refused'>;

export interface ServeHandlerOptions {
  sessions: ServeSessions<HandlerSession>;
  codec: Codec;
  codecOptions: CodecOptions;
  maxMessageBytes: number;
  /** The protocol versions known (the SDK's), and the one assumed when a request names none. */
  versions: { supported: readonly string[]; fallback: string };
  allowedHosts?: string[] | undefined;
  allowedOrigins?: string[] | undefined;
  log: (line: string) => void;
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

const streamHeaders = (s: HandlerSession) => ({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'mcp-session-id': s.id,
});

export class ServeHandler {
  private readonly names: NameCheck;
  constructor(private readonly o: ServeHandlerOptions) {
    this.names = new NameCheck(o);
  }

  /** The handler, behind the access layer when there is one (who may come in, how often, whose sessions are whose). */
  entry(access: AccessOptions | undefined): Handler {
    if (!access) return this.handle;
    // (Host and Origin before it: a name this server does not answer to gets no OAuth metadata naming it)
    // (a session this server ended, idle or its child gone, stops counting toward the per-client limit at once)
    const sessionLive = (id: string) => this.o.sessions.get(id) !== undefined;
    const guarded = withAccess((request) => this.answer(request, false), { ...access, sessionLive, onLog: this.o.log });
    return async (request) => {
      const refused = this.hostOrOriginRefused(request);
      return refused ? refusedUnread(request, refused) : guarded(request);
    };
  }

  /**
   * An answer to `request`; one refusing it before its body was read drops the body, and closes
   * the connection when a body follows (as the proxy and the access layer do: access/body-follows.ts).
   */
  readonly handle = (request: Request): Promise<Response> => this.answer(request, true);

  /** handle; `checkHost` false where the access layer's entry has checked Host and Origin. */
  private async answer(request: Request, checkHost: boolean): Promise<Response> {
    const response = (checkHost && this.hostOrOriginRefused(request)) || (await this.route(request));
    return response.status >= 400 && !request.bodyUsed ? refusedUnread(request, response) : response;
  }

  private readonly route = async (request: Request): Promise<Response> => {
    if (new URL(request.url).pathname !== '/mcp') return new Response('Not Found', { status: 404 });
    const sessionId = request.headers.get('mcp-session-id');
    if (request.method === 'POST') return this.post(request, sessionId);
    if (request.method !== 'GET' && request.method !== 'DELETE') {
      return this.json(405, errorResponse(null, SERVER_ERROR, 'Method not allowed.'), { allow: 'GET, POST, DELETE' });
    }
    if (request.method === 'GET' && !request.headers.get('accept')?.includes('text/event-stream'))
      return this.refuse(406, SERVER_ERROR, 'Not Acceptable: Client must accept text/event-stream');
    if (!sessionId) return this.refuse(400, SERVER_ERROR, 'Bad Request: no session (send initialize first)');
    const s = this.o.sessions.get(sessionId);
    if (!s) return this.refuse(404, SESSION_NOT_FOUND, 'Session not found');
    const bad = this.badVersion(request);
    if (bad) return bad;
    this.o.sessions.touch(s);
    if (request.method === 'DELETE') {
      this.o.sessions.end(sessionId, 'DELETE');
      return new Response(null, { status: 200 });
    }
    const got = s.get(request.headers.get('last-event-id'), streamHeaders(s));
    return got instanceof Response ? got : this.refuse(got.status, SERVER_ERROR, got.message);
  };

  private hostOrOriginRefused(request: Request): Response | undefined {
    return this.names.refused(request.headers.get('host') ?? new URL(request.url).host, request.headers.get('origin'))
      ? this.json(403, errorResponse(null, SERVER_ERROR, 'Forbidden: Host or Origin not allowed'))
      : undefined;
  }

  private async post(request: Request, sessionId: string | null): Promise<Response> {
    const accept = request.headers.get('accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      return this.refuse(406, SERVER_ERROR, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return this.refuse(415, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
    // (Backpressure to the host: while its child has not taken what it was sent, the body is not read.)
    const waitFor = sessionId ? this.o.sessions.get(sessionId) : undefined;
    if (waitFor) await waitFor.writable(request.signal);
    if (request.signal.aborted) return this.refuse(503, SERVER_ERROR, 'The host left while its server was busy');
    const bytes = await this.body(request);
    if (bytes instanceof Response) return bytes;
    const session = sessionId ? this.o.sessions.get(sessionId) : undefined;
    if (sessionId && !session) return this.refuse(404, SESSION_NOT_FOUND, 'Session not found');
    // Decoded on bytes (as the proxy decodes a body): what goes on is what the host wrote.
    const decoded = await decodeBytes(bytes, this.o.codecOptions);
    if (decoded.refused) {
      // Not delivered (with U+FFFD for bad bytes, or half): read leniently, answered, as wrap does.
      const e = decoded.refused;
      const reason = `the request body was refused (${e.reason} at byte ${e.byteOffset}) and not forwarded`;
      this.o.log(`POST refused: ${reason}`);
      const { replies, toOtherSide } = refusalReplies(readLeniently(bytes), refusalCode(e.code), reason);
      return this.notForwarded(session, replies, toOtherSide, {
        status: 400,
        code: refusalCode(e.code),
        message: `Parse error: ${reason}`,
      });
    }
    // (What the guard and the routing look at: the decoded values, with each id as written; the
    // original's, to answer a collision.)
    const read = readMessage(new TextDecoder().decode(decoded.collision ? bytes : decoded.bytes));
    if (!read) return this.refuse(400, PARSE_ERROR, 'Parse error');
    if (decoded.collision) return this.collided(session, read, decoded.collision.message);
    // (The session may have ended while the body was decoded: its child exited, say.)
    if (session?.ended) return this.refuse(404, SESSION_NOT_FOUND, 'Session not found');
    const { value } = read;
    const body = decoded.bytes;
    const values = (Array.isArray(value) ? value : [value]) as unknown[];
    if (!values.length || !values.every(isMessage)) {
      // (a tools/call among them with `"id": null` is still a call the guard drops, in its trail;
      // no more of them than a batch it reads: each is a log line and an entry)
      if (values.length <= MAX_BATCH) session?.refused(values);
      return this.refuse(400, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
    }
    if (values.length > MAX_BATCH) return this.refuse(400, INVALID_REQUEST, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    const spans = Array.isArray(value) ? arrayElementSpans(body) : [[0, body.length] as [number, number]];
    const messages: HostMessage[] = values.map((v, k) => {
      const b = body.subarray(...spans[k]!);
      return { bytes: oneLine(b), value: v, rawId: v.id === undefined ? undefined : read.ids[k]?.text };
    });
    return session ? this.toSession(session, request, messages) : this.initialize(messages);
  }

  /** The request body, up to maxMessageBytes (else 413). */
  private async body(request: Request): Promise<Uint8Array | Response> {
    const max = this.o.maxMessageBytes;
    try {
      if (Number(request.headers.get('content-length')) > max) throw new BodyTooLargeError(max);
      return await readBounded(request.body, max);
    } catch (e) {
      if (!(e instanceof BodyTooLargeError)) throw e;
      void request.body?.cancel().catch(() => {});
      return this.json(413, errorResponse(null, INVALID_REQUEST, `Request body larger than ${max} bytes`), { connection: 'close' });
    }
  }

  /**
   * A body whose keys collide once decoded: answered here, never forwarded; a batch has every
   * request answered. Responses to the child's own requests (sampling, elicitation), alone or a
   * batch of them: the child gets an error under each id instead of waiting forever, as the HTTP
   * proxy does for one.
   */
  private collided(session: HandlerSession | undefined, read: NonNullable<ReturnType<typeof readMessage>>, message: string): Response {
    const { value } = read;
    const idOf = (k: number, m: Value) => read.ids[k] ?? (m.id as Id);
    const items = (Array.isArray(value) ? value : [value]) as Value[];
    if (items.length && items.every(isResponse))
      return this.notForwarded(
        session,
        undefined,
        // (an answer to the guard's own question fails that question instead: it is not the child's)
        items.flatMap((m, k) => (session?.ownAnswerUnread(m) ? [] : [errorResponse(idOf(k, m), INVALID_PARAMS, message)])),
        { status: 202, code: 0, message: '' },
      );
    const replies = collisionReplies(
      items.flatMap((m, k) => (typeof m?.method === 'string' ? [m.id === undefined ? undefined : idOf(k, m)] : [])),
      message,
    );
    return this.notForwarded(session, Array.isArray(value) ? replies : replies[0], [], { status: 400, code: INVALID_PARAMS, message });
  }

  /**
   * A body serve cannot forward (the decoder refused it, or its keys collide once decoded): its
   * requests are answered here, its responses (answers to the child's requests) reach the child
   * as errors, so no one waits for a timeout; all under their ids as written (RawId).
   */
  private notForwarded(
    session: HandlerSession | undefined,
    replies: Message | Message[] | undefined,
    toChild: Message[],
    none: { status: number; code: number; message: string },
  ): Response {
    if (toChild.length) session?.toChildLines(toChild.map((m) => messageText(m)));
    if (replies !== undefined && (!Array.isArray(replies) || replies.length))
      return new Response(messageText(this.o.codec.encodeMessage(replies)), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    return toChild.length || none.status === 202 ? new Response(null, { status: 202 }) : this.refuse(none.status, none.code, none.message);
  }

  /** Messages for an open session. */
  private toSession(session: HandlerSession, request: Request, messages: HostMessage[]): Response {
    if (messages.some((m) => m.value.method === 'initialize'))
      return this.refuse(400, INVALID_REQUEST, 'Invalid Request: Server already initialized');
    const bad = this.badVersion(request);
    if (bad) return bad;
    this.o.sessions.touch(session);
    const version = request.headers.get('mcp-protocol-version') ?? this.o.versions.fallback;
    return session.post(messages, version, streamHeaders(session));
  }

  /** Messages without a session: an initialize starts one. */
  private initialize(messages: HostMessage[]): Response {
    const init = messages.find((m) => m.value.method === 'initialize')?.value;
    if (!init) return this.refuse(400, SERVER_ERROR, 'Bad Request: no session (send initialize first)');
    if (messages.length > 1) return this.refuse(400, INVALID_REQUEST, 'Invalid Request: Only one initialization request is allowed');
    const { sessions } = this.o;
    if (sessions.full) {
      this.o.log(`refused a session: ${sessions.max} open (503)`);
      return this.json(503, errorResponse(null, SERVER_ERROR, `Too many sessions (${sessions.max})`), { 'retry-after': '5' });
    }
    const s = sessions.start();
    const version = (init.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    return s.post(messages, typeof version === 'string' ? version : this.o.versions.fallback, streamHeaders(s));
  }

  /** 400 for a protocol version header the SDK does not know. */
  private badVersion(request: Request): Response | undefined {
    const v = request.headers.get('mcp-protocol-version');
    const { supported } = this.o.versions;
    if (v === null || supported.includes(v)) return undefined;
    return this.refuse(400, SERVER_ERROR, `Bad Request: Unsupported protocol version (supported versions: ${supported.join(', ')})`);
  }

  private json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
    return new Response(JSON.stringify(this.o.codec.encodeMessage(body)), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  }

  private refuse(status: number, code: number, message: string): Response {
    return this.json(status, errorResponse(null, code, message));
  }
}
