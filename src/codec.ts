// createCodec(): the string API over a compiled term set.
import { compileAutomaton } from './automaton.js';
import { writeDescriptor } from './core/descriptor.js';
import { decodeJob, encodeJob, SHORT_STRING, transcode, transcodeShort, type StringJob } from './core/transcode.js';
import { mapWellFormed } from './core/well-formed.js';
import { resolveOptions, type CodecOptions, type ResolvedOptions } from './options.js';
import { mapMessage } from './payload.js';
import { mapValue } from './walk.js';

export interface Codec {
  /** The options in force, with defaults filled in. */
  readonly options: Omit<ResolvedOptions, 'patterns' | 'key'>;
  /** Replaces every term (and every occurrence of the prefix) with a token. */
  encodeText(text: string): string;
  /** Restores every valid token; everything else is kept as it is. */
  decodeText(text: string): string;
  /**
   * Encodes every object key and string value of a JSON value (image/audio `data` kept).
   * Unchanged subtrees are returned as they are; the input is never mutated.
   */
  encodeValue<T>(value: T): T;
  /** Like encodeValue, decoding; throws PayloadKeyCollisionError if two keys become equal. */
  decodeValue<T>(value: T): T;
  /** Encodes `params`, `result` and `error` of a JSON-RPC message or batch; never the envelope. */
  encodeMessage<T>(message: T): T;
  /** Decodes `params`, `result` and `error`; throws PayloadKeyCollisionError on collisions. */
  decodeMessage<T>(message: T): T;
}

export interface Compiled {
  readonly encode: StringJob;
  readonly decode: StringJob;
  /** Worst-case output bytes per input byte when encoding to bytes. */
  readonly expansion: number;
}

const compiled = new Map<string, Compiled>();

/** The core jobs for a set of options, compiled once per distinct term set and format. */
export function compile(o: ResolvedOptions): Compiled {
  let c = compiled.get(o.key);
  if (c) return c;
  const automaton = compileAutomaton(o.patterns);
  const hex = o.hexCase === 'upper' ? '0123456789ABCDEF' : '0123456789abcdef';
  // Core calls are synchronous and never interleave, so one descriptor serves every job.
  const desc = writeDescriptor(automaton, o.prefix, o.suffix, hex);
  c = {
    encode: encodeJob(desc, o.prefix, o.suffix, o.hexCase, automaton.minPatternBytes),
    decode: decodeJob(desc, o.prefix, o.suffix),
    expansion: 2 + (o.prefix.length + o.suffix.length) / automaton.minPatternBytes,
  };
  compiled.set(o.key, c);
  return c;
}

export function createCodec(options?: CodecOptions): Codec {
  const resolved = resolveOptions(options);
  const jobs = compile(resolved);
  const { prefix, suffix, hexCase, terms } = resolved;
  const encodeText = (text: string) => textFunction(jobs.encode, text);
  const decodeText = (text: string) => textFunction(jobs.decode, text);
  const encodeAt = (value: unknown, basePath: readonly (string | number)[]) => mapValue(value, encodeText, { checkCollisions: false, basePath });
  const decodeAt = (value: unknown, basePath: readonly (string | number)[]) => mapValue(value, decodeText, { checkCollisions: true, basePath });
  return Object.freeze({
    options: Object.freeze({ prefix, suffix, hexCase, terms }),
    encodeText,
    decodeText,
    encodeValue: <T>(value: T) => encodeAt(value, []) as T,
    decodeValue: <T>(value: T) => decodeAt(value, []) as T,
    encodeMessage: <T>(message: T) => mapMessage(message, encodeAt) as T,
    decodeMessage: <T>(message: T) => mapMessage(message, decodeAt) as T,
  });
}

function textFunction(job: StringJob, text: string): string {
  if (text.length === 0) return text;
  if (text.length <= SHORT_STRING) {
    const short = transcodeShort(job, text);
    if (short !== undefined) return short;
  }
  return mapWellFormed(text, (piece) => transcode(job, piece));
}
