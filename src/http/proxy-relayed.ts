// An upstream event stream relayed down by the proxy handler (proxy-handler.ts), and the log
// lines both its relayed and its Web-stream answers write when a stream is cut or refused.
import type { Codec } from '../codec/codec.js';
import type { CallGuard } from './call-guard.js';
import { type ByteSource, relayOf } from './event-relay.js';
import { eventObserver } from './guarded.js';
import type { BodyOptions } from './json-body.js';
import { downstream } from './proxy-headers.js';
import type { DirectAnswer } from './proxy-request.js';
import { encodedStatusText, type ResponseHead } from './response.js';
import { streamEnding } from './settle.js';

/** What the proxy tells its log (and `onStreamError`) of a stream it encodes. */
export class StreamNotes {
  constructor(
    private readonly log: (line: string) => void,
    private readonly onStreamError: ((error: unknown) => void) | undefined,
  ) {}

  truncated(method: string): () => void {
    return () => this.log(`${method} upstream event stream ended inside an event; ended at the last whole event`);
  }

  refused(method: string, e: unknown): void {
    // (encoder errors name the message and byte, never its content)
    this.log(`${method} upstream response refused: ${(e as Error).name}: ${(e as Error).message}`);
    this.onStreamError?.(e);
  }
}

/** The handler's settings a relay reads. */
export interface RelaySettings {
  bodyOptions: BodyOptions;
  max: number;
  codec: Codec;
  notes: StreamNotes;
}

/**
 * An event stream opened by openStream, relayed as encodeResponse, wholeEvents and settle read
 * one (event-relay.ts). What the relay holds for the stream's life is only what it needs, not
 * the request handler's scope. A POST's stream also ends with an error for each of its
 * requests when an event is refused (settle.ts).
 */
export function relayedAnswer(
  s: RelaySettings,
  method: string,
  source: ByteSource,
  guard: CallGuard | undefined,
  response: ResponseHead,
  original: Uint8Array | undefined,
): DirectAnswer {
  const { bodyOptions, notes } = s;
  const body = relayOf(source, {
    codec: bodyOptions,
    maxEventBytes: s.max,
    onTruncated: notes.truncated(method),
    observe: guard && eventObserver(guard),
    onRefused: (e) => notes.refused(method, e),
    ending: original && ((e) => streamEnding(original, e, bodyOptions)),
  });
  return {
    status: response.status,
    statusText: encodedStatusText(response.statusText, s.codec),
    headers: downstream(response.headers),
    body,
  };
}
