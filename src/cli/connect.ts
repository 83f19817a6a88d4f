// `mcp-payload-codec connect URL [--header 'Name: value']...`: a stdio MCP server for hosts
// that only speak stdio, forwarding to a remote Streamable HTTP server, filtered (through
// createFilteringFetch: what the host sends is decoded, what comes back encoded). Keeps the
// session id and protocol version, opens the GET stream when the server offers one, ends the
// session with DELETE when the host closes stdin.
import type { Readable, Writable } from 'node:stream';
import { createCodec } from '../codec.js';
import type { OnAudit } from '../guard/audit.js';
import type { GuardMode } from '../http/call-guard.js';
import { createFilteringFetch, type FetchLike } from '../http/fetch.js';
import { isJsonResponse, mediaType } from '../http/response.js';
import { firstInvalidUtf8Byte, readLeniently } from '../invalid-utf8.js';
import { errorResponse, PARSE_ERROR, refusalReplies, SERVER_ERROR } from '../jsonrpc.js';
import type { CodecOptions } from '../options.js';
import { messageText } from '../raw-id.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import type { CommandLine } from './args.js';
import { auditOption } from './audit-file.js';
import { callTimeout, MAX_DURATION_MS, type StreamCommandOptions } from './http-args.js';
import { ndjsonLines } from './ndjson-lines.js';
import { PendingRequests } from './pending-requests.js';
import { REMOTE_GUARD_HELP } from './remote-guard-help.js';
import { lexicalRootsOption } from './roots.js';
import { SseReader } from './sse-reader.js';
import { UsageError } from './usage-error.js';

export interface ConnectCommandOptions extends CodecOptions {
  url: string;
  /** Extra request headers, each 'Name: value' (Authorization, say). */
  headers?: string[];
  maxMessageBytes?: number;
  /** Check tool calls before they leave ('all': tools and U+FFFD, as wrap --guard). */
  guard?: GuardMode | false;
  /** With a guard: absolute folders (the server's) path arguments must stay in; a lexical check. */
  roots?: string[];
  /** With a guard: told each tools/call judged, with its session, before its answer or the call goes on. */
  onAudit?: OnAudit;
  /** Answer a request the server leaves unanswered this long (http/timed.ts); default: none. */
  callTimeoutMs?: number;
  /** How long progress may keep a request going in all; default 10 times callTimeoutMs. */
  callTimeoutMaxMs?: number;
  /** Defaults: process.stdin, process.stdout, stderr lines, globalThis.fetch. */
  input?: Readable;
  output?: Writable;
  log?: (line: string) => void;
  fetch?: FetchLike;
}

const ACCEPT = 'application/json, text/event-stream';
/** GET stream reconnections in a row without an event before giving up. */
const MAX_RETRIES = 5;

export function parseHeaders(lines: readonly string[]): Headers {
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new TypeError(`--header must be 'Name: value'`);
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** Waits `ms`, or less if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // (A server's `retry:` may be any number: past MAX_DURATION_MS Node would fire after 1 ms.)
    const timer = setTimeout(done, Math.min(ms, MAX_DURATION_MS));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Runs until the host closes stdin; resolves with the exit code. */
export async function runConnect(options: ConnectCommandOptions): Promise<number> {
  const { url, headers: headerLines = [], input = process.stdin, output = process.stdout, fetch: inner, ...rest } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`mcp-payload-codec: ${line}\n`));
  const endpoint = new URL(url);
  const extra = parseHeaders(headerLines);
  const max = rest.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const fetch = createFilteringFetch({ ...rest, fetch: inner, onGuardLog: log });
  const codec = createCodec(rest);
  const closing = new AbortController();
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let getStream: Promise<void> | undefined;
  const inFlight = new Set<Promise<void>>();

  const write = async (text: string) => {
    // One message per line: newlines inside JSON are whitespace, so they become spaces.
    if (!output.write(text.replace(/[\r\n]/g, ' ') + '\n')) await new Promise((r) => output.once('drain', r));
  };
  const fail = (pending: PendingRequests, message: string) => {
    // Encoded like everything the host reads (a message may quote what the server sent), under
    // each id as the host wrote it.
    for (const id of pending.take()) void write(messageText(codec.encodeMessage(errorResponse(id, SERVER_ERROR, message))));
  };
  const headers = (accept: string) => {
    const h = new Headers(extra);
    h.set('accept', accept);
    if (sessionId) h.set('mcp-session-id', sessionId);
    if (protocolVersion) h.set('mcp-protocol-version', protocolVersion);
    return h;
  };

  /**
   * Writes each message of a body or stream; ids answered are taken out of `pending`. A GET's
   * body is an event stream whatever its type says (as the SDK's client reads it, and as the
   * filtering fetch encodes it).
   */
  const relay = async (
    response: Response,
    pending: PendingRequests,
    onMessage?: (m: Record<string, unknown>) => void,
    reader?: SseReader,
    get = false,
  ): Promise<void> => {
    const seen = (text: string) => {
      try {
        const value = JSON.parse(text) as unknown;
        for (const m of (Array.isArray(value) ? value : [value]) as Record<string, unknown>[]) {
          if (m && typeof m === 'object' && !('method' in m)) pending.answered(m.id);
          if (m && typeof m === 'object') onMessage?.(m);
        }
      } catch {
        // (not JSON: the host's parser reports it)
      }
    };
    const type = get ? 'text/event-stream' : mediaType(response.headers.get('content-type'));
    if (response.body && type !== 'text/event-stream' && !isJsonResponse(type)) {
      // Not a message: the host reads only JSON-RPC, and nothing may reach it unencoded. (An
      // empty body, a 202 without a type say, is no answer at all: nothing to tell.)
      const reader = response.body.getReader();
      let empty = true;
      try {
        for (;;) {
          const next = await reader.read();
          if (next.done) break;
          if (next.value.length) {
            empty = false;
            break;
          }
        }
      } catch {
        // (a body that fails is no answer either)
      }
      await reader.cancel().catch(() => {});
      if (empty) return;
      const shown = /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : type ? 'an unusual one' : 'none';
      log(`answered with Content-Type ${shown.slice(0, 100)}, neither JSON nor an event stream: not passed on`);
      fail(pending, `The MCP server answered with Content-Type ${type || 'none'}, neither JSON nor an event stream`);
      return;
    }
    if (type === 'text/event-stream' && response.body) {
      const queue: string[] = [];
      const sse = reader ?? new SseReader(max);
      sse.reset();
      sse.onEvent = (e) => {
        if (e.event === 'message') queue.push(e.data);
      };
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        sse.push(decoder.decode(chunk, { stream: true }));
        for (const data of queue.splice(0)) {
          if (data.trim() === '') continue; // (a priming event: an id to resume from, no message)
          seen(data);
          await write(data); // (waits while the host reads slowly: the stream waits too)
        }
      }
    } else if (response.body) {
      const text = await response.text();
      if (text.trim()) {
        seen(text);
        await write(text);
      }
    }
  };

  const openGetStream = () => {
    getStream = (async () => {
      const reader = new SseReader(max);
      for (let retries = 0; retries < MAX_RETRIES && !closing.signal.aborted; retries++) {
        const h = headers('text/event-stream');
        if (reader.lastEventId !== undefined) h.set('last-event-id', reader.lastEventId);
        let response: Response;
        try {
          response = await fetch(endpoint, { method: 'GET', headers: h, signal: closing.signal });
        } catch {
          if (closing.signal.aborted) return;
          await sleep(500 * (retries + 1), closing.signal);
          continue;
        }
        if (response.status === 405 || !response.ok) {
          await response.body?.cancel();
          if (response.status !== 405) log(`GET stream refused (HTTP ${response.status})`);
          return; // the server offers no stream
        }
        const before = reader.lastEventId;
        try {
          await relay(response, new PendingRequests(), undefined, reader, true);
        } catch {
          if (closing.signal.aborted) return;
        }
        if (reader.lastEventId !== before) retries = -1; // (progress: start counting again)
        if (reader.lastEventId === undefined) return; // not resumable: the server ended it
        await sleep(reader.retryMs ?? 1000, closing.signal); // (the server's delay, SEP-1699)
      }
    })();
  };

  const post = async (line: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return write(JSON.stringify(errorResponse(null, PARSE_ERROR, 'Parse error: a line from the host is not JSON')));
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
    const pending = new PendingRequests(line, messages);
    const initialize = messages.some((m) => m?.method === 'initialize');
    const initialized = messages.some((m) => m?.method === 'notifications/initialized');
    const h = headers(ACCEPT);
    h.set('content-type', 'application/json');
    let response: Response;
    try {
      response = await fetch(endpoint, { method: 'POST', headers: h, body: line, signal: closing.signal });
    } catch (e) {
      if (!closing.signal.aborted) {
        log(`POST failed: ${(e as Error).name}`);
        fail(pending, `Cannot reach the MCP server (${(e as Error).name})`);
      }
      return;
    }
    if (initialize) sessionId = response.headers.get('mcp-session-id') ?? sessionId;
    if (!response.ok) {
      await response.body?.cancel();
      if (response.status === 404 && sessionId) log('the server ended the session (HTTP 404)');
      else log(`POST answered HTTP ${response.status}`);
      // (A -32602 answer made by the filter comes as 200, a collision of a notification as 400.)
      return fail(pending, `The MCP server answered HTTP ${response.status}`);
    }
    const reader = new SseReader(max);
    const onMessage = (m: Record<string, unknown>) => {
      const result = m.result as { protocolVersion?: unknown } | undefined;
      if (initialize && typeof result?.protocolVersion === 'string') protocolVersion = result.protocolVersion;
    };
    try {
      await relay(response, pending, onMessage, reader);
    } catch (e) {
      if (closing.signal.aborted) return;
      log(`response stream failed: ${(e as Error).name}`);
    }
    // The stream ended before its responses: resume it with GET and Last-Event-ID, when the
    // server gave event ids, after its `retry:` delay.
    for (let tries = 0; pending.size && reader.lastEventId !== undefined && tries < MAX_RETRIES && !closing.signal.aborted; tries++) {
      await sleep(reader.retryMs ?? 1000, closing.signal);
      const h = headers('text/event-stream');
      h.set('last-event-id', reader.lastEventId);
      const before = reader.lastEventId;
      try {
        const resumed = await fetch(endpoint, { method: 'GET', headers: h, signal: closing.signal });
        if (!resumed.ok) {
          await resumed.body?.cancel();
          break;
        }
        await relay(resumed, pending, onMessage, reader, true);
      } catch {
        // (counted as a try)
      }
      if (reader.lastEventId !== before) tries = -1; // (progress: count again)
    }
    if (pending.size && !closing.signal.aborted) fail(pending, 'The response stream ended before the response');
    if (initialized && !getStream) openGetStream();
  };

  /**
   * A line that is not UTF-8 is not posted (decoding would turn it into U+FFFD, silently): read
   * as the server would read it, its requests are answered and its responses (answers to the
   * server's requests) posted as errors, so no one waits for a timeout.
   */
  const refuse = (bytes: Uint8Array, n: number) => {
    const reason = `line ${n} from the host is not valid UTF-8 (at byte ${firstInvalidUtf8Byte(bytes)}) and was not forwarded`;
    const { replies, toOtherSide } = refusalReplies(readLeniently(bytes), PARSE_ERROR, reason);
    if (replies) void write(messageText(codec.encodeMessage(replies)));
    for (const m of toOtherSide) track(post(messageText(m)));
    log(`skipped ${reason}`);
  };
  const track = (p: Promise<void>) => {
    const settled = p.catch((e: Error) => log(`internal error: ${e.name}`));
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };

  log(`forwarding stdio to ${endpoint.origin}${endpoint.pathname}`);
  // Lines from the host, each posted as it comes (a long call must not hold up a cancellation).
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lines = 0;
  try {
    for await (const bytes of ndjsonLines(input as AsyncIterable<Uint8Array | string>, max)) {
      lines++;
      let line: string;
      try {
        line = decoder.decode(bytes);
      } catch {
        refuse(bytes, lines);
        continue;
      }
      if (line.trim() === '') continue;
      track(post(line));
    }
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new Error(`line ${lines + 1} from the host is larger than maxMessageBytes (${max})`);
  }
  // The host is done: let answers in flight finish, then end the session.
  await Promise.allSettled([...inFlight]);
  closing.abort();
  await getStream?.catch(() => {});
  if (sessionId) {
    try {
      const response = await fetch(endpoint, { method: 'DELETE', headers: headers(ACCEPT) });
      await response.body?.cancel();
    } catch {
      // the server is gone: nothing to end
    }
  }
  return 0;
}

export const CONNECT_HELP = `  connect URL [options]                  A stdio MCP server that forwards to a remote Streamable
                                         HTTP MCP server, filtered (what the client sends is
                                         decoded, what comes back encoded). Keeps the session,
                                         opens the server's GET stream, ends the session with
                                         DELETE when stdin closes.
    --header 'Name: value'               sent with every request (repeatable), e.g.
                                         --header 'Authorization: Bearer TOKEN'
    --max-message-bytes N                a bigger line from the host ends connect, a bigger
                                         message from the server ends its response
                                         (default 536870912)
${REMOTE_GUARD_HELP}    --call-timeout DURATION              answer a request the server leaves unanswered that
                                         long and POST it notifications/cancelled (as wrap)
    --call-timeout-max DURATION          how long progress may extend it (default 10 times)
`;

/** `connect` from its command line; resolves with the exit code when stdin ends. */
export async function connectCommand(line: CommandLine, options: StreamCommandOptions, guard: GuardMode | false): Promise<number> {
  if (line.positionals.length !== 1) throw new UsageError('connect needs one URL');
  const url = line.positionals[0]!;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError('connect: the URL must be an http: or https: URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('connect: the URL must be an http: or https: URL');
  const headers = line.lists.header ?? [];
  try {
    parseHeaders(headers);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const roots = lexicalRootsOption(line);
  const audit = auditOption(line, (text) => process.stderr.write(`mcp-payload-codec: ${text}\n`));
  try {
    return await runConnect({
      ...options,
      url,
      headers,
      guard,
      ...callTimeout(line),
      ...(roots ? { roots } : {}),
      ...(audit ? { onAudit: audit.onAudit } : {}),
    });
  } finally {
    audit?.close();
  }
}
