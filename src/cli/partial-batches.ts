// wrap --guard: batches part of which the proxy answered (blocked calls). Those answers wait for
// the server's answer to the rest, to go out in ONE batch response: added before the ']' of the
// server's batch line, or, for a server that answers a batch with single lines, as a batch of
// their own after its first; if the server never answers, when its output ends.
import type { Codec } from '../codec/codec.js';
import { isId, type Message } from '../jsonrpc/message.js';
import { messageText } from '../jsonrpc/raw-id.js';
import { concat } from '../util/concat.js';
import { parseJson } from '../util/json.js';

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();
const CLOSE_BRACKET = 0x5d;

/** A batch part of which was answered by the proxy: those answers wait for the server's. */
interface PartialBatch {
  ids: Set<string | number>;
  answers: Message[];
}

/** A message's id, where it has one (a string or number). */
export const idOf = (m: unknown): string | number | undefined => {
  const id = (m as { id?: unknown } | null)?.id;
  return isId(id) ? id : undefined;
};

/** A line's JSON value, or undefined when it is not JSON. */
export const parse = (line: Uint8Array | string): unknown => parseJson(typeof line === 'string' ? line : utf8.decode(line));

export class PartialBatches {
  private readonly partials: PartialBatch[] = [];

  constructor(private readonly codec: Codec) {}

  /** Batches waiting for the server's answer. */
  get size(): number {
    return this.partials.length;
  }

  /** The proxy's `answers` wait for the server's answer to the requests `ids` (the rest of their batch). */
  add(ids: Set<string | number>, answers: Message[]): void {
    this.partials.push({ ids, answers });
  }

  /** A server batch line with the proxy's answers for the same batch added before its ']' (else the line as it is). */
  merge(line: Uint8Array): Uint8Array {
    const parsed = parse(line);
    if (!Array.isArray(parsed)) return line;
    const answers = parsed.filter((m) => typeof m === 'object' && m !== null && !('method' in m));
    const i = this.partials.findIndex((p) => answers.some((m) => p.ids.has(idOf(m)!)));
    if (i < 0) return line;
    const [p] = this.partials.splice(i, 1);
    const close = line.lastIndexOf(CLOSE_BRACKET);
    const added = (parsed.length ? ',' : '') + p!.answers.map((a) => messageText(this.codec.encodeMessage(a))).join(',');
    return concat([line.subarray(0, close), utf8Encoder.encode(added), line.subarray(close)]);
  }

  /** The server answered request `id` on a line of its own: the answers waiting with it, to go out after it. */
  single(id: string | number): Message[] | undefined {
    const i = this.partials.findIndex((p) => p.ids.has(id));
    return i < 0 ? undefined : this.partials.splice(i, 1)[0]!.answers;
  }

  /** Every answer still waiting, a batch each (the server's output ended). */
  takeAll(): Message[][] {
    return this.partials.splice(0).map((p) => p.answers);
  }
}
