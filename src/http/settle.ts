// The end of a body the encoder refused part-way: its failure is told, and the reader gets a
// clean end rather than a reset; an event stream ends with an error for each request of the
// POST it answers, since that answer was the refused event or would have come after it (the
// host must not wait for its timeout; a request answered before gets a second answer, which
// clients drop).

import { SERVER_ERROR } from '../jsonrpc/message.js';
import { concat } from '../util/concat.js';
import type { BodyOptions } from './json-body.js';
import { errorReplies, parseShape } from './replies.js';

const BLANK_THEN_EVENT = new TextEncoder().encode('\n\nevent: message\ndata: ');
const EVENT_END = new TextEncoder().encode('\n\n');

/**
 * A body whose failure is told to `onError` and ends it cleanly, instead of cutting the client
 * off. With `first`, its first chunk is read before the answer starts: if that fails, 'failed'
 * (the caller answers 502 instead; nothing was sent). Event streams start at once (headers go
 * out before the first event, however late).
 */
export async function settle(
  body: ReadableStream<Uint8Array> | null,
  first: boolean,
  onError: (e: unknown) => void,
  ending?: (e: unknown) => Promise<Uint8Array | undefined>,
): Promise<ReadableStream<Uint8Array> | null | 'failed'> {
  if (!body) return body;
  const reader = body.getReader();
  let head: ReadableStreamReadResult<Uint8Array> | undefined;
  if (first) {
    try {
      head = await reader.read();
    } catch (e) {
      onError(e);
      return 'failed';
    }
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = head ?? (await reader.read());
        } catch (e) {
          const last = await failedEnding(e, onError, ending);
          if (last) controller.enqueue(last);
          return controller.close();
        }
        head = undefined;
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * What goes last in a body that failed with `e` (here, and in the relay: event-relay.ts): `e`
 * told to `onError`, then what `ending` makes of it, if anything; an ending that fails too is
 * told, and nothing goes (the end is clean all the same).
 */
export async function failedEnding(
  e: unknown,
  onError: (e: unknown) => void,
  ending?: (e: unknown) => Promise<Uint8Array | undefined>,
): Promise<Uint8Array | undefined> {
  onError(e);
  try {
    return await ending?.(e);
  } catch (failed) {
    onError(failed);
    return undefined;
  }
}

/**
 * The end of an event stream cut short by `error`: a blank line (ending the refused event's
 * encoded start, if one went out: its data does not parse, so a client drops it), then one event
 * with the errors for the requests of `original` (the POST body), encoded, naming the place
 * (never the content); undefined when it holds no request.
 */
export async function streamEnding(original: Uint8Array, error: unknown, options: BodyOptions): Promise<Uint8Array | undefined> {
  const where = error instanceof Error ? ` (${error.message})` : '';
  const { answered, body } = await errorReplies(
    parseShape(original),
    SERVER_ERROR,
    `The upstream MCP server sent an event that cannot be passed on${where}; its event stream ended there`,
    options,
  );
  if (!answered) return undefined;
  return concat([BLANK_THEN_EVENT, body, EVENT_END]);
}
