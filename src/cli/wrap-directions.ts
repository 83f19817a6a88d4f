// wrap's two byte paths, each a stream transformer behind the lines it keeps to answer refusals
// (refused-lines.ts): the server's output encoded for the client, the client's input decoded
// for the server. What a refused or colliding message needs answered goes to the side waiting
// on it, under its ids as written; the log line says where and why, never what.
import type { CodecOptions } from '../codec/options.js';
import { collisionReplies, errorResponse, INVALID_PARAMS } from '../jsonrpc/message.js';
import { collisionIds, messageText } from '../jsonrpc/raw-id.js';
import { createByteTransformer, DEFAULT_MAX_MESSAGE_BYTES, type PayloadStreamError, type StreamOptions } from '../stream/index.js';
import type { HeldLines } from './held-lines.js';
import { RefusedLines, refusalOfLine } from './refused-lines.js';
import type { Reply } from './replies.js';

/** Server output is held line by line up to this many bytes (see held-lines.ts). */
export const HOLD_LIMIT = 1024 * 1024;

/** Where the directions write: the server (after the guard), the client's answers, the log. */
export interface DirectionSinks {
  toServer(bytes: Uint8Array): void;
  reply(r: Reply): void;
  log(line: string): void;
}

/** A direction's input: chunks as they come, then its end. */
export interface Direction {
  push(chunk: Uint8Array): void;
  end(): void;
}

type Options = CodecOptions & Pick<StreamOptions, 'maxMessageBytes'>;

/** Where and why, never what: `message 3 (invalid JSON at byte 0; blank lines not counted)`. */
const describeInvalid = (e: PayloadStreamError) =>
  `message ${e.messageNumber} (${e.reason} at byte ${e.byteOffset}; blank lines not counted)`;
/** A message of the proxy's own to the server: real values (the server's side), never encoded. */
const serverLine = (m: unknown) => new TextEncoder().encode(`${messageText(m)}\n`);

/**
 * The server's output, encoded into `held` (which writes it to the client). A refused server
 * message whose ids can be read, as for the client's below: the server's requests in it are
 * answered, and the client told when it answered one of the client's.
 */
export function serverDirection(options: Options, held: HeldLines, sinks: DirectionSinks): Direction {
  const { toServer, reply, log } = sinks;
  const fates = new Map<number, string>();
  const refused = new RefusedLines(HOLD_LIMIT, options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, (e, line) => {
    const { replies, toOtherSideAsSent } = refusalOfLine('server', e, line);
    if (replies) toServer(serverLine(replies));
    if (toOtherSideAsSent) reply(toOtherSideAsSent);
    const told = [replies && 'the server answered', toOtherSideAsSent && 'the client told'].filter(Boolean).join(', ');
    log(`from the server: skipped ${describeInvalid(e)}: ${fates.get(e.messageNumber)}${told && ` (${told})`}; the session goes on`);
    fates.delete(e.messageNumber);
  });
  const encoder = createByteTransformer(
    'encode',
    {
      ...options,
      onInvalidMessage: (e) => {
        fates.set(
          e.messageNumber,
          held.takeBack() === 'streamed'
            ? 'its first MiB had already gone out: the client gets it cut short, spoiled so no JSON parser accepts it'
            : 'not forwarded',
        );
        refused.refuse(e);
      },
    },
    (b) => held.write(b),
  );
  return {
    push: (chunk) => refused.push(chunk, (d) => encoder.push(d)),
    end: () => {
      encoder.close();
      refused.end();
      held.end();
    },
  };
}

/**
 * The client's input, decoded to `toServer`. A refused client message whose ids can be read:
 * its requests are answered, and the server is told when it was an answer to one of its own
 * requests (neither side waits for nothing).
 */
export function clientDirection(options: Options, sinks: DirectionSinks): Direction {
  const { toServer, reply, log } = sinks;
  const refused = new RefusedLines(HOLD_LIMIT, options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, (e, line) => {
    const { replies, toOtherSide } = refusalOfLine('client', e, line);
    for (const m of toOtherSide) toServer(serverLine(m));
    if (replies) reply(replies);
    const told = [replies && 'answered', toOtherSide.length && 'the server told'].filter(Boolean).join(', ');
    log(`from the client: skipped ${describeInvalid(e)}: not forwarded${told && ` (${told})`}; the session goes on`);
  });
  const decoder = createByteTransformer(
    'decode',
    {
      ...options,
      onInvalidMessage: (e) => refused.refuse(e),
      onCollision: (e) => {
        // A response answers the server's own request (sampling, elicitation, roots): the server
        // is told with an error under its id, so it does not wait forever; the client never
        // sent a request with that id (its ids are its own), so it gets nothing.
        // (Each under its id as written: the stream read the texts.)
        const ids = collisionIds(e);
        const failed = (ids.batchResponseIds ?? (e.response ? [ids.id] : [])).filter((id) => id !== undefined);
        for (const id of failed) toServer(serverLine(errorResponse(id, INVALID_PARAMS, e.message)));
        if (failed.length) log(`answered the server with an error for a response from the client: ${e.message}`);
        if (ids.batchIds) {
          const replies = collisionReplies(ids.batchIds, e.message, ids.id);
          if (replies.length) reply(replies);
        } else if (ids.id === undefined) log(`dropped a notification from the client: ${e.message}`);
        else if (!e.response) reply(errorResponse(ids.id, INVALID_PARAMS, e.message));
      },
    },
    toServer,
  );
  return {
    push: (chunk) => refused.push(chunk, (b) => decoder.push(b)),
    end: () => {
      decoder.close();
      refused.end();
    },
  };
}
