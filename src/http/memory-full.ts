// WASM memory full (thousands of messages in progress at once hold it all) is a resource limit
// of the process, not a fault of the request: the request that meets it is answered 503 with
// Retry-After, never 500, and the other clients go on. The body is written without the codec
// (which needs that memory) and says nothing of any payload.
import { WasmMemoryFullError } from '../errors.js';
import { SERVER_ERROR } from '../jsonrpc/message.js';
import { errorBody, parseShape } from './replies.js';

export const RETRY_AFTER_SECONDS = 5;

export const isMemoryFull = (e: unknown): e is WasmMemoryFullError => e instanceof WasmMemoryFullError;

const MESSAGE = 'Service unavailable: WASM memory is full (too many messages in progress); retry later';

/**
 * The 503 answer: a JSON-RPC error under each request's id as written in `original` (the body,
 * when it was read: read in JS, no WASM memory), else one with id null; the connection closed
 * (a body not read, as when memory runs out before it is, would be read as the next request's
 * start; one read whole leaves a client that went on sending to reconnect). The ids go back as the client
 * wrote them, not through the codec; past `limit` bytes (replies.ts answerLimit) one under id null.
 */
export function memoryFullResponse(original?: Uint8Array, limit?: number): Response {
  return new Response(errorBody(parseShape(original), SERVER_ERROR, MESSAGE, limit) as Uint8Array<ArrayBuffer>, {
    status: 503,
    headers: { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' },
  });
}
