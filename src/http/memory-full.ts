// WASM memory full (thousands of messages in progress at once hold it all) is a resource limit
// of the process, not a fault of the request: the request that meets it is answered 503 with
// Retry-After, never 500, and the other clients go on. The body is written without the codec
// (which needs that memory) and says nothing of any payload.
import { WasmMemoryFullError } from '../errors.js';
import { errorResponse, SERVER_ERROR } from '../jsonrpc/message.js';

export const RETRY_AFTER_SECONDS = 5;

export const isMemoryFull = (e: unknown): e is WasmMemoryFullError => e instanceof WasmMemoryFullError;

/**
 * The 503 answer: a JSON-RPC error with id null (the request was not read), and the connection
 * closed (a body left unread would be read as the next request's start).
 */
export function memoryFullResponse(): Response {
  const body = errorResponse(null, SERVER_ERROR, 'Service unavailable: WASM memory is full (too many messages in progress); retry later');
  return new Response(JSON.stringify(body), {
    status: 503,
    headers: { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' },
  });
}
