// serve's sessions: which are open (by Mcp-Session-Id), how many may be (--max-sessions), and
// when one ends: on DELETE, when its child exits, at shutdown, or after --session-idle without
// a request. A request still being answered is activity (a long tool call does not end its
// session), unless the host has read nothing of its answers for as long.

/** What the table needs of a session (a ServeSession). */
export interface TableSession {
  readonly id: string;
  /** Since when the child waits for the host to read what it was sent. */
  readonly heldSince?: number | undefined;
  readonly inFlight: { readonly length: number };
  close(why: string): void;
}

export interface ServeSessionsOptions<S> {
  /** Sessions at once; `full` beyond. */
  maxSessions: number;
  /** Milliseconds without a request before a session ends. */
  idleMs: number;
  log: (line: string) => void;
  /** Makes a session; it calls `onEnd` when it ends on its own (its child exited). */
  create: (onEnd: (why: string) => void) => S;
}

export class ServeSessions<S extends TableSession> {
  private readonly sessions = new Map<string, S>();
  private readonly idle = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly o: ServeSessionsOptions<S>) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Sessions at once at most. */
  get max(): number {
    return this.o.maxSessions;
  }

  /** No room for another session. */
  get full(): boolean {
    return this.sessions.size >= this.o.maxSessions;
  }

  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  /** A new session, open and timed. */
  start(): S {
    const s: S = this.o.create((why) => this.end(s.id, why));
    this.sessions.set(s.id, s);
    this.touch(s);
    this.o.log(`session started; ${this.sessions.size} open`);
    return s;
  }

  /** A request came for `s`: its idle time starts again. */
  touch(s: S): void {
    if (this.sessions.get(s.id) !== s) return; // (ended meanwhile)
    clearTimeout(this.idle.get(s.id));
    const timer = setTimeout(() => {
      if (s.heldSince !== undefined && Date.now() - s.heldSince >= this.o.idleMs) this.end(s.id, 'idle: the host reads nothing');
      else if (s.inFlight.length) this.touch(s);
      else this.end(s.id, 'idle');
    }, this.o.idleMs);
    timer.unref?.();
    this.idle.set(s.id, timer);
  }

  /** Ends session `id` (if open): `why` goes into its answers and the log. */
  end(id: string, why: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    clearTimeout(this.idle.get(id));
    this.idle.delete(id);
    s.close(`the session has ended (${why})`);
    this.o.log(`session ended (${why}); ${this.sessions.size} open`);
  }

  /** Ends every session. */
  endAll(why: string): void {
    for (const id of [...this.sessions.keys()]) this.end(id, why);
  }
}
