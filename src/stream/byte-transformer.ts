// A stream's synchronous core (createByteTransformer, index.ts): a framer, the message pipe and
// the output batch, with the switch (not in the package's API) that tests compare the core's
// batch entries with the per-message path by.
import { compile } from '../codec/compiled.js';
import { type CodecOptions, resolveOptions } from '../codec/options.js';
import type { PayloadKeyCollisionError } from '../errors.js';
import { OutputBatch } from './batch.js';
import { contentLengthFramer } from './content-length.js';
import type { Framer } from './framer.js';
import { ndjsonFramer } from './ndjson.js';
import { MessagePipe } from './pipe.js';
import { sseFramer } from './sse.js';
import type { PayloadStreamError } from './stream-error.js';

export type Framing = 'ndjson' | 'content-length' | 'sse';

export interface StreamOptions extends CodecOptions {
  /** How messages are delimited; default 'ndjson' (MCP stdio). */
  framing?: Framing;
  /** A message larger than this errors the stream; default 512 MiB. */
  maxMessageBytes?: number;
  /**
   * Decoding: called when a message's keys collide, instead of erroring the stream; that
   * message is dropped (a proxy answers it with JSON-RPC error -32602) and the stream goes on.
   */
  onCollision?: (error: PayloadKeyCollisionError) => void;
  /**
   * Called when a message is invalid (not JSON, bad UTF-8, cut short, over maxMessageBytes...),
   * instead of erroring the stream: that message is dropped and the stream goes on with the
   * next one. The error names the message number and byte offset, never content.
   */
  onInvalidMessage?: (error: PayloadStreamError) => void;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 512 * 1024 * 1024;

const FRAMERS: Record<Framing, (pipe: MessagePipe, emit: (b: Uint8Array) => void) => Framer> = {
  ndjson: ndjsonFramer,
  'content-length': contentLengthFramer,
  sse: sseFramer,
};

/** The synchronous core of a stream: push chunks, close at the end; output goes to `emit`. */
export interface ByteTransformer {
  push(chunk: Uint8Array): void;
  close(): void;
  /** Gives its WASM memory back (close and errors do too); later calls to push or close throw. */
  release(): void;
}

/**
 * createByteTransformer (index.ts), with the switch tests compare the two ways with.
 * `emit` gets the output of each push (or close) as one chunk at a time, at most about 1 MiB,
 * each with an ArrayBuffer of its own.
 */
export function byteTransformer(
  mode: 'encode' | 'decode',
  options: StreamOptions,
  emit: (b: Uint8Array) => void,
  /** Tests and bench/framed-ab.ts: `lines: false` turns the core's batch entries off (NDJSON lines, Content-Length and SSE messages; they change no output). */
  internal: { readonly lines?: boolean } = {},
): ByteTransformer {
  const framing = options.framing ?? 'ndjson';
  const makeFramer = FRAMERS[framing];
  if (!makeFramer) throw new TypeError(`framing must be 'ndjson', 'content-length' or 'sse'`);
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!(maxMessageBytes > 0)) throw new TypeError('maxMessageBytes must be a positive number');
  const compiled = compile(resolveOptions(options));
  let framer: Framer | undefined;
  const batch = new OutputBatch(emit);
  const { onCollision, onInvalidMessage } = options;
  const pipe = new MessagePipe(
    { desc: compiled.desc, mode, expansion: compiled.expansion },
    {
      maxMessageBytes,
      lines: internal.lines,
      onCollision:
        onCollision &&
        ((e) => {
          batch.flush(); // the messages before the dropped one go out first, as they came
          onCollision(e);
        }),
      onInvalidMessage:
        onInvalidMessage &&
        ((e) => {
          batch.flush(); // the messages before the invalid one go out first, as they came
          onInvalidMessage(e);
        }),
    },
    (b) => framer!.output(b),
  );
  framer = makeFramer(pipe, batch.add);
  // Its WASM memory goes back to the pool on close or on the first error, after which the
  // transformer refuses work: that memory may already serve another stream.
  let released = false;
  const release = () => {
    released = true;
    pipe.release();
  };
  const usable = () => {
    if (released) throw new Error('this stream transformer was closed, released, or failed earlier');
  };
  return {
    push(chunk) {
      usable();
      if (!(chunk instanceof Uint8Array)) throw new TypeError('stream chunks must be Uint8Array');
      try {
        batch.reserve(chunk.length);
        framer!.push(chunk);
        batch.flush();
      } catch (e) {
        try {
          batch.flush(); // (the messages before the bad one are whole)
        } catch {
          // the first error says more
        }
        release();
        throw e;
      }
    },
    close() {
      usable();
      try {
        framer!.close();
      } finally {
        batch.flush();
        release();
      }
    },
    release,
  };
}
