// The guards of many MCP sessions (the proxy's clients, or the sessions a filtering fetch
// serves), each with its own tool list, the sessions without an id sharing one. What they keep
// is bounded in sessions and in the bytes of their lists, the least recently used forgotten
// first. Forgetting is safe: a guard that holds no list asks the upstream for it, or blocks.

import type { OnAudit } from '../guard/audit.js';
import type { AskUser } from '../guard/confirm.js';
import { Roots } from '../guard/paths.js';
import { CallGuard, type CallGuardOptions, type GuardMode } from './call-guard.js';
import type { HeadFields } from './proxy-headers.js';

/** Sessions whose guards are kept at once. */
export const GUARDED_SESSIONS = 4096;
/** The tool lists they hold, in bytes of JSON, together. */
export const GUARDED_LIST_BYTES = 64 * 1024 * 1024;

export class SessionGuards {
  /** In least recently used order (a Map keeps insertion order). */
  private readonly guards = new Map<string, CallGuard>();

  constructor(
    private readonly mode: GuardMode,
    private readonly log: (line: string) => void,
    private readonly maxSessions = GUARDED_SESSIONS,
    private readonly maxBytes = GUARDED_LIST_BYTES,
    private readonly options: CallGuardOptions = {},
  ) {}

  get size(): number {
    return this.guards.size;
  }

  /** About how many bytes the kept lists take together. */
  get listBytes(): number {
    let bytes = 0;
    for (const g of this.guards.values()) bytes += g.listBytes;
    return bytes;
  }

  /**
   * The guard of `session` (null: no session id). An id this process has not seen gets a guard
   * that is not kept until it proves real (`keep`), so made-up ids cannot push live sessions out.
   */
  get(session: string | null): CallGuard {
    const key = session ?? '';
    const guard = this.guards.get(key);
    if (guard) {
      this.guards.delete(key);
      this.guards.set(key, guard);
      return guard;
    }
    const made = new CallGuard(this.mode, this.log, this.options);
    if (session === null) this.put(key, made);
    return made;
  }

  /** The upstream issued `id` (its answer to an initialize): a new session, a new guard. */
  issued(id: string): void {
    this.put(id, new CallGuard(this.mode, this.log, this.options));
  }

  /** Keeps `guard` for `session` once it learnt a list as that session (the upstream took the id). */
  keep(session: string | null, guard: CallGuard): void {
    const key = session ?? '';
    if (this.guards.get(key) !== guard && guard.knowsList) this.put(key, guard);
    else this.trim();
  }

  /** The session ended (the upstream accepted its DELETE). */
  drop(session: string): void {
    this.guards.delete(session);
  }

  /**
   * The upstream answered a `method` request sent as `session` (null: none) with `response`: a
   * success that issues an id starts a session; a DELETE it accepts ends one.
   */
  answered(session: string | null, method: string, response: { status: number; headers: HeadFields }): void {
    if (response.status < 200 || response.status > 299) return;
    const issued = response.headers.get('mcp-session-id');
    if (!session && issued) this.issued(issued);
    if (method.toUpperCase() === 'DELETE' && session) this.drop(session);
  }

  private put(key: string, guard: CallGuard): void {
    this.guards.delete(key);
    this.guards.set(key, guard);
    this.trim();
  }

  /** Forgets the least recently used guards while over either bound (lists learn as responses pass). */
  private trim(): void {
    let bytes = this.listBytes;
    for (const [key, g] of this.guards) {
      if (this.guards.size <= 1 || (this.guards.size <= this.maxSessions && bytes <= this.maxBytes)) break;
      this.guards.delete(key);
      bytes -= g.listBytes;
    }
  }
}

/** The guard options the filtering fetch and proxy take (see FilteringFetchOptions). */
export interface GuardOptions {
  guard?: GuardMode | false | undefined;
  guardSessions?: number | undefined;
  roots?: readonly string[] | undefined;
  onAudit?: OnAudit | undefined;
  /** A call time limit: it makes decisions for onAudit too (timed-out calls). */
  callTimeoutMs?: number | undefined;
  confirm?: readonly string[] | undefined;
  askUser?: AskUser | undefined;
}

/**
 * The session guards those options ask for, or undefined without `guard`. Roots are checked now
 * (a bad one is a TypeError at creation, not at the first call), and taken lexically: the
 * server is elsewhere, its file system unseen.
 */
export function sessionGuards(options: GuardOptions, log: (line: string) => void): SessionGuards | undefined {
  const { guard, guardSessions, roots, onAudit, callTimeoutMs, confirm, askUser } = options;
  if (!guard) {
    if (roots || (onAudit && callTimeoutMs === undefined))
      throw new TypeError(
        'roots and onAudit need guard (the tool guard checks the paths and makes the decisions; or, for onAudit, callTimeoutMs)',
      );
    if (confirm) throw new TypeError('confirm needs guard (the tool guard knows the tools)');
    return undefined;
  }
  if (roots) new Roots(roots);
  return new SessionGuards(guard, log, guardSessions, undefined, {
    ...(roots ? { roots } : {}),
    ...(onAudit ? { onAudit } : {}),
    ...(confirm ? { confirm, askUser } : {}),
  });
}
