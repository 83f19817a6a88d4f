// Per-credential limits, checked before any work is done for a request: a token bucket of
// requests per second, and a count of live sessions (issued, not yet deleted, gone or idle past
// the session idle time). Over either: 429 with Retry-After.

/** Requests per second with a burst of as many; buckets for credentials idle long enough to be full again are forgotten. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** Credentials held before the next sweep of full buckets. */
  private sweepAt = 10_000;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(perSecond > 0)) throw new TypeError('rate must be a positive number of requests per second');
  }

  /** 0 when `who` may go now (a token is taken); else the seconds until it may. */
  take(who: string): number {
    const t = this.now();
    const b = this.buckets.get(who) ?? { tokens: this.perSecond, at: t };
    b.tokens = Math.min(this.perSecond, b.tokens + ((t - b.at) / 1000) * this.perSecond);
    b.at = t;
    this.buckets.set(who, b);
    // (amortised: a sweep that frees little is not repeated before as many new credentials again)
    if (this.buckets.size > this.sweepAt) {
      this.forgetFull(t);
      this.sweepAt = Math.max(10_000, 2 * this.buckets.size);
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return (1 - b.tokens) / this.perSecond;
  }

  /** A full bucket is the same as none: dropping those keeps the map to active credentials. */
  private forgetFull(t: number): void {
    for (const [who, b] of this.buckets) if (b.tokens + ((t - b.at) / 1000) * this.perSecond >= this.perSecond) this.buckets.delete(who);
  }
}

/** Live sessions per credential (by the server's session id), each forgotten after `idleMs` unseen. */
export class SessionCounter {
  private readonly sessions = new Map<string, Map<string, number>>();

  constructor(
    readonly max: number,
    private readonly idleMs: number,
    private readonly now: () => number = () => performance.now(),
    /** Whether the server still holds a session; default: it does until idle, deleted or answered 404. */
    private readonly live: (id: string) => boolean = () => true,
  ) {}

  /** Sessions being opened (a request without a session id on its way to the server), per credential. */
  private readonly opening = new Map<string, number>();

  /** Whether `who` is at its limit (idle sessions no longer count; those being opened do). */
  full(who: string): boolean {
    const sessions = this.sessions.get(who);
    let size = 0;
    if (sessions) {
      const t = this.now();
      for (const [id, seen] of sessions) if (t - seen > this.idleMs || !this.live(id)) sessions.delete(id);
      if (!sessions.size) this.sessions.delete(who);
      size = sessions.size;
    }
    return size + (this.opening.get(who) ?? 0) >= this.max;
  }

  /**
   * Holds a place for a session `who` is opening, when under its limit: concurrent requests
   * cannot all pass the check before the first session is counted. Undefined when full; else
   * the function that gives the place back (once the server has answered).
   */
  reserve(who: string): (() => void) | undefined {
    if (this.full(who)) return undefined;
    this.opening.set(who, (this.opening.get(who) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const n = (this.opening.get(who) ?? 1) - 1;
      if (n > 0) this.opening.set(who, n);
      else this.opening.delete(who);
    };
  }

  /** Credentials held before the next sweep of every idle session (doubles with what a sweep keeps). */
  private sweepAt = 10_000;

  seen(who: string, id: string): void {
    const sessions = this.sessions.get(who) ?? new Map<string, number>();
    this.sessions.set(who, sessions);
    sessions.set(id, this.now());
    // A credential that never comes back is otherwise pruned only by its own next session: many
    // credentials opening one each would be held for ever. Amortised: each sweep is paid for by
    // as many new credentials as it looked at.
    if (this.sessions.size > this.sweepAt) {
      const t = this.now();
      for (const [who, sessions] of this.sessions) {
        for (const [id, seen] of sessions) if (t - seen > this.idleMs || !this.live(id)) sessions.delete(id);
        if (!sessions.size) this.sessions.delete(who);
      }
      this.sweepAt = Math.max(10_000, 2 * this.sessions.size);
    }
  }

  /** How many credentials hold sessions (or did, not yet swept). */
  get credentials(): number {
    return this.sessions.size;
  }

  ended(who: string, id: string): void {
    const sessions = this.sessions.get(who);
    if (sessions?.delete(id) && !sessions.size) this.sessions.delete(who);
  }
}
