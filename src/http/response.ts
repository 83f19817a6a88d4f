// Responses on their way to the host: JSON bodies and event streams are encoded as they
// stream; other text bodies (error pages) and JSON error bodies are encoded whole, up to the
// size bound (the response goes at once; its body when whole). Only media passes as it is.
// The framing is the one the host's client reads the body with: the SDK's client reads any
// successful GET body as an event stream, whatever its Content-Type says.
import { type Codec, createCodec } from '../codec/codec.js';
import { createEncodeStream, DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { parseJson } from '../util/json.js';
import { encodeBytes, readBounded } from './body.js';
import type { CallGuard } from './call-guard.js';
import { eventObserver, observeJson } from './guarded.js';
import type { BodyOptions } from './json-body.js';
import { createJsonBodyStream } from './json-body.js';
import type { HeadFields } from './proxy-headers.js';
import { STREAM_PAST, wholeEvents } from './sse-events.js';
import { type TimedPost, timedEvents } from './timed.js';

/** Statuses whose responses have no body (Response refuses one). */
export const NULL_BODY: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

export function mediaType(contentType: string | null): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';'); // (read twice a call: no array of the parts made)
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

export const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');

/** JSON in a response: application/json, +json, and the JSON-RPC types some servers send. */
export const isJsonResponse = (type: string) => isJson(type) || type === 'application/json-rpc' || type === 'application/jsonrequest';

/** Types that hold text a model could read, besides text/*: markup, scripts, forms, YAML. */
const TEXTUAL =
  /^application\/(?:xml|[\w.+-]*\+xml|(?:x-)?javascript|ecmascript|x-www-form-urlencoded|(?:x-)?yaml|[\w.+-]*\+yaml|graphql|sql|x-ndjson|x-sh|rtf)$/;

/** Media that is only bytes (kept as it is, as image and audio content is inside messages). */
const MEDIA = /^(?:image|audio|video|font)\//;

export type BodyKind = 'sse' | 'json' | 'text' | 'binary';

/**
 * How a body is encoded: 'sse' and 'json' as they stream, 'text' whole; 'binary' passes. On the
 * MCP endpoint nothing passes but the media of a success: a body of any other type is read as
 * text, and a successful GET's body is an event stream whatever its type (the SDK's client
 * reads it so: streamableHttp.js `_startOrAuthSse` looks only at `response.ok`; a POST's body
 * it reads by type, `text/event-stream` as events and `application/json` as JSON).
 */
function bodyKind(type: string, endpoint: boolean, ok: boolean, get: boolean): BodyKind {
  if (type === 'text/event-stream' || (get && ok && endpoint)) return 'sse';
  if (isJsonResponse(type)) return 'json';
  // (an error is read as text whatever its type says: a client shows an error's body)
  if (MEDIA.test(type) && (ok || !endpoint)) return 'binary';
  if (type === '' || type.startsWith('text/') || TEXTUAL.test(type)) return 'text';
  return endpoint ? 'text' : 'binary';
}

export interface ResponseFilterOptions extends BodyOptions {
  /** Called when an event stream ended or failed in the middle of an event (no payload in it). */
  onTruncated?: (error: unknown) => void;
  /** Shown the messages it learns tool lists from (before encoding). */
  guard?: CallGuard;
  /**
   * Whether the response comes from the MCP endpoint (default true): there, every body but
   * media is encoded, and JSON error bodies that are not JSON-RPC are encoded as values.
   * Elsewhere (OAuth metadata) only JSON and text bodies are, as before.
   */
  endpoint?: boolean;
  /** The request's method (default 'POST'): a successful GET on the endpoint is an event stream. */
  method?: string;
  /**
   * The POST's requests under a call time limit: timed on in an event stream (timed.ts), done
   * with in any other response (the upstream's answer).
   */
  timed?: TimedPost;
}

/** A response's head, as a Web Response or an upstream's node:http answer (OpenedStream) has it. */
export interface ResponseHead {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeadFields;
}

/** How a response with this head (and a body or not) is read by the host's client, so how it is encoded. */
export function headKind(
  head: ResponseHead,
  hasBody: boolean,
  options: Pick<ResponseFilterOptions, 'endpoint' | 'method'>,
): BodyKind | 'none' {
  if (!hasBody || NULL_BODY.has(head.status)) return 'none';
  const { endpoint = true, method = 'POST' } = options;
  const ok = head.status >= 200 && head.status < 300;
  return bodyKind(mediaType(head.headers.get('content-type')), endpoint, ok, method.toUpperCase() === 'GET');
}

/** How `response` is read by the host's client, so how it is encoded. */
export const responseKind = (response: Response, options: Pick<ResponseFilterOptions, 'endpoint' | 'method'>): BodyKind | 'none' =>
  headKind(response, response.body !== null, options);

/** `response` with its body encoded for the host; headers kept but the length and encoding. */
export async function encodeResponse(response: Response, options: ResponseFilterOptions): Promise<Response> {
  const kind = responseKind(response, options);
  const { onTruncated, guard, endpoint = true, method: _, timed, ...codecOptions } = options;
  if (kind !== 'sse') timed?.stop();
  if (!response.body || kind === 'none') return response;
  const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  let body: ReadableStream<Uint8Array> | Uint8Array;
  if (kind === 'sse') {
    // (Timed: events are read as they pass; one that goes on unread (past 1 MiB) ends the timing.)
    const whole = wholeEvents(
      response.body,
      max,
      onTruncated,
      guard && eventObserver(guard),
      STREAM_PAST,
      timed && (() => timed.passUnread()),
    );
    const events = timed ? timedEvents(whole, timed) : whole;
    body = events.pipeThrough(createEncodeStream({ ...codecOptions, framing: 'sse' }));
  } else if (kind === 'json' && endpoint && !response.ok) {
    body = later((whole) => encodeJsonWhole(whole, max, codecOptions), response.body);
  } else if (kind === 'json') {
    body = (guard ? response.body.pipeThrough(observeJson(guard, max)) : response.body).pipeThrough(
      createJsonBodyStream('encode', codecOptions),
    );
  } else if (kind === 'text') {
    body = later(async (whole) => encodeText(await readBounded(whole, max), codecOptions), response.body);
  } else return response; // media: nothing a model reads as text
  return new Response(body as BodyInit, encodedHead(response, codecOptions));
}

/** The head of an encoded response: the upstream's, without the length and the encoding, its status text encoded. */
export function encodedHead(response: Response, options: BodyOptions): ResponseInit & { headers: Headers } {
  const headers = new Headers(response.headers);
  headers.delete('content-length'); // (a new length, unknown while streaming)
  headers.delete('content-encoding'); // (fetch has already decompressed the body)
  return { status: response.status, statusText: encodedStatusText(response.statusText, createCodec(options)), headers };
}

/** The status text is the upstream's words, and a client may show them: encoded too. */
export const encodedStatusText = (statusText: string, codec: Codec): string => codec.encodeText(statusText);

/**
 * A body made whole by `make` (from `source`) when first read: the response itself goes at once
 * (a body that stays open does not hold it back), and a client that will not read it cancels
 * `source` (the upstream's connection is let go).
 */
function later(
  make: (body: ReadableStream<Uint8Array>) => Promise<Uint8Array>,
  source: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let cancelled = false;
  const from = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (started) return;
        started = true;
        const bytes = await make(from);
        if (cancelled) return;
        if (bytes.length) controller.enqueue(bytes);
        controller.close();
      },
      cancel(reason) {
        cancelled = true;
        return reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

// A BOM is kept (it is text too); bytes that are not UTF-8 become U+FFFD in the lenient one.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A text body (an error page, say), encoded whole (over the bound: the body errors for the
 * reader). Bytes that are not UTF-8 are replaced by U+FFFD first: a term can hide among them.
 */
function encodeText(bytes: Uint8Array, options: BodyOptions): Uint8Array {
  let text: string;
  let valid = true;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    text = utf8.decode(bytes);
    valid = false;
  }
  const encoded = createCodec(options).encodeText(text);
  return valid && encoded === text ? bytes : new TextEncoder().encode(encoded); // (unchanged text keeps its bytes)
}

const isRpc = (m: unknown) => typeof m === 'object' && m !== null && !Array.isArray(m) && (m as { jsonrpc?: unknown }).jsonrpc === '2.0';

/**
 * A JSON error body from the MCP endpoint, read whole: JSON-RPC is encoded byte for byte as
 * messages are; other JSON (`{"detail": ...}`) is encoded as a value (re-serialised); what is
 * not JSON at all, as text.
 */
async function encodeJsonWhole(body: ReadableStream<Uint8Array>, max: number, options: BodyOptions): Promise<Uint8Array> {
  const bytes = await readBounded(body, max);
  const value = parseJson(utf8.decode(bytes));
  if (value === undefined) return encodeText(bytes, options);
  if (Array.isArray(value) ? value.length > 0 && value.every(isRpc) : isRpc(value)) {
    try {
      return await encodeBytes(bytes, options);
    } catch {
      // (the stream encoder refuses what JSON.parse took: nesting past its limit, say)
    }
  }
  return new TextEncoder().encode(JSON.stringify(createCodec(options).encodeValue(value)));
}
