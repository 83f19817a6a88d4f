// An upstream event stream relayed to the client without Web streams: bytes pushed from a
// source, read in whole events (sse-events.ts), encoded by one byte transformer, written to a
// sink that says when it is full. A server that can take such a body (the Node CLI,
// cli/node-http.ts) pipes it straight into its response: an idle stream then holds only its
// sockets, its HTTP objects and the transformer, not fetch's connection and six Web streams
// (about 100 KiB of RSS each). Read as a Web stream, the same body works anywhere.
import { createByteTransformer, type StreamOptions } from '../stream/index.js';
import { failedEnding } from './settle.js';
import { WholeEvents } from './sse-events.js';

/** Bytes pushed from an upstream, pausable. */
export interface ByteSource {
  /** Starts the flow: data until end or error (never both). */
  start(on: { data(chunk: Uint8Array): void; end(): void; error(e: unknown): void }): void;
  pause(): void;
  resume(): void;
  /** Lets the upstream go (the reader left, or the stream failed). */
  cancel(): void;
}

/** Where the relay writes: `write` says false when full (the relay waits for `resume`). */
export interface ByteSink {
  write(chunk: Uint8Array): boolean;
  end(): void;
}

/** The relay as its sink's server holds it. */
export interface Relay {
  /** The sink has room again. */
  resume(): void;
  /** The client left: the upstream and the transformer are let go. */
  cancel(): void;
}

export interface RelayOptions {
  /** The encoder's options (framing: SSE). */
  codec: StreamOptions;
  maxEventBytes: number;
  /** As wholeEvents': told when the upstream ended or failed inside an event. */
  onTruncated?: (error: unknown) => void;
  /** As wholeEvents': sees each run of whole events before it goes on (the guard). */
  observe?: (pieces: readonly Uint8Array[]) => void;
  /** An event the encoder refused (or one over maxEventBytes): told, and the stream ends cleanly there. */
  onRefused: (e: unknown) => void;
  /** What goes last when an event was refused (a POST's stream: an error for each request, settle.ts). */
  ending?: (e: unknown) => Promise<Uint8Array | undefined>;
}

/**
 * Runs the relay. As through the Web streams it replaces: of the output of a push that throws,
 * only its first chunk goes out (through a TransformStream, it went to the reader waiting for
 * it; the rest was queued, and dropped with the error), then the stream ends.
 */
function relay(source: ByteSource, options: RelayOptions, sink: ByteSink): Relay {
  const events = new WholeEvents(options.maxEventBytes, options.onTruncated, options.observe);
  let pending: Uint8Array[] = [];
  const core = createByteTransformer('encode', { ...options.codec, framing: 'sse' }, (b) => pending.push(b));
  let done = false;
  let full = false;
  const flush = () => {
    for (const b of pending) if (!sink.write(b)) full = true;
    pending = [];
  };
  const encode = (piece: Uint8Array) => {
    pending = [];
    core.push(piece);
    flush();
  };
  const stop = () => {
    done = true;
    core.release();
    source.cancel();
  };
  let left = false;
  const fail = (e: unknown) => {
    const first = pending[0];
    pending = [];
    stop();
    if (first) sink.write(first);
    void failedEnding(e, options.onRefused, options.ending).then((last) => {
      if (left) return;
      if (last) sink.write(last);
      sink.end();
    });
  };
  const finish = (failed: boolean, error: unknown) => {
    if (done) return;
    try {
      events.end(failed, error, encode);
      pending = [];
      core.close();
      flush();
    } catch (e) {
      return fail(e);
    }
    done = true;
    sink.end();
  };
  source.start({
    data(chunk) {
      if (done) return;
      try {
        events.push(chunk, encode);
      } catch (e) {
        return fail(e);
      }
      if (full) source.pause();
    },
    end: () => finish(false, undefined),
    error: (e) => finish(true, e),
  });
  return {
    resume() {
      full = false;
      if (!done) source.resume();
    },
    cancel() {
      left = true;
      if (!done) stop();
    },
  };
}

/** A relay not yet started: whoever writes the answer starts it once (or lets the upstream go). */
export interface RelayedBody {
  start(sink: ByteSink): Relay;
  /** Lets the upstream go unread (the answer is not sent). */
  cancel(): void;
}

/** The relay of `source` under `options`, for a server to start into its own response. */
export function relayOf(source: ByteSource, options: RelayOptions): RelayedBody {
  let taken = false;
  return {
    start(sink) {
      if (taken) throw new Error('relayed body already read');
      taken = true;
      try {
        return relay(source, options, sink);
      } catch (e) {
        // (its transformer not made: WASM memory full. No Relay comes back to cancel, so the
        // upstream is let go here, not held until it closes.)
        source.cancel();
        throw e;
      }
    },
    cancel() {
      if (taken) return;
      taken = true;
      source.cancel();
    },
  };
}

const direct = new WeakMap<ReadableStream<Uint8Array>, (sink: ByteSink) => Relay>();

/**
 * The relayed body as a Web stream (a response's body), which a server can instead take with
 * `takeRelay` and pipe into its own response. Nothing runs until one or the other starts it.
 */
export function relayedBody(relayed: RelayedBody): ReadableStream<Uint8Array> {
  let running: Relay | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (running) return running.resume();
        direct.delete(body);
        // (a queue of one chunk: each write fills it, each pull makes room)
        running = relayed.start({
          write(chunk) {
            controller.enqueue(chunk);
            return false;
          },
          end: () => controller.close(),
        });
      },
      cancel() {
        if (running) running.cancel();
        else relayed.cancel();
      },
    },
    { highWaterMark: 0 },
  );
  direct.set(body, (sink) => {
    direct.delete(body);
    return relayed.start(sink);
  });
  return body;
}

/** The relay behind `body`, if it is a relayed body no one has read: the server pipes it itself. */
export function takeRelay(body: ReadableStream<Uint8Array> | null): ((sink: ByteSink) => Relay) | undefined {
  return body && !body.locked ? direct.get(body) : undefined;
}

/** `source` as a Web stream (a body read some other way: an error page, JSON), started when first read. */
export function sourceStream(source: ByteSource): ReadableStream<Uint8Array> {
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (started) return source.resume();
        started = true;
        source.start({
          data(chunk) {
            controller.enqueue(chunk);
            source.pause(); // (until the next read: a queue of one chunk)
          },
          end: () => controller.close(),
          error: (e) => controller.error(e),
        });
      },
      cancel: () => source.cancel(),
    },
    { highWaterMark: 0 }, // (nothing is read before a reader asks: the relay may take the source instead)
  );
}
