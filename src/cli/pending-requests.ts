// connect: the requests of one line from the host that have no answer yet. The server's
// responses name them by value (as it parsed and wrote the id); an answer connect writes itself
// goes under the id as the host wrote it, read from the line only then.
import { type Id, isId } from '../jsonrpc/message.js';
import { type AnswerId, rawIds } from '../jsonrpc/raw-id.js';

export class PendingRequests {
  /** Each request's place in the line, by id value (two ids may round to one value: each waits). */
  private readonly byValue = new Map<Id, number[]>();
  private count = 0;

  constructor(
    private readonly line = '',
    messages: readonly unknown[] = [],
  ) {
    for (const [k, m] of messages.entries()) {
      const o = m as { method?: unknown; id?: unknown } | null;
      if (typeof o?.method !== 'string' || !isId(o.id)) continue;
      const list = this.byValue.get(o.id);
      if (list) list.push(k);
      else this.byValue.set(o.id, [k]);
      this.count++;
    }
  }

  get size(): number {
    return this.count;
  }

  /** A response under `id` came: one request with that id is answered. */
  answered(id: unknown): void {
    const list = isId(id) ? this.byValue.get(id) : undefined;
    if (!list) return;
    list.shift();
    this.count--;
    if (!list.length) this.byValue.delete(id as Id);
  }

  /** The ids of the requests still waiting, as written, in the line's order; none wait after. */
  take(): AnswerId[] {
    if (!this.count) return [];
    const written = rawIds(this.line);
    const waiting = [...this.byValue].flatMap(([value, places]) => places.map((k) => [k, written[k] ?? value] as const));
    this.byValue.clear();
    this.count = 0;
    return waiting.sort((a, b) => a[0] - b[0]).map(([, id]) => id);
  }
}
