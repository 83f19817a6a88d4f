// The requests of one `serve` session sent on to its child and not answered yet, found by id as
// written, by id's value and by progress token without a scan (each answer from the child, each
// cancellation and each progress notification looks one up; up to MAX_IN_FLIGHT are held).
import type { Id } from '../jsonrpc/message.js';

/** A request from the host sent on and not answered yet. */
export interface InFlight {
  rawId: string;
  id: Id;
  method: string;
  /** The event stream its answer goes to. */
  stream: string;
  progressToken?: string;
}

/** Each key's requests, in the order they came (the first is the one found). */
class Index {
  private readonly map = new Map<string, InFlight[]>();
  first(key: string): InFlight | undefined {
    return this.map.get(key)?.[0];
  }
  all(key: string): readonly InFlight[] {
    return this.map.get(key) ?? [];
  }
  add(key: string, r: InFlight): void {
    const list = this.map.get(key);
    if (list) list.push(r);
    else this.map.set(key, [r]);
  }
  delete(key: string, r: InFlight): void {
    const list = this.map.get(key);
    if (!list) return;
    const at = list.indexOf(r);
    if (at >= 0) list.splice(at, 1);
    if (!list.length) this.map.delete(key);
  }
}

const valueKey = (id: Id) => `${typeof id}:${id}`;

/** A request's neighbours in the order they were sent on. */
interface Link {
  prev?: InFlight;
  next?: InFlight;
}

export class InFlightRequests {
  /** In the order they were sent on, linked both ways: the latest is found from the end. */
  private readonly order = new Map<InFlight, Link>();
  private last: InFlight | undefined;
  private readonly byRaw = new Index();
  private readonly byValue = new Index();
  private readonly byToken = new Index();

  get length(): number {
    return this.order.size;
  }

  add(r: InFlight): void {
    if (this.order.has(r)) return;
    this.order.set(r, { prev: this.last });
    if (this.last) this.order.get(this.last)!.next = r;
    this.last = r;
    this.byRaw.add(r.rawId, r);
    this.byValue.add(valueKey(r.id), r);
    if (r.progressToken !== undefined) this.byToken.add(r.progressToken, r);
  }

  delete(r: InFlight): void {
    const link = this.order.get(r);
    if (!link) return;
    this.order.delete(r);
    if (link.prev) this.order.get(link.prev)!.next = link.next;
    if (link.next) this.order.get(link.next)!.prev = link.prev;
    else this.last = link.prev;
    this.byRaw.delete(r.rawId, r);
    this.byValue.delete(valueKey(r.id), r);
    if (r.progressToken !== undefined) this.byToken.delete(r.progressToken, r);
  }

  /** The request whose id was written `rawId` (and parses to `id`, when given). */
  written(rawId: string, id?: Id): InFlight | undefined {
    return id === undefined ? this.byRaw.first(rawId) : this.byRaw.all(rawId).find((r) => r.id === id);
  }

  /**
   * The request an answer with this id is for: a string by value, a number by its text (two ids
   * past 2^53 stay two), else (a child that rewrote the number) the same value.
   */
  answered(id: Id, rawId: string): InFlight | undefined {
    if (typeof id === 'string') return this.byValue.first(valueKey(id));
    return this.byRaw.first(rawId) ?? this.byValue.first(valueKey(id));
  }

  /** The request that asked for progress with `token` (as tokenKey makes it). */
  withToken(token: string): InFlight | undefined {
    return this.byToken.first(token);
  }

  /** The latest request sent on that `test` takes (all: the latest); each child message routed asks. */
  latest(test: (r: InFlight) => boolean = () => true): InFlight | undefined {
    for (let r = this.last; r; r = this.order.get(r)!.prev) if (test(r)) return r;
    return undefined;
  }

  [Symbol.iterator](): Iterator<InFlight> {
    return this.order.keys();
  }
}
