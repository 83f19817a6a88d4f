// How the HTTP guards learn a tool list they do not hold (a session forgotten or never seen, a
// proxy restarted, a list changed): they ask the upstream themselves, a `tools/list` of their
// own sent as the client's session (its Mcp-Session-Id, protocol version and auth headers), and
// read the upstream's answer before anything encodes it (real names, as the guard checks them).
import { LIST_TIMEOUT_MS, ownRequestId } from '../guard/own-requests.js';
import type { ListTools } from '../guard/tool.js';
import { readBounded } from './body.js';
import type { CallGuard } from './call-guard.js';
import type { FetchLike } from './fetch-like.js';
import { type GuardedRequest, guardRequest } from './guarded.js';
import type { BodyOptions } from './json-body.js';
import type { AbortSignalLike } from './proxy-request.js';
import { mediaType } from './response.js';
import type { SessionGuards } from './session-guards.js';
import { SseReader } from './sse-reader.js';

const utf8 = new TextDecoder();

/**
 * Asks `url` for pages of its tool list with `headers` (the client's request headers: session,
 * protocol version, auth; copied for each page. A function making them, fresh each call, is
 * called only when the guard asks, not for each guarded POST, and what it makes is used as it
 * is), within LIST_TIMEOUT_MS in all and `maxBytes` an answer; `signal` (the
 * client's request) ends the asking when the client leaves.
 */
export function askUpstream(
  fetch: FetchLike,
  url: string | URL,
  headers: Headers | (() => Headers),
  maxBytes: number,
  signal?: AbortSignalLike,
): Asker {
  let deadline: number | undefined; // (from the first page)
  const ask: Asker = async (cursor) => {
    deadline ??= Date.now() + LIST_TIMEOUT_MS;
    const id = ownRequestId();
    const h = typeof headers === 'function' ? headers() : new Headers(headers);
    h.delete('content-length');
    h.delete('last-event-id');
    h.set('content-type', 'application/json');
    h.set('accept', 'application/json, text/event-stream');
    const params = cursor === undefined ? {} : { cursor };
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(new Error(`no whole list within ${LIST_TIMEOUT_MS} ms`)), Math.max(0, deadline - Date.now()));
    const left = () => stop.abort(new Error('the client left'));
    signal?.addEventListener('abort', left, { once: true });
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params }),
        signal: stop.signal,
        redirect: 'manual',
      });
      if (!response.ok) {
        ask.refused = response.status;
        await response.body?.cancel().catch(() => {});
        throw new Error(`the server answered HTTP ${response.status}`);
      }
      const answer =
        mediaType(response.headers.get('content-type')) === 'text/event-stream'
          ? await answerInEvents(response.body, id, maxBytes)
          : answerIn(utf8.decode(await readBounded(response.body, maxBytes)), id);
      if (!answer) throw new Error('its answer holds no response to it');
      if (answer.error !== undefined) throw new Error(`the server answered error ${Number((answer.error as { code?: unknown })?.code)}`);
      return answer.result;
    } catch (e) {
      throw stop.signal.aborted ? (stop.signal.reason as Error) : e instanceof SyntaxError ? new Error('its answer is not JSON') : e;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', left);
    }
  };
  return ask;
}

/** ListTools that says which HTTP status the upstream refused the asking with, if it did. */
export type Asker = ListTools & { refused?: number };

interface Answer {
  result?: unknown;
  error?: unknown;
}

/** The response with `id` in a JSON body (a message or a batch). */
function answerIn(text: string, id: string): Answer | undefined {
  const value = JSON.parse(text) as unknown;
  for (const m of (Array.isArray(value) ? value : [value]) as { id?: unknown; method?: unknown }[])
    if (typeof m === 'object' && m !== null && m.id === id && m.method === undefined) return m as Answer;
  return undefined;
}

/** The response with `id` in an event stream, read until it comes (the stream is then let go). */
async function answerInEvents(body: ReadableStream<Uint8Array> | null, id: string, maxBytes: number): Promise<Answer | undefined> {
  if (!body) return undefined;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events = new SseReader(maxBytes);
  let answer: Answer | undefined;
  events.onEvent = ({ event, data }) => {
    if (answer || event !== 'message') return;
    try {
      answer = answerIn(data, id);
    } catch {} // (another event that is not JSON is not ours to judge)
  };
  let size = 0;
  try {
    while (!answer) {
      const { done, value } = await reader.read();
      if (done) {
        events.push(`${decoder.decode()}\n\n`); // (an event the stream's end cut off is whole)
        break;
      }
      size += value.length;
      if (size > maxBytes) throw new Error(`its answer is larger than maxMessageBytes (${maxBytes})`);
      events.push(decoder.decode(value, { stream: true }));
    }
    return answer;
  } finally {
    void reader.cancel().catch(() => {});
  }
}

/**
 * guardRequest as the client's `session`: a guard without its tool list asks the upstream as
 * that session (`ask`), and is kept once it learnt one (the upstream took the id). Undefined
 * when the upstream answered the asking 404: it does not know the session and would answer
 * this request 404 too (which tells an SDK client to start again).
 */
export async function guardSession(
  guards: SessionGuards,
  session: string | null,
  guard: CallGuard,
  decoded: Uint8Array,
  options: BodyOptions,
  ask: Asker,
): Promise<GuardedRequest | undefined> {
  const guarded = await guardRequest(guard, decoded, options, ask, session);
  guards.keep(session, guard);
  return ask.refused === 404 && session !== null ? undefined : guarded;
}
