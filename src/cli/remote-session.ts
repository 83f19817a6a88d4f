// connect's session with the remote Streamable HTTP server: it keeps the session id (from the
// initialize answer) and the protocol version (from its result) and sends both on every request,
// posts each line from the host, resumes a response stream that ended before its answers (GET
// with Last-Event-ID, after the server's retry delay), opens the GET stream once the host is
// initialized (when the server offers one), and ends the session with DELETE.
import type { FetchLike } from '../http/fetch.js';
import { SseReader } from '../http/sse-reader.js';
import { errorResponse, PARSE_ERROR } from '../jsonrpc/message.js';
import { parseJson } from '../util/json.js';
import { relay } from './connect-relay.js';
import type { HostLines } from './host-lines.js';
import { MAX_DURATION_MS } from './http-args.js';
import { PendingRequests } from './pending-requests.js';

const ACCEPT = 'application/json, text/event-stream';
/** Reconnections in a row without an event before giving up (the GET stream; a response stream). */
const MAX_RETRIES = 5;

export interface RemoteSessionOptions {
  endpoint: URL;
  /** Sent with every request (Authorization, say). */
  headers: Headers;
  /** The filtering fetch: what goes out decoded, what comes back encoded. */
  fetch: FetchLike;
  host: HostLines;
  log: (line: string) => void;
  /** The largest event read. */
  maxBytes: number;
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

export class RemoteSession {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  private readonly closing = new AbortController();
  private getStream: Promise<void> | undefined;

  constructor(private readonly o: RemoteSessionOptions) {}

  /** Posts one line from the host and relays the answer; every request in it is answered, by the server or here. */
  async post(line: string): Promise<void> {
    const { o, closing } = this;
    const parsed = parseJson(line);
    if (parsed === undefined)
      return o.host.write(JSON.stringify(errorResponse(null, PARSE_ERROR, 'Parse error: a line from the host is not JSON')));
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
    const pending = new PendingRequests(line, messages);
    const initialize = messages.some((m) => m?.method === 'initialize');
    const initialized = messages.some((m) => m?.method === 'notifications/initialized');
    const h = this.headers(ACCEPT);
    h.set('content-type', 'application/json');
    let response: Response;
    try {
      response = await o.fetch(o.endpoint, { method: 'POST', headers: h, body: line, signal: closing.signal });
    } catch (e) {
      if (!closing.signal.aborted) {
        o.log(`POST failed: ${(e as Error).name}`);
        o.host.fail(pending, `Cannot reach the MCP server (${(e as Error).name})`);
      }
      return;
    }
    if (initialize) this.sessionId = response.headers.get('mcp-session-id') ?? this.sessionId;
    if (!response.ok) {
      await response.body?.cancel();
      if (response.status === 404 && this.sessionId) o.log('the server ended the session (HTTP 404)');
      else o.log(`POST answered HTTP ${response.status}`);
      // (A -32602 answer made by the filter comes as 200, a collision of a notification as 400.)
      return o.host.fail(pending, `The MCP server answered HTTP ${response.status}`);
    }
    const onMessage = (m: Record<string, unknown>) => {
      const result = m.result as { protocolVersion?: unknown } | undefined;
      if (initialize && typeof result?.protocolVersion === 'string') this.protocolVersion = result.protocolVersion;
    };
    const reader = new SseReader(o.maxBytes);
    try {
      await relay(response, pending, { ...this.relayed, onMessage, reader });
    } catch (e) {
      if (closing.signal.aborted) return;
      o.log(`response stream failed: ${(e as Error).name}`);
    }
    await this.resume(pending, reader, onMessage);
    if (pending.size && !closing.signal.aborted) o.host.fail(pending, 'The response stream ended before the response');
    if (initialized && !this.getStream) this.getStream = this.listen();
  }

  /** The host is done: the GET stream stops, and the session ends (DELETE). */
  async end(): Promise<void> {
    this.closing.abort();
    await this.getStream?.catch(() => {});
    if (!this.sessionId) return;
    try {
      const response = await this.o.fetch(this.o.endpoint, { method: 'DELETE', headers: this.headers(ACCEPT) });
      await response.body?.cancel();
    } catch {
      // the server is gone: nothing to end
    }
  }

  private get relayed() {
    return { host: this.o.host, log: this.o.log, maxBytes: this.o.maxBytes };
  }

  private headers(accept: string): Headers {
    const h = new Headers(this.o.headers);
    h.set('accept', accept);
    if (this.sessionId) h.set('mcp-session-id', this.sessionId);
    if (this.protocolVersion) h.set('mcp-protocol-version', this.protocolVersion);
    return h;
  }

  /**
   * The stream ended before its responses: resume it with GET and Last-Event-ID, when the
   * server gave event ids, after its `retry:` delay.
   */
  private async resume(pending: PendingRequests, reader: SseReader, onMessage: (m: Record<string, unknown>) => void): Promise<void> {
    const { signal } = this.closing;
    for (let tries = 0; pending.size && reader.lastEventId !== undefined && tries < MAX_RETRIES && !signal.aborted; tries++) {
      await sleep(reader.retryMs ?? 1000, signal);
      const h = this.headers('text/event-stream');
      h.set('last-event-id', reader.lastEventId);
      const before = reader.lastEventId;
      try {
        const resumed = await this.o.fetch(this.o.endpoint, { method: 'GET', headers: h, signal });
        if (!resumed.ok) {
          await resumed.body?.cancel();
          break;
        }
        await relay(resumed, pending, { ...this.relayed, onMessage, reader, get: true });
      } catch {
        // (counted as a try)
      }
      if (reader.lastEventId !== before) tries = -1; // (progress: count again)
    }
  }

  /** The GET stream, while the server offers one: reconnected (Last-Event-ID) after the server's delay. */
  private async listen(): Promise<void> {
    const { signal } = this.closing;
    const reader = new SseReader(this.o.maxBytes);
    for (let retries = 0; retries < MAX_RETRIES && !signal.aborted; retries++) {
      const h = this.headers('text/event-stream');
      if (reader.lastEventId !== undefined) h.set('last-event-id', reader.lastEventId);
      let response: Response;
      try {
        response = await this.o.fetch(this.o.endpoint, { method: 'GET', headers: h, signal });
      } catch {
        if (signal.aborted) return;
        await sleep(500 * (retries + 1), signal);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        if (response.status !== 405) this.o.log(`GET stream refused (HTTP ${response.status})`);
        return; // the server offers no stream
      }
      const before = reader.lastEventId;
      try {
        await relay(response, new PendingRequests(), { ...this.relayed, reader, get: true });
      } catch {
        if (signal.aborted) return;
      }
      if (reader.lastEventId !== before) retries = -1; // (progress: start counting again)
      if (reader.lastEventId === undefined) return; // not resumable: the server ended it
      await sleep(reader.retryMs ?? 1000, signal); // (the server's delay, SEP-1699)
    }
  }
}
