// Decoding: keys of one object that decode to the same string. Found from the key offsets the
// assembler keeps (only in objects where decoding changed a key), and reported with the ids of
// the message objects, read from the whole message held, only when there is a collision.
import { PayloadKeyCollisionError } from '../errors.js';
import { isResponseShape } from '../jsonrpc/message.js';
import type { HeldBytes } from './held-bytes.js';
import type { NumList } from './num-list.js';

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** Positions of the first two keys (JSON texts at [start, end) pairs) that decode to the same string, or null. */
export function findCollision(held: HeldBytes, keys: Float64Array): [number, number] | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < keys.length / 2; i++) {
    const text = JSON.parse(`"${utf8.decode(held.read(keys[2 * i]!, keys[2 * i + 1]!))}"`) as string;
    const first = seen.get(text);
    if (first !== undefined) return [first, i];
    seen.set(text, i);
  }
  return null;
}

/** The id of message object k: its JSON text and its value (undefined if none or unreadable). */
function idAt(held: HeldBytes, ids: NumList, k: number): { text: string; value: unknown } | undefined {
  const [start, end] = [ids.a[2 * k]!, ids.a[2 * k + 1]!];
  if (start < 0) return undefined;
  const text = utf8.decode(held.read(start, end));
  try {
    return { text, value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * Which message objects are responses (`result` or `error` and no `method`), read from the
 * whole message held (decoding holds it all). All false when the objects cannot be matched
 * with `count`.
 */
function responses(held: HeldBytes, count: number): boolean[] {
  const none = new Array<boolean>(count).fill(false);
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(held.read(0, held.length)));
  } catch {
    return none;
  }
  const items = Array.isArray(value) ? value : [value];
  if (items.length !== count) return none;
  return items.map(isResponseShape);
}

/**
 * The error for keys `collision` of message `messageNumber`, held whole in `held`: `ids` holds
 * each message object's id as [start, end) in it (-1 when absent), `element` the index of the
 * object that collided (-1 if unknown).
 */
export function collisionError(
  held: HeldBytes,
  ids: NumList,
  collision: [number, number],
  element: number,
  messageNumber: number,
): PayloadKeyCollisionError {
  const found = Array.from({ length: ids.length / 2 }, (_, k) => idAt(held, ids, k));
  const isResponse = responses(held, found.length);
  const batch = found.length > 1;
  const of = (response: boolean) => (batch ? found.filter((id, k) => id !== undefined && isResponse[k] === response) : undefined);
  const [requests, answers] = [of(false), of(true)];
  const culprit = element >= 0 ? found[element] : undefined;
  const response = element >= 0 && isResponse[element] === true;
  return new PayloadKeyCollisionError([], collision, {
    messageNumber,
    id: culprit?.value,
    batchIds: requests?.map((id) => id!.value),
    response,
    batchResponseIds: answers?.map((id) => id!.value),
    texts: { id: culprit?.text, batchIds: requests?.map((id) => id!.text), batchResponseIds: answers?.map((id) => id!.text) },
  });
}
