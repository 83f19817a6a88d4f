// A decoded POST body as JSON, parsed once per request: the tool guard (guarded.ts) and the call
// timer (timed.ts) both read it. The parse is kept with the bytes (weakly: it goes with them);
// the bytes of a request body are never written after they are decoded.
import { LazyIds, type ReadMessage, readMessage } from '../jsonrpc/raw-id.js';

const utf8 = new TextDecoder();
const parsed = new WeakMap<Uint8Array, ReadMessage | null>();

/** `bytes` as JSON, parsed the first time it is asked for; undefined if it is not JSON. */
export function parseBody(bytes: Uint8Array): ReadMessage | undefined {
  let p = parsed.get(bytes);
  if (p === undefined) {
    p = readMessage(utf8.decode(bytes)) ?? null;
    parsed.set(bytes, p);
  }
  return p ?? undefined;
}

/** Notes that `kept` holds the elements `keep` of the batch `from`, in order (keepElements): its parse is theirs. */
export function keptParse(kept: Uint8Array, from: ReadMessage, keep: readonly number[]): void {
  const batch = from.value as unknown[];
  parsed.set(
    kept,
    new LazyIds(
      keep.map((k) => batch[k]),
      () => keep.map((k) => from.ids[k]),
    ),
  );
}
