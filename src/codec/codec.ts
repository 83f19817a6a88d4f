// createCodec(): the string, value and message API over a compiled term set.

import type { JsonPath } from '../errors.js';
import { compile } from './compiled.js';
import { type CodecOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { mapMessage, type PayloadField } from './payload.js';
import { ENVELOPE_RULES } from './protocol-fields.js';
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

export function createCodec(options?: CodecOptions): Codec {
  const resolved = resolveOptions(options);
  const { encode, valueText, decode, widen } = compile(resolved);
  const { prefix, suffix, hexCase, terms, fold } = resolved;
  const encodeAt = (value: unknown, basePath: JsonPath, field?: PayloadField) =>
    mapValue(value, valueText, {
      checkCollisions: false,
      basePath,
      mapKey: encode.key,
      rule: field && ENVELOPE_RULES[field],
      widen,
    });
  const decodeAt = (value: unknown, basePath: JsonPath, field?: PayloadField) =>
    mapValue(value, decode.text, { checkCollisions: true, basePath, mapKey: decode.key, rule: field && ENVELOPE_RULES[field] });
  return Object.freeze({
    options: Object.freeze({ prefix, suffix, hexCase, terms, fold }),
    encodeText: encode.text,
    decodeText: decode.text,
    encodeValue: <T>(value: T) => encodeAt(value, []) as T,
    decodeValue: <T>(value: T) => decodeAt(value, []) as T,
    encodeMessage: <T>(message: T) => mapMessage(message, encodeAt) as T,
    decodeMessage: <T>(message: T) => mapMessage(message, decodeAt) as T,
  });
}
