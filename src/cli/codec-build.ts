// The codec for the command line's options, built (its automaton and core tables compiled, the
// WASM core instantiated) once; the streams reuse it from the codec's cache. The one refusal
// left after codec-options.ts's checks is a term set too large to compile: a usage error too.
import { type Codec, createCodec } from '../codec/codec.js';
import type { CodecOptions } from '../codec/options.js';
import { usageError } from './codec-options.js';

export function buildCodec(options: CodecOptions): Codec {
  try {
    return createCodec(options);
  } catch (e) {
    throw usageError(e);
  }
}
