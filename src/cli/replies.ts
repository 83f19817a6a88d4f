// Messages the proxy itself writes to the client. They go through the same encoding as the
// server's output: an error's text can hold a term (a tool name, a schema pattern).
import type { Codec } from '../codec/codec.js';
import type { Message } from '../jsonrpc/message.js';
import { messageText } from '../jsonrpc/raw-id.js';

const encoder = new TextEncoder();

export type Reply = Message | Message[];

/** One NDJSON line holding `reply`, encoded with `codec` (its ids as their requests wrote them). */
export function replyLine(codec: Codec, reply: Reply): Uint8Array {
  return encoder.encode(messageText(codec.encodeMessage(reply)) + '\n');
}
