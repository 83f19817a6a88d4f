// Request bodies: read whole up to a bound (the decoder holds a message whole anyway, and a
// colliding one must be answered, not half sent), then decoded.

import type { PayloadKeyCollisionError } from '../errors.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { PayloadStreamError } from '../stream/stream-error.js';
import { concat } from '../util/concat.js';
import { type BodyOptions, transformJsonBody } from './json-body.js';

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`request body larger than maxMessageBytes (${limit})`);
  }
}

/** Reads a body, cancelling it as soon as it passes `limit` bytes (never read to its end). */
export async function readBounded(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concat(parts.length ? parts : [new Uint8Array(0)]);
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(limit);
    }
    parts.push(value);
  }
}

export interface Decoded {
  /** The decoded body (empty when the message was dropped or refused). */
  bytes: Uint8Array;
  /** Set when decoding made keys collide: nothing may be forwarded. */
  collision?: PayloadKeyCollisionError;
  /** Set when the decoder refused the body (invalid UTF-8, too deep, ...): nothing may be forwarded. */
  refused?: PayloadStreamError;
}

export async function decodeBytes(bytes: Uint8Array, options: BodyOptions): Promise<Decoded> {
  return decodeNow(bytes, options);
}

/** decodeBytes at once (the proxy's per-call path: no promise for work done in one go). */
export function decodeNow(bytes: Uint8Array, options: BodyOptions): Decoded {
  let collision: PayloadKeyCollisionError | undefined;
  try {
    const out = transformJsonBody('decode', bytes, { ...options, onCollision: (e) => (collision = e) });
    return { bytes: out, collision };
  } catch (e) {
    if (e instanceof PayloadStreamError) return { bytes: new Uint8Array(0), refused: e };
    throw e;
  }
}

/**
 * Runs a whole body through the encoder (bodies this code writes itself). maxMessageBytes bounds
 * what arrives, not these: errors for each request of a batch can be longer than the batch, and
 * refusing them would leave every request unanswered.
 */
export async function encodeBytes(bytes: Uint8Array, options: BodyOptions): Promise<Uint8Array> {
  const maxMessageBytes = Math.max(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, bytes.length);
  return transformJsonBody('encode', bytes, { ...options, maxMessageBytes });
}

/**
 * Whether a body is a JSON object or array (after a BOM), as a server that does not go by its
 * Content-Type could read it: under a guard, only bodies sent as JSON are read, so one of these
 * sent as another type would pass unread.
 */
export function holdsJson(bytes: Uint8Array): boolean {
  // (an ASCII first byte that trim() keeps and no JSON value opens with: the body is not decoded)
  const first = bytes[0];
  if (first === undefined) return false;
  if (first < 0x80 && first !== 0x7b && first !== 0x5b && first !== 0x20 && (first < 0x09 || first > 0x0d)) return false;
  const text = new TextDecoder().decode(bytes).trim();
  if (!/^[{[]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
