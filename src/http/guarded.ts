// The CallGuard on HTTP: a POST body is screened after decoding; blocked requests are answered
// here (encoded, like everything the filter writes itself), the rest go on; when some of a
// batch go on, the answers join the upstream's answer to it (as events before its events, or
// added to its JSON array). Tool lists are learnt from the upstream's responses as they pass,
// before encoding (real values; the guard reads only tools/list answers and list changes).

import { keepElements } from '../codec/json-spans.js';
import type { ListTools } from '../guard/tool.js';
import type { Message } from '../jsonrpc/message.js';
import { messageText, underId } from '../jsonrpc/raw-id.js';
import { concat } from '../util/concat.js';
import { parseJson } from '../util/json.js';
import { encodeBytes, readBounded } from './body.js';
import { type CallGuard, screen } from './call-guard.js';
import type { BodyOptions } from './json-body.js';
import { keptParse, parseBody } from './parsed-body.js';
import { SseReader } from './sse-reader.js';

const utf8 = new TextDecoder();
const toBytes = (value: unknown) => new TextEncoder().encode(messageText(value));

export interface GuardedRequest {
  /** Send this upstream (nothing when every message was answered here). */
  forward?: Uint8Array;
  /** Answer the client with this once `forward` (if any) was sent: every message was handled here. */
  reply?: Response;
  /** Answers to add to the upstream's response (part of a batch was blocked). */
  answers: Message[];
}

/** A JSON 200 response with `value` encoded. */
export async function jsonReply(value: unknown, options: BodyOptions): Promise<Response> {
  return new Response((await encodeBytes(toBytes(value), options)) as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/** Screens a decoded POST body (JSON that is not JSON-RPC passes untouched); `session`: its Mcp-Session-Id, for the trail. */
export async function guardRequest(
  guard: CallGuard,
  decoded: Uint8Array,
  options: BodyOptions,
  ask?: ListTools,
  session?: string | null,
): Promise<GuardedRequest> {
  const body = parseBody(decoded);
  if (!body) return { forward: decoded, answers: [] };
  // (the ids as written are read up front only for a trail, which names every call judged)
  const s = await screen(guard, body.value, ask, guard.audits ? body.ids : undefined, session);
  if (!s.answers.length && !s.dropped) return { forward: decoded, answers: [] };
  // Each answer under its request's id as written (the ids are read at the first answer's).
  const answers = s.answers.map((a, j) => underId(a, body.ids[s.answered[j]!]));
  // What passes goes as the client wrote it (its bytes, not re-serialised: numbers keep their
  // spelling); what passes of a batch keeps its parse (the call timer reads it).
  let forward = !s.rest.length ? undefined : decoded;
  if (forward && s.batch) {
    forward = keepElements(decoded, s.passed);
    keptParse(forward, body, s.passed);
  }
  if (s.restHasRequests) return { forward, answers };
  // Nothing that passes waits for an answer: the client's answer is made here (or, when none
  // is owed, what a body of notifications gets: the upstream's, else 202).
  if (answers.length) return { forward, reply: await jsonReply(s.batch ? answers : answers[0], options), answers: [] };
  return forward ? { forward, answers: [] } : { reply: new Response(null, { status: 202 }), answers: [] };
}

/** The upstream's (encoded) answer to a batch, with the answers made here added. */
export async function withAnswers(response: Response, answers: Message[], options: BodyOptions, maxBytes: number): Promise<Response> {
  if (!answers.length || !response.ok || !response.body) return response;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  if (type === 'text/event-stream') {
    const encoded = await Promise.all(
      answers.map(async (a) => `event: message\ndata: ${utf8.decode(await encodeBytes(toBytes(a), options))}\n\n`),
    );
    const head = new TextEncoder().encode(encoded.join(''));
    const reader = response.body.getReader();
    let started = false;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (!started) {
            started = true;
            // A BOM may only open the stream: the answers go after it, not before.
            const first = await leadingBytes(reader, BOM.length);
            const bom = startsWith(first, BOM) ? BOM.length : 0;
            if (bom) controller.enqueue(BOM);
            controller.enqueue(head);
            if (first.length > bom) controller.enqueue(first.subarray(bom));
            return;
          }
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, init);
  }
  // A JSON batch response: held (bounded) to add to, its bytes as they are.
  const bytes = await readBounded(response.body, maxBytes);
  const text = utf8.decode(bytes);
  if (parseJson(text) === undefined) return new Response(bytes as Uint8Array<ArrayBuffer>, init);
  const own = utf8.decode(await encodeBytes(toBytes(answers), options));
  const ownItems = own.slice(own.indexOf('[') + 1, own.lastIndexOf(']'));
  const trimmed = text.trim();
  let joined: string;
  if (trimmed.startsWith('[')) {
    const items = trimmed.slice(1, -1);
    joined = `[${items.trim() ? `${items},` : ''}${ownItems}]`;
  } else joined = `[${trimmed},${ownItems}]`;
  return new Response(joined, init);
}

const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
const startsWith = (bytes: Uint8Array, prefix: Uint8Array) => prefix.every((b, i) => bytes[i] === b);

/** Reads until at least `n` bytes (or the end) are in; returns them all. */
async function leadingBytes(reader: ReadableStreamDefaultReader<Uint8Array>, n: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  while (size < n) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.length;
  }
  return concat(parts.length ? parts : [new Uint8Array(0)]);
}

const LIST_CHANGED = new TextEncoder().encode('list_changed');

/**
 * For wholeEvents: shows the guard the messages it wants in a run of whole events (however the
 * upstream cut them; the run is bounded by maxMessageBytes there).
 */
export function eventObserver(guard: CallGuard): (pieces: readonly Uint8Array[]) => void {
  return (pieces) => {
    if (!guard.awaitingList && !containsAcross(pieces, LIST_CHANGED)) return;
    const text = utf8.decode(pieces.length === 1 ? pieces[0]! : concat(pieces));
    for (const data of eventData(text)) learnText(guard, data);
  };
}

/** Passes a JSON body on, showing the guard its messages when a tools/list answer is awaited. */
export function observeJson(guard: CallGuard, maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  const held: Uint8Array[] = [];
  let size = 0;
  const watching = guard.awaitingList;
  return new TransformStream({
    transform(chunk, controller) {
      if (watching && size <= maxBytes) {
        held.push(chunk.slice());
        size += chunk.length;
      }
      controller.enqueue(chunk);
    },
    flush() {
      if (watching && size <= maxBytes) learnText(guard, utf8.decode(concat(held.length ? held : [new Uint8Array(0)])));
    },
  });
}

function learnText(guard: CallGuard, text: string): void {
  const value = parseJson(text);
  if (value === undefined) return; // (the encoder reports it)
  for (const m of Array.isArray(value) ? value : [value]) guard.learn(m);
}

/**
 * The data of each `message` event in `text` (sse-reader.ts's field rules); a last event whose
 * last line has its line end counts as whole (a run of events cut before its blank line).
 */
export function eventData(text: string): string[] {
  const out: string[] = [];
  const events = new SseReader(Number.POSITIVE_INFINITY);
  events.onEvent = ({ event, data }) => event === 'message' && out.push(data);
  events.push(text);
  if (/[\r\n]$/.test(text)) events.push('\r'); // (a line end alone: not half of a CRLF)
  return out;
}

/** Whether `needle` occurs in the bytes of `pieces` joined (without joining them). */
function containsAcross(pieces: readonly Uint8Array[], needle: Uint8Array): boolean {
  const keep = needle.length - 1;
  let carry = new Uint8Array(0); // (the last `keep` bytes before the piece)
  for (const piece of pieces) {
    if (indexOfBytes(piece, needle) >= 0) return true;
    if (indexOfBytes(concat([carry, piece.subarray(0, keep)]), needle) >= 0) return true;
    const joined = piece.length >= keep ? piece : concat([carry, piece]);
    carry = joined.slice(Math.max(0, joined.length - keep));
  }
  return false;
}

/** Byte search without node:buffer (this entry is portable). */
function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  for (let i = haystack.indexOf(first); i >= 0 && i + needle.length <= haystack.length; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
