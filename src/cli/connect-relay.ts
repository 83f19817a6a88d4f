// connect: one HTTP response from the remote server, relayed to the host. A JSON body is one
// line; an event stream, a line per message event (a priming event, with no message, is none);
// a body of any other type is no message (the host reads only JSON-RPC, and nothing may reach
// it unencoded): the requests it answered get an error instead. A GET's body is an event stream
// whatever its type says (as the SDK's client reads it, and as the filtering fetch encodes it).
import { isJsonResponse, mediaType } from '../http/response.js';
import { SseReader } from '../http/sse-reader.js';
import type { HostLines } from './host-lines.js';
import type { PendingRequests } from './pending-requests.js';

export interface RelayOptions {
  host: HostLines;
  log: (line: string) => void;
  /** The largest event read. */
  maxBytes: number;
  /** Told of each message relayed (the initialize result's protocol version, say). */
  onMessage?: ((m: Record<string, unknown>) => void) | undefined;
  /** The event stream's reader, kept across reconnections (its last event id, its retry delay). */
  reader?: SseReader | undefined;
  /** The response to a GET. */
  get?: boolean;
}

/** Writes each message of `response` to the host; the ids it answers are taken out of `pending`. */
export async function relay(response: Response, pending: PendingRequests, o: RelayOptions): Promise<void> {
  const seen = (text: string) => {
    try {
      const value = JSON.parse(text) as unknown;
      for (const m of (Array.isArray(value) ? value : [value]) as Record<string, unknown>[]) {
        if (!m || typeof m !== 'object') continue;
        if (!('method' in m)) pending.answered(m.id);
        o.onMessage?.(m);
      }
    } catch {
      // (not JSON: the host's parser reports it)
    }
  };
  const type = o.get ? 'text/event-stream' : mediaType(response.headers.get('content-type'));
  if (!response.body) return;
  if (type === 'text/event-stream') {
    const queue: string[] = [];
    const sse = o.reader ?? new SseReader(o.maxBytes);
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
        await o.host.write(data); // (waits while the host reads slowly: the stream waits too)
      }
    }
  } else if (isJsonResponse(type)) {
    const text = await response.text();
    if (text.trim()) {
      seen(text);
      await o.host.write(text);
    }
  } else await notAMessage(response.body, type, pending, o);
}

/** A body neither JSON nor an event stream: its requests are answered with an error, unless it is empty (a 202 without a type, say). */
async function notAMessage(body: ReadableStream<Uint8Array>, type: string, pending: PendingRequests, o: RelayOptions): Promise<void> {
  const reader = body.getReader();
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
  o.log(`answered with Content-Type ${shown.slice(0, 100)}, neither JSON nor an event stream: not passed on`);
  o.host.fail(pending, `The MCP server answered with Content-Type ${type || 'none'}, neither JSON nor an event stream`);
}
