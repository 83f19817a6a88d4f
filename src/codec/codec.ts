// createCodec(): the string, value and message API over a compiled term set.

import type { JsonPath } from '../errors.js';
import { memoise } from '../util/memoise.js';
import { compile } from './compiled.js';
import { type CodecOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { mapMessage, type PayloadField } from './payload.js';
import { ENVELOPE_RULES } from './protocol-fields.js';
import { dataUriPayload, keptText, mapValue } from './walk.js';

/**
 * String values up to this length are memoised (up to VALUE_MEMO of them): in the 3,000-app
 * list they are three strings in four and 484 distinct ones; the longer ones (window titles,
 * descriptions) are nearly all distinct and would only flush the cache. 8,192, not the keys'
 * 2,048: 2,000 key-heavy messages hold 6,683 distinct short values (ids, times) among common
 * ones, and a smaller cache, flushed by the ids, cost 1.09x the matcher alone. Held: under
 * 1 MB when most values are unchanged (their result is the value itself), about 7 MB if all
 * were CJK terms.
 */
const SHORT_VALUE = 32;
const VALUE_MEMO = 8192;

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
  const { encode, decode, widen } = compile(resolved);
  const { prefix, suffix, hexCase, terms, fold } = resolved;
  const keptFrom = dataUriPayload(prefix);
  // String values: short ones repeat (names, ids, paths) and are memoised whole.
  const encodeString = memoise((s) => keptText(s, encode.text, keptFrom), VALUE_MEMO, SHORT_VALUE);
  const encodeAt = (value: unknown, basePath: JsonPath, field?: PayloadField) =>
    mapValue(value, encodeString, {
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
