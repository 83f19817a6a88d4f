// Deadlines of one length on one Node timer, for limits every request of a server sets and
// almost always clears (the upstream's head and body limits, 300 s, and an answer's head wait,
// 20 ms, each cleared within a ms or so of a small call). A
// setTimeout per request made a Timeout and its async resource, and, since each was cleared
// before the next was set, Node's list for that length made and dropped again each time. Here
// a deadline is a link in a list kept in the order set (one length: also the order due), and
// one unref'd timer, set for the first due, wakes to fire those due. A deadline never fires
// early; it may fire up to a millisecond late (the timer wakes on the loop's coarse clock).
// (The global `performance`, read when used: a fake clock in a test replaces it.)

/** A deadline set: `clear` it (or `renew` it) before it is due, or `fire` runs. */
export interface Deadline {
  /** Due at (performance.now()). */
  at: number;
  fire: () => void;
  prev: Deadline | undefined;
  next: Deadline | undefined;
  /** Whether it is in its list (set, neither fired nor cleared). */
  set: boolean;
}

export class Deadlines {
  private first: Deadline | undefined;
  private last: Deadline | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Firing those due: the timer is set once they are fired, for the first then due. */
  private waking = false;

  constructor(readonly ms: number) {}

  /** Runs `fire` in `ms` unless cleared before. */
  set(fire: () => void): Deadline {
    const d: Deadline = { at: 0, fire, prev: undefined, next: undefined, set: false };
    this.append(d);
    return d;
  }

  /** Due `ms` from now again (a body's idle limit, renewed by each chunk). */
  renew(d: Deadline): void {
    if (d.set) this.unlink(d);
    this.append(d);
  }

  clear(d: Deadline | undefined): void {
    // (the timer is left to wake once and find nothing: setting it again per request cost more)
    if (d?.set) this.unlink(d);
  }

  private append(d: Deadline): void {
    d.at = performance.now() + this.ms;
    d.set = true;
    d.prev = this.last;
    d.next = undefined;
    if (this.last) this.last.next = d;
    else this.first = d;
    this.last = d;
    if (!this.timer && !this.waking) this.timer = setTimeout(this.wake, this.ms).unref();
  }

  private unlink(d: Deadline): void {
    if (d.prev) d.prev.next = d.next;
    else this.first = d.next;
    if (d.next) d.next.prev = d.prev;
    else this.last = d.prev;
    d.prev = d.next = undefined;
    d.set = false;
  }

  private readonly wake = (): void => {
    this.timer = undefined;
    this.waking = true;
    const now = performance.now();
    try {
      // (each unlinked before it fires: a fire that sets or clears deadlines finds the list whole)
      for (let d = this.first; d && d.at <= now; d = this.first) {
        this.unlink(d);
        d.fire();
      }
    } finally {
      // (set again for the first still due, even past a fire that threw)
      this.waking = false;
      if (this.first) this.timer = setTimeout(this.wake, Math.max(1, Math.ceil(this.first.at - now))).unref();
    }
  };
}
