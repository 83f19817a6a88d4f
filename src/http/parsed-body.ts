// A decoded POST body as JSON, parsed once per request: the tool guard (guarded.ts) and the call
// timer (timed.ts) both read it. The parse is kept with the bytes (weakly: it goes with them);
// the bytes of a request body are never written after they are decoded.
import { type RawId, rawIds } from '../jsonrpc/raw-id.js';

/** A body's JSON value, and each message's id as written (read when first asked). */
export class ParsedBody {
  private read: readonly (RawId | undefined)[] | undefined;

  constructor(
    readonly value: unknown,
    private readonly text: string | (() => readonly (RawId | undefined)[]),
  ) {}

  /** One per message (per element of a batch). */
  get ids(): readonly (RawId | undefined)[] {
    this.read ??= typeof this.text === 'string' ? rawIds(this.text) : this.text();
    return this.read;
  }
}

const utf8 = new TextDecoder();
const parsed = new WeakMap<Uint8Array, ParsedBody | null>();

/** `bytes` as JSON, parsed the first time it is asked for; undefined if it is not JSON. */
export function parseBody(bytes: Uint8Array): ParsedBody | undefined {
  let p = parsed.get(bytes);
  if (p === undefined) {
    const text = utf8.decode(bytes);
    try {
      p = new ParsedBody(JSON.parse(text), text);
    } catch {
      p = null;
    }
    parsed.set(bytes, p);
  }
  return p ?? undefined;
}

/** Notes that `kept` holds the elements `keep` of the batch `from`, in order (keepElements): its parse is theirs. */
export function keptParse(kept: Uint8Array, from: ParsedBody, keep: readonly number[]): void {
  const batch = from.value as unknown[];
  parsed.set(
    kept,
    new ParsedBody(
      keep.map((k) => batch[k]),
      () => keep.map((k) => from.ids[k]),
    ),
  );
}
