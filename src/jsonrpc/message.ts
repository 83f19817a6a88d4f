// JSON-RPC shapes the library writes itself, and the one answer policy for a message whose
// keys collide once decoded: SDK-free, for the CLI, the SDK wrappers and the HTTP entry alike.
// Answers are made under the ids as their requests wrote them where the text is known (RawId;
// written by messageText, raw-id.ts).
import { type AnswerId, type Id, RawId, type ReadMessage, sameId } from './raw-id.js';

export type { Id };

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Implementation-defined server errors (-32000 to -32099). */
export const SERVER_ERROR = -32000;
/** An answer given for a server that did not answer in time (the SDK's RequestTimeout). */
export const TIMEOUT_CODE = -32001;

/**
 * A JSON-RPC 2.0 message (or, where a batch may come, a batch of them) as the library reads and
 * writes it; the SDK's `JSONRPCMessage` fits it. Its own type, so that nothing outside `mcp/`
 * depends on the optional SDK.
 */
export interface Message {
  jsonrpc: '2.0';
  /** A RawId only in answers the library writes itself (messageText writes its text). */
  id?: AnswerId | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export type MaybePromise<T> = T | Promise<T>;

/** A request: a method and an id (answered under that id). */
export const isRequest = (m: unknown): m is Message & { id: Id; method: string; params?: Record<string, unknown> } =>
  typeof m === 'object' && m !== null && 'method' in m && 'id' in m;

/** A notification: a method and no id. */
export const isNotification = (m: unknown): m is Message & { method: string } =>
  typeof m === 'object' && m !== null && 'method' in m && !('id' in m);

export const isId = (id: unknown): id is Id => typeof id === 'string' || typeof id === 'number';

/** Shaped as a response (an answer to the other side's request): `result` or `error`, no `method`; its id unchecked. */
export const isResponseShape = (m: unknown): m is { id?: unknown } =>
  typeof m === 'object' && m !== null && !Array.isArray(m) && !('method' in m) && ('result' in m || 'error' in m);

/** A response with an id one can answer under. */
export const isResponse = (m: unknown): m is { id: Id } => isResponseShape(m) && isId(m.id);

/** A JSON-RPC error response (`id` null when no request can be named). */
export function errorResponse(id: AnswerId | null, code: number, message: string, data?: unknown): Message {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/**
 * The -32602 answers to the requests of a message dropped because its decoded keys collide: a
 * batch goes whole, so every request in it is answered; the one that collided (`culprit`, or the
 * first when it is not known) gets the reason, the others say they went with their batch.
 */
export function collisionReplies(
  requestIds: readonly unknown[],
  reason: string,
  culprit: unknown = requestIds.find(isAnswerId),
): Message[] {
  return requestIds
    .filter(isAnswerId)
    .map((id) => errorResponse(id, INVALID_PARAMS, sameId(id, culprit) ? reason : `dropped with its batch: ${reason}`));
}

const isAnswerId = (id: unknown): id is AnswerId => isId(id) || id instanceof RawId;

/** Refusals of bytes that do not parse as JSON (JSON-RPC's -32700); the others refuse JSON that parses (-32600). */
const UNPARSEABLE = new Set(['invalid-json', 'invalid-utf8', 'control-character', 'invalid-escape', 'incomplete']);

/** The error code for a message a stream refused (PayloadStreamError's code). */
export const refusalCode = (code: string): number => (UNPARSEABLE.has(code) ? PARSE_ERROR : INVALID_REQUEST);

/** What to send for a message a stream refused but could still read (leniently). */
export interface RefusalReplies {
  /** To the sender: an error under each of its requests' ids (a batch answered as one). */
  replies: Message | Message[] | undefined;
  /** To the other side: an error under the id of each response in it (its request failed). */
  toOtherSide: Message[];
  /** The same, shaped as the refused message was: a batch for a batch (undefined: none). */
  toOtherSideAsSent: Message | Message[] | undefined;
}

/**
 * The answers to a refused message (`read` leniently, e.g. invalid UTF-8 replaced; undefined:
 * not JSON even so), so that no one waits for its timeout: a request is answered, and a response
 * (an answer to the other side's request) becomes an error to the side that asked, each under
 * its id as written. `reason` names the place, never the content.
 */
export function refusalReplies(read: ReadMessage | undefined, code: number, reason: string): RefusalReplies {
  const message = read?.value;
  const messages = Array.isArray(message) ? (message as unknown[]) : [message];
  const replies: Message[] = [];
  const toOtherSide: Message[] = [];
  for (const [k, m] of messages.entries()) {
    const id = read?.ids[k] ?? (m as { id?: unknown } | undefined)?.id;
    if (isResponse(m)) toOtherSide.push(errorResponse(id as AnswerId, code, reason));
    else if (typeof m === 'object' && m !== null && typeof (m as { method?: unknown }).method === 'string') {
      if (isId((m as { id?: unknown }).id)) replies.push(errorResponse(id as AnswerId, code, reason));
    }
  }
  const asSent = (list: Message[]) => (list.length === 0 ? undefined : Array.isArray(message) ? list : list[0]);
  return { replies: asSent(replies), toOtherSide, toOtherSideAsSent: asSent(toOtherSide) };
}
