// JSON-RPC messages: only `params`, `result` and `error` carry payload; `jsonrpc`, `id` and
// `method` are the envelope and never change (nor do the protocol fields inside the payload:
// protocol-fields.ts). A batch is handled element by element.
import type { JsonPath } from '../errors.js';

/** Maps one payload member; `field` is `params`, `result` or `error`. */
export type ValueMapper = (value: unknown, basePath: JsonPath, field: PayloadField) => unknown;

/** The members of a JSON-RPC message that carry payload. */
export const PAYLOAD_FIELDS = ['params', 'result', 'error'] as const;
export type PayloadField = (typeof PAYLOAD_FIELDS)[number];

function mapOne(message: unknown, mapValue: ValueMapper, base: JsonPath): unknown {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return message;
  const m = message as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const field of PAYLOAD_FIELDS) {
    if (!Object.hasOwn(m, field)) continue;
    const before = m[field];
    const after = mapValue(before, [...base, field], field);
    if (after !== before) {
      out ??= { ...m };
      out[field] = after;
    }
  }
  return out ?? message;
}

/** Applies `mapValue` to the payload fields of a message or of each message of a batch. */
export function mapMessage(message: unknown, mapValue: ValueMapper): unknown {
  if (!Array.isArray(message)) return mapOne(message, mapValue, []);
  let out: unknown[] | null = null;
  for (let i = 0; i < message.length; i++) {
    const before = message[i];
    const after = mapOne(before, mapValue, [i]);
    if (after !== before && !out) out = message.slice(0, i);
    out?.push(after);
  }
  return out ?? message;
}
