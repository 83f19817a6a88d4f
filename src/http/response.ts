// Responses on their way to the host: JSON bodies and event streams are encoded as they
// stream; other text bodies (error pages) and JSON error bodies are encoded whole, up to the
// size bound. Only media passes as it is.
import { createCodec } from '../codec.js';
import { createEncodeStream, DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { encodeBytes, readBounded } from './body.js';
import type { CallGuard } from './call-guard.js';
import { eventObserver, observeJson } from './guarded.js';
import type { BodyOptions } from './json-body.js';
import { createJsonBodyStream } from './json-body.js';
import { wholeEvents } from './sse-events.js';

/** Statuses whose responses have no body (Response refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');

/** JSON in a response: application/json, +json, and the JSON-RPC types some servers send. */
export const isJsonResponse = (type: string) => isJson(type) || type === 'application/json-rpc' || type === 'application/jsonrequest';

/** Types that hold text a model could read, besides text/*: markup, scripts, forms, YAML. */
const TEXTUAL =
  /^application\/(?:xml|[\w.+-]*\+xml|(?:x-)?javascript|ecmascript|x-www-form-urlencoded|(?:x-)?yaml|[\w.+-]*\+yaml|graphql|sql|x-ndjson|x-sh|rtf)$/;

/** Media that is only bytes (kept as it is, as image and audio content is inside messages). */
const MEDIA = /^(?:image|audio|video|font)\//;

/**
 * How a body is encoded: 'sse' and 'json' as they stream, 'text' whole; 'binary' passes. On the
 * MCP endpoint nothing passes but the media of a success: a body of any other type is read as text.
 */
function bodyKind(type: string, endpoint: boolean, ok: boolean): 'sse' | 'json' | 'text' | 'binary' {
  if (type === 'text/event-stream') return 'sse';
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
}

/** `response` with its body encoded for the host; headers kept but the length and encoding. */
export async function encodeResponse(response: Response, options: ResponseFilterOptions): Promise<Response> {
  if (!response.body || NULL_BODY.has(response.status)) return response;
  const type = mediaType(response.headers.get('content-type'));
  const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const { onTruncated, guard, endpoint = true, ...codecOptions } = options;
  const kind = bodyKind(type, endpoint, response.ok);
  let body: ReadableStream<Uint8Array> | Uint8Array;
  if (kind === 'sse') {
    const events = wholeEvents(response.body, max, onTruncated, guard && eventObserver(guard));
    body = events.pipeThrough(createEncodeStream({ ...codecOptions, framing: 'sse' }));
  } else if (kind === 'json' && endpoint && !response.ok) {
    body = await encodeJsonWhole(response.body, max, codecOptions);
  } else if (kind === 'json') {
    body = (guard ? response.body.pipeThrough(observeJson(guard, max)) : response.body).pipeThrough(
      createJsonBodyStream('encode', codecOptions),
    );
  } else if (kind === 'text') {
    body = await encodeText(await readBounded(response.body, max), codecOptions);
  } else return response; // media: nothing a model reads as text
  const headers = new Headers(response.headers);
  headers.delete('content-length'); // (a new length, unknown while streaming)
  headers.delete('content-encoding'); // (fetch has already decompressed the body)
  // (the status text is the upstream's words, and a client may show them: encoded too)
  const statusText = createCodec(codecOptions).encodeText(response.statusText);
  return new Response(body as BodyInit, { status: response.status, statusText, headers });
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
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    return encodeText(bytes, options);
  }
  if (Array.isArray(value) ? value.length > 0 && value.every(isRpc) : isRpc(value)) {
    try {
      return await encodeBytes(bytes, options);
    } catch {
      // (the stream encoder refuses what JSON.parse took: nesting past its limit, say)
    }
  }
  return new TextEncoder().encode(JSON.stringify(createCodec(options).encodeValue(value)));
}
