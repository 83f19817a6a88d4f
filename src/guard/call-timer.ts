// Call time limits, apart from any transport: a request from the host that has no answer within
// `limitMs` is answered for the server (a tools/call with an isError result, anything else with
// JSON-RPC error -32001), the server is to be told with notifications/cancelled, and its late
// answer is dropped. Progress for the request restarts its timer, as the SDK's
// resetTimeoutOnProgress does, up to `maxMs` from its start. wrap (cli/call-timeout.ts), serve,
// the HTTP filter and the SDK wrappers read their own wire and tell a CallTimer what they see.
//
// Requests are keyed by idKey (raw-id.ts): a server that answers under the id it parsed
// (`"a\u0041"` as "aA", `1.0` as 1) still matches, and ids past 2^53 stay apart. The answers and
// the cancellation carry the id as the host wrote it.
//
// Memory stays bounded: at most MAX_TRACKED requests are timed at once (beyond, the rest are not,
// said once), and as many timed-out ids wait for a late answer (the oldest forgotten).
import { type Message, TIMEOUT_CODE } from '../jsonrpc/message.js';
import { idKey, RawId } from '../jsonrpc/raw-id.js';
import type { OnAudit } from './audit.js';

export { TIMEOUT_CODE };

/** Requests timed at once; beyond, the rest go untimed. */
export const MAX_TRACKED = 10_000;

/** `30 s`, `1.5 s`: how the answer names the limit. */
export const seconds = (ms: number) => `${ms / 1000} s`;

/** The text of an answer given for a server that did not answer within `limitMs`. */
export const noAnswerText = (limitMs: number) => `no answer from the server within ${seconds(limitMs)}`;

/** The answer for a request `raw` (its id as written) of `method` the server left unanswered. */
export function timeoutAnswer(raw: string, method: string, limitMs: number): Message {
  const text = noAnswerText(limitMs);
  const id = new RawId(raw);
  return method === 'tools/call'
    ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
    : { jsonrpc: '2.0', id, error: { code: TIMEOUT_CODE, message: text } };
}

/** The JSON text of notifications/cancelled for request `raw` (its id as written, byte for byte). */
export const cancelledText = (raw: string) =>
  `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${raw},"reason":"timeout"}}`;

/** A request the server left unanswered: what to answer the host, and what to tell the server. */
export interface TimedOut {
  /** Its id as the host wrote it. */
  raw: string;
  method: string;
  tool: string | undefined;
  /** The answer for the host (its id a RawId: write it with messageText, encoded). */
  answer: Message;
  /** notifications/cancelled for the server, as JSON text (real values: never encoded). */
  cancel: string;
}

export interface CallTimerOptions {
  limitMs: number;
  /** How long progress may keep a request going in all; default 10 times limitMs. */
  maxMs?: number;
  /** A request timed out: answer the host and tell the server (the audit entry is written first). */
  onTimeout: (t: TimedOut) => void;
  /** One line per event worth knowing (never payload text). */
  log?: (line: string) => void;
  /** Told each request answered for the server, before its answer leaves. */
  onAudit?: OnAudit;
}

interface Pending {
  raw: string;
  method: string;
  tool: string | undefined;
  started: number;
  timer: ReturnType<typeof setTimeout>;
  /** Its progress token's key, when it asked for progress. */
  token: string | undefined;
}

export class CallTimer {
  private readonly pending = new Map<string, Pending>();
  /** Progress token keys, to the key of their request. */
  private readonly tokens = new Map<string, string>();
  /** Ids (by idKey) answered here: their late answers are dropped. */
  private readonly late = new Set<string>();
  private readonly maxMs: number;
  private toldFull = false;
  private stopped = false;

  constructor(private readonly o: CallTimerOptions) {
    this.maxMs = o.maxMs ?? 10 * o.limitMs;
  }

  get limitMs(): number {
    return this.o.limitMs;
  }

  /** Requests being timed. */
  get size(): number {
    return this.pending.size;
  }

  /** Whether an answer from the server can matter here (a request timed, or a late answer awaited). */
  get watching(): boolean {
    return this.pending.size > 0 || this.late.size > 0;
  }

  /**
   * Starts timing request `raw` (its id's JSON text) as it goes to the server. `token`: a key for
   * its progress token (any text that is the same for the same token in progress notifications).
   * False when it is not timed (a reused id, or too many in flight).
   */
  track(raw: string, method: string, tool?: string, token?: string): boolean {
    if (this.stopped) return false;
    const id = idKey(raw);
    if (this.pending.has(id)) return false; // a reused id: the first one's timer stands
    if (this.pending.size >= MAX_TRACKED) {
      if (!this.toldFull) this.o.log?.(`--call-timeout: over ${MAX_TRACKED} requests in flight; the ones beyond are not timed`);
      this.toldFull = true;
      return false;
    }
    this.late.delete(id); // an id used again: its new answer is awaited
    const timer = setTimeout(() => this.expire(id), this.o.limitMs);
    this.pending.set(id, { raw, method, tool, started: Date.now(), timer, token });
    if (token !== undefined) this.tokens.set(token, id);
    return true;
  }

  /**
   * The server answered under `raw` (its id as the server wrote it): true when that answer is
   * late (the host was answered already: drop it); else its request is no longer timed.
   */
  answered(raw: string): boolean {
    const id = idKey(raw);
    if (this.late.delete(id)) {
      this.o.log?.(`--call-timeout: dropped the server's late answer to ${raw}`);
      return true;
    }
    this.settle(id);
    return false;
  }

  /** Request `raw` needs no timer any more (answered or cancelled some other way). */
  forget(raw: string): void {
    this.settle(idKey(raw));
  }

  /** Progress under token key `token`: its request's timer starts again, within maxMs of its start. */
  progress(token: string): void {
    const id = this.tokens.get(token);
    const p = id === undefined ? undefined : this.pending.get(id);
    if (!p) return;
    const left = Math.min(this.o.limitMs, p.started + this.maxMs - Date.now());
    if (left <= 0) return; // the cap: its timer fires as set
    clearTimeout(p.timer);
    p.timer = setTimeout(() => this.expire(id!), left);
  }

  /** The ids (as written) of the requests still timed, in the order they were sent. */
  waiting(): string[] {
    return [...this.pending.values()].map((p) => p.raw);
  }

  /** Times the rest out now (their server will not answer them where it is read). */
  expireAll(): void {
    for (const id of [...this.pending.keys()]) this.expire(id);
  }

  /** No more timers (the server is gone, or the exchange over). */
  stop(): void {
    this.stopped = true;
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    this.tokens.clear();
  }

  private settle(id: string): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    clearTimeout(p.timer);
    this.pending.delete(id);
    if (p.token !== undefined && this.tokens.get(p.token) === id) this.tokens.delete(p.token);
    return p;
  }

  private expire(id: string): void {
    const p = this.settle(id);
    if (!p) return;
    this.late.add(id);
    if (this.late.size > MAX_TRACKED) this.late.delete(this.late.values().next().value!);
    this.o.onAudit?.({
      time: new Date().toISOString(),
      request: p.raw,
      ...(p.tool === undefined ? {} : { tool: p.tool }),
      decision: 'timed-out',
      rule: 'timeout',
    });
    this.o.onTimeout({
      raw: p.raw,
      method: p.method,
      tool: p.tool,
      answer: timeoutAnswer(p.raw, p.method, this.o.limitMs),
      cancel: cancelledText(p.raw),
    });
    this.o.log?.(`--call-timeout: ${p.method} ${p.raw} had no answer within ${seconds(this.o.limitMs)}; answered it, told the server`);
  }
}
