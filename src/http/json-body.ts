// An `application/json` body is one JSON-RPC message or batch, with no framing around it. The
// NDJSON framing would split a pretty-printed body at its newlines, so this runs the stream
// core (MessagePipe) with the whole body as one message instead.
import { compile } from '../codec/compiled.js';
import { resolveOptions } from '../codec/options.js';
import { OutputBatch } from '../stream/batch.js';
import { DEFAULT_MAX_MESSAGE_BYTES, type StreamOptions } from '../stream/index.js';
import { MessagePipe } from '../stream/pipe.js';
import { concat } from '../util/concat.js';

export type BodyOptions = Omit<StreamOptions, 'framing'>;

/** Makes the pipe of one body (the whole body is one message); bad options throw here. */
function bodyPipes(mode: 'encode' | 'decode', options: BodyOptions): (out: (b: Uint8Array) => void) => MessagePipe {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!(maxMessageBytes > 0)) throw new TypeError('maxMessageBytes must be a positive number');
  const compiled = compile(resolveOptions(options));
  const { onCollision } = options;
  return (out) => new MessagePipe({ desc: compiled.desc, mode, expansion: compiled.expansion }, { maxMessageBytes, onCollision }, out);
}

/**
 * A whole body through one of the core's batch entries, as a Content-Length body goes (one call,
 * no per-message events): whether it took it. One it refuses (an error, a deferred value, a
 * changed key, too large) goes the per-message way, which reports and checks it as always. A
 * small body's output is copied once into `parts` (an output batch would copy it twice).
 */
function atOnce(pipe: MessagePipe, bytes: Uint8Array, parts: Uint8Array[], batched: () => OutputBatch): boolean {
  const n = bytes.length;
  if (n > pipe.maxMessageBytes) return false;
  if (n <= pipe.framedBytes)
    return pipe.framed(bytes, 0, n, [0, n], 1, (output, ends, taken) => taken && parts.push(output.slice(0, ends[0]))) === 1;
  const batch = batched();
  batch.reserve(n);
  return pipe.takesLarge(n) && pipe.large(bytes, 0, n, batch.add);
}

/**
 * A body already read whole (the proxy reads request bodies whole), transformed at once: the
 * same output as the stream, without the stream (a Blob, a pipe and their promise turns cost
 * more than decoding a small request).
 */
export function transformJsonBody(mode: 'encode' | 'decode', bytes: Uint8Array, options: BodyOptions = {}): Uint8Array {
  const parts: Uint8Array[] = [];
  // (made at the first output that needs one: a small body taken at once does not)
  let batch: OutputBatch | undefined;
  const batched = () => (batch ??= new OutputBatch((b) => void parts.push(b)));
  const pipe = bodyPipes(mode, options)((b) => batched().add(b));
  try {
    if (bytes.length > 0 && !atOnce(pipe, bytes, parts, batched)) {
      batched().reserve(bytes.length);
      pipe.feed(bytes);
    }
    pipe.end(); // (an empty body is 'blank': nothing out)
    batch?.flush();
  } finally {
    pipe.release();
  }
  return parts.length === 1 ? parts[0]! : parts.length === 0 ? new Uint8Array(0) : concat(parts);
}

/** Transforms a JSON body as its bytes arrive; output chunks own their buffers. */
export function createJsonBodyStream(mode: 'encode' | 'decode', options: BodyOptions = {}): TransformStream<Uint8Array, Uint8Array> {
  const makePipe = bodyPipes(mode, options);
  let pipe: MessagePipe | undefined;
  let batch: OutputBatch | undefined;
  let released = false;
  const release = () => {
    if (!released) pipe?.release();
    released = true;
  };
  // `cancel` (newer engines) gives the WASM memory back when the reader cancels.
  const transformer: Transformer<Uint8Array, Uint8Array> & { cancel(): void } = {
    start(controller) {
      batch = new OutputBatch((b) => controller.enqueue(b));
      pipe = makePipe(batch.add);
    },
    transform(chunk) {
      if (!(chunk instanceof Uint8Array)) throw new TypeError('stream chunks must be Uint8Array');
      if (chunk.length === 0) return;
      try {
        batch!.reserve(chunk.length);
        pipe!.feed(chunk);
        batch!.flush();
      } catch (e) {
        release();
        throw e;
      }
    },
    flush() {
      try {
        pipe!.end(); // (an empty body is 'blank': nothing out)
        batch!.flush();
      } finally {
        release();
      }
    },
    cancel() {
      release();
    },
  };
  return new TransformStream<Uint8Array, Uint8Array>(transformer);
}
