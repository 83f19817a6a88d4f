// A message a `serve` host POSTed, decoded: its bytes as the host wrote them (one line), its
// value to look at (ids, methods, progress tokens) and its id as written.
import { isId } from '../jsonrpc/message.js';

export interface HostMessage {
  bytes: Uint8Array;
  value: { id?: unknown; method?: unknown; params?: Record<string, unknown> } & Record<string, unknown>;
  /** The raw text of its id, when it has one. */
  rawId?: string;
}

export const isRequest = (m: HostMessage['value']) => typeof m.method === 'string' && isId(m.id);
