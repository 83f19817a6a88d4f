// Responses on their way to the host: JSON bodies and event streams are encoded as they
// stream; other text bodies (error pages) are encoded whole, up to the size bound.
import { createCodec } from '../codec.js';
import { createEncodeStream, DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { readBounded } from './body.js';
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

export interface ResponseFilterOptions extends BodyOptions {
  /** Called when an event stream ended or failed in the middle of an event (no payload in it). */
  onTruncated?: (error: unknown) => void;
  /** Shown the messages it learns tool lists from (before encoding). */
  guard?: CallGuard;
}

/** `response` with its body encoded for the host; headers kept but the length and encoding. */
export async function encodeResponse(response: Response, options: ResponseFilterOptions): Promise<Response> {
  if (!response.body || NULL_BODY.has(response.status)) return response;
  const type = mediaType(response.headers.get('content-type'));
  const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const { onTruncated, guard, ...codecOptions } = options;
  let body: ReadableStream<Uint8Array> | Uint8Array;
  if (type === 'text/event-stream') {
    const events = wholeEvents(response.body, max, onTruncated, guard && eventObserver(guard));
    body = events.pipeThrough(createEncodeStream({ ...codecOptions, framing: 'sse' }));
  } else if (isJson(type)) {
    body = (guard ? response.body.pipeThrough(observeJson(guard, max)) : response.body).pipeThrough(
      createJsonBodyStream('encode', codecOptions),
    );
  } else if (type.startsWith('text/') || type === '') {
    body = await encodeText(response.body, max, codecOptions);
  } else return response; // binary: nothing a model reads as text
  const headers = new Headers(response.headers);
  headers.delete('content-length'); // (a new length, unknown while streaming)
  headers.delete('content-encoding'); // (fetch has already decompressed the body)
  return new Response(body as BodyInit, { status: response.status, statusText: response.statusText, headers });
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A text body (an error page, say), encoded whole; bytes that are not UTF-8 pass as they are. */
async function encodeText(body: ReadableStream<Uint8Array>, max: number, options: BodyOptions): Promise<Uint8Array> {
  const bytes = await readBounded(body, max); // (over the bound: the body errors for the reader)
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return bytes;
  }
  const encoded = createCodec(options).encodeText(text);
  return encoded === text ? bytes : new TextEncoder().encode(encoded);
}
