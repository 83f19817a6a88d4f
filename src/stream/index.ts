// mcp-payload-codec/stream: WHATWG TransformStreams that filter JSON-RPC traffic on bytes.
import { type ByteTransformer, byteTransformer, type StreamOptions } from './byte-transformer.js';

export {
  type ByteTransformer,
  DEFAULT_MAX_MESSAGE_BYTES,
  type Framing,
  type StreamOptions,
} from './byte-transformer.js';
export { PayloadStreamError, type PayloadStreamErrorCode } from './stream-error.js';

/**
 * The synchronous core of a stream: push chunks, close at the end. `emit` gets the output of
 * each push (or close) as one chunk at a time, at most about 1 MiB, each with an ArrayBuffer of
 * its own.
 */
export function createByteTransformer(mode: 'encode' | 'decode', options: StreamOptions, emit: (b: Uint8Array) => void): ByteTransformer {
  return byteTransformer(mode, options, emit);
}

function createStream(mode: 'encode' | 'decode', options: StreamOptions = {}): TransformStream<Uint8Array, Uint8Array> {
  let core: ByteTransformer | undefined;
  // (`cancel` is in the Streams standard since 2023 and in Node 20; TypeScript's lib lacks it.)
  const transformer: Transformer<Uint8Array, Uint8Array> & { cancel(reason: unknown): void } = {
    start(controller) {
      core = createByteTransformer(mode, options, (b) => controller.enqueue(b));
    },
    transform(chunk) {
      core!.push(chunk); // (an error releases its memory)
    },
    flush() {
      core!.close();
    },
    // A consumer that cancels, or a producer that aborts, mid-message: the WASM block goes
    // back to the pool (a long-running proxy would otherwise run out of memory).
    cancel() {
      core?.release();
    },
  };
  return new TransformStream<Uint8Array, Uint8Array>(transformer);
}

/** Encodes the payload of every JSON-RPC message in a byte stream. */
export function createEncodeStream(options?: StreamOptions): TransformStream<Uint8Array, Uint8Array> {
  return createStream('encode', options);
}

/** Decodes the payload of every JSON-RPC message in a byte stream. */
export function createDecodeStream(options?: StreamOptions): TransformStream<Uint8Array, Uint8Array> {
  return createStream('decode', options);
}
