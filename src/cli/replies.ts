// Messages the proxy itself writes to the client. They go through the same encoding as the
// server's output: an error's text can hold a term (a tool name, a schema pattern).
import type { Codec } from '../codec.js';
import { INVALID_PARAMS } from '../mcp/filtering.js';
import { errorResponse, type Message } from '../mcp/wrapper.js';

const encoder = new TextEncoder();

export type Reply = Message | Message[];

/** One NDJSON line holding `reply`, encoded with `codec`. */
export function replyLine(codec: Codec, reply: Reply): Uint8Array {
  return encoder.encode(JSON.stringify(codec.encodeMessage(reply)) + '\n');
}

const isId = (id: unknown): id is string | number => typeof id === 'string' || typeof id === 'number';

/**
 * The -32602 answers to a batch dropped whole because of one of its messages (the one whose
 * id is `culprit`): every request in it is answered, in one batch response.
 */
export function batchReplies(ids: readonly unknown[], culprit: unknown, reason: string): Message[] {
  return ids.filter(isId).map((id) => errorResponse(id, INVALID_PARAMS, id === culprit ? reason : `dropped with its batch: ${reason}`));
}
