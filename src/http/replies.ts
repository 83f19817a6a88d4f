// What to do with a message that cannot be forwarded (its decoded keys collide, the decoder
// refuses it, or the upstream is unreachable): requests are answered with JSON-RPC errors, as the stdio proxy does. All of
// it goes through the encoder before anyone sees it.

import { readLeniently } from '../codec/invalid-utf8.js';
import type { PayloadKeyCollisionError } from '../errors.js';
import { collisionReplies, errorResponse, INVALID_PARAMS, isId, type Message, refusalCode, refusalReplies } from '../jsonrpc/message.js';
import { type AnswerId, messageText, readMessage } from '../jsonrpc/raw-id.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import type { PayloadStreamError } from '../stream/stream-error.js';
import { utf8Length } from '../util/utf8-length.js';
import { encodeBytes } from './body.js';
import type { BodyOptions } from './json-body.js';

interface Parsed {
  batch: boolean;
  /** Each message: its id (as written) when it is a request or a response, and whether it is a request. */
  items: { id: AnswerId | undefined; request: boolean }[];
}

const utf8 = new TextDecoder();

/** The shape of a body (valid JSON: the decoder read it to its end); of none read (undefined), no message. */
export function parseShape(body: Uint8Array | undefined): Parsed {
  const read = body && readMessage(utf8.decode(body));
  if (!read) return { batch: false, items: [] };
  const batch = Array.isArray(read.value);
  const items = (batch ? (read.value as unknown[]) : [read.value]).map((m, k) => {
    const o = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
    const id = isId(o.id) ? (read.ids[k] ?? o.id) : undefined;
    return { id, request: typeof o.method === 'string' && id !== undefined };
  });
  return { batch, items };
}

export interface Outcome {
  /** Answer the sender with this (already encoded). */
  reply?: { status: number; body: Uint8Array };
  /**
   * Or send this to the server instead (a colliding response becomes an error response); with
   * `reply` too, send it and answer the sender with `reply`.
   */
  forward?: Uint8Array;
}

const encoder = new TextEncoder();
const json = (value: unknown) => encoder.encode(messageText(value));

/** V8's longest string, in UTF-16 units (Node's `buffer.constants.MAX_STRING_LENGTH`; JSC allows more). */
export const MAX_TEXT_UNITS = 2 ** 29 - 24;

/** The least an answer may take, whatever the limit on what arrives (a small batch's errors). */
const ANSWER_FLOOR = 1024 * 1024;

/**
 * How long an answer under ids may be: `maxMessageBytes` (the largest message the user let in),
 * at least 1 MiB, at most one JS string. Each error repeats its message, so a batch of many small
 * requests would get an answer several times its own size: 6x for 100,000 `tools/call`s.
 */
export const answerLimit = (options: BodyOptions): number =>
  Math.min(MAX_TEXT_UNITS, Math.max(ANSWER_FLOOR, options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES));

/**
 * `replies` as a body: a batch when `batch`, else the one reply; one error under id null when
 * there are none, or when the answers under each id would be longer than `limit` bytes (it then
 * says how many it stands for, not what they held). Counted as it is made: past the limit, no
 * more is made (a batch near 90 MiB made a string past V8's longest: a RangeError, then 500).
 */
export function repliesBody(batch: boolean, replies: readonly unknown[], code: number, message: string, limit: number): Uint8Array {
  if (!replies.length) return json(errorResponse(null, code, message));
  const texts: string[] = [];
  let bytes = batch ? 1 : -1; // (a batch's brackets and commas; a text's UTF-8 bytes are at least its units)
  for (const reply of batch ? replies : replies.slice(0, 1)) {
    const text = messageText(reply);
    bytes += utf8Length(text) + 1;
    if (bytes > limit) return tooLong(replies.length, code, message, limit);
    texts.push(text);
  }
  return encoder.encode(batch ? `[${texts.join(',')}]` : texts[0]);
}

const tooLong = (n: number, code: number, message: string, limit: number) =>
  json(errorResponse(null, code, `${message} (${n} answers under their ids would be over ${limit} bytes; this one stands for all)`));

/** Encoded: `replies` as `repliesBody` makes them. */
async function answer(
  shape: Parsed,
  replies: unknown[],
  code: number,
  message: string,
  options: BodyOptions,
): Promise<{ answered: boolean; body: Uint8Array }> {
  const body = repliesBody(shape.batch, replies, code, message, answerLimit(options));
  return { answered: replies.length > 0, body: await encodeBytes(body, options) };
}

/** An error response for each request of `shape`, under its id. */
const requestErrors = (shape: Parsed, code: number, message: string) =>
  shape.items.filter((m) => m.request).map((m) => errorResponse(m.id!, code, message));

/**
 * Error responses for the requests in `shape` as a body (see `repliesBody`), not encoded: for an
 * answer that cannot go through the codec (memory-full.ts).
 */
export function errorBody(shape: Parsed, code: number, message: string, limit = answerLimit({})): Uint8Array {
  return repliesBody(shape.batch, requestErrors(shape, code, message), code, message, limit);
}

/** Error responses for the requests in `shape`, encoded (see `answer`). */
export function errorReplies(
  shape: Parsed,
  code: number,
  message: string,
  options: BodyOptions,
): Promise<{ answered: boolean; body: Uint8Array }> {
  return answer(shape, requestErrors(shape, code, message), code, message, options);
}

/** The JSON-RPC code of 404 Session not found (the SDK's servers'). */
export const SESSION_NOT_FOUND = -32001;

/**
 * An error answer as a Response, encoded: under the id of each request of `original` (the body
 * as the client wrote it, once read) as written, else one under id null.
 */
export async function errorAnswer(
  status: number,
  code: number,
  message: string,
  original: Uint8Array | undefined,
  options: BodyOptions,
  headers: Record<string, string> = {},
): Promise<Response> {
  const { body } = await errorReplies(parseShape(original), code, message, options);
  return new Response(body as Uint8Array<ArrayBuffer>, { status, headers: { 'content-type': 'application/json', ...headers } });
}

export async function collisionOutcome(original: Uint8Array, e: PayloadKeyCollisionError, options: BodyOptions): Promise<Outcome> {
  const shape = parseShape(original);
  if (shape.items.length && shape.items.every((m) => !m.request && m.id !== undefined)) {
    // Responses to the server's requests, one or a batch: the server gets an error under each
    // id instead of waiting forever. (It goes to the server, which sees real values: nothing to encode.)
    const errors = shape.items.map((m) => errorResponse(m.id!, INVALID_PARAMS, e.message));
    return { forward: repliesBody(shape.batch, errors, INVALID_PARAMS, e.message, answerLimit(options)) };
  }
  // A batch goes whole: every request in it is answered. A notification alone gets 400.
  const replies = collisionReplies(
    shape.items.filter((m) => m.request).map((m) => m.id),
    e.message,
  );
  const { answered, body } = await answer(shape, replies, INVALID_PARAMS, e.message, options);
  return { reply: { status: answered ? 200 : 400, body } };
}

/**
 * A body the decoder refused, read leniently (as wrap reads a refused line): its responses (the
 * host's answers to the server's requests) go to the server as the error, its requests are
 * answered under their ids, so no one waits for a timeout. Nothing to answer: 400, id null.
 */
export async function refusalOutcome(original: Uint8Array, e: PayloadStreamError, options: BodyOptions): Promise<Outcome> {
  const read = readLeniently(original);
  const code = refusalCode(e.code);
  const reason = `The request body was refused (${e.reason} at byte ${e.byteOffset}) and not forwarded`;
  const { replies, toOtherSideAsSent } = refusalReplies(read, code, reason);
  const body = (list: Message | Message[] | undefined) =>
    repliesBody(Array.isArray(list), list === undefined ? [] : [list].flat(), code, reason, answerLimit(options));
  const forward = toOtherSideAsSent && body(toOtherSideAsSent);
  if (!replies && forward) return { forward };
  return { reply: { status: replies ? 200 : 400, body: await encodeBytes(body(replies), options) }, forward };
}
