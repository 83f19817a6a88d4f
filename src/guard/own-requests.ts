// The guards' own requests, to either side: to the server a page of its tool list (asked when a
// guard cannot judge a call), to the client (the host) an `elicitation/create` (a confirmation)
// or a `roots/list`. Their ids, the time the other side has to answer, and how an answer
// settles the request waiting for it. A transport that can ask keeps one OwnRequests per
// direction: it sends what `request` makes and hands back every answer whose id is ours, so
// that answer never reaches the other side.
//
// Ids: strings `mcp-payload-codec/<method>/<nonce>-<n>`, the nonce random per process and per
// side. The host's and the server's requests use their own ids (numbers, as the SDK does, or
// their own strings); one of ours cannot be guessed, so an answer with it is ours. The server
// never sees an id sent to the client (nor its nonce): it cannot send the client a request of
// its own under one (a question of its own whose yes the guard would read as a confirmation).
import type { Message } from '../jsonrpc/message.js';

/**
 * Asks the server for one page of its tool list (a `tools/list` of the guard's own, `cursor`
 * for the pages after the first) and resolves with that page's result; rejects when it cannot
 * (its message names the reason, never payload content). Given by a transport that can ask.
 */
export type ListTools = (cursor: string | undefined) => Promise<unknown>;

/** How long a server may take to answer a page (over HTTP: every page of one asking together). */
export const LIST_TIMEOUT_MS = 10_000;

/** How every id of the guards' own requests starts. */
export const OWN_ID_PREFIX = 'mcp-payload-codec/';
const nonce = () => Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
// Drawn at the first id, not when the module loads: Workers refuse random values in global scope.
let nonces: { server: string; client: string } | undefined;
let issued = 0;
/** A new id for one of the guards' own requests to `side` (`method`: what it asks, for a reader of the wire). */
export const ownRequestId = (method = 'tools/list', side: 'server' | 'client' = 'server'): string => {
  nonces ??= { server: nonce(), client: nonce() };
  return `${OWN_ID_PREFIX}${method.replace('/', '-')}/${nonces[side]}-${++issued}`;
};

/** Ids given up on that are still recognised when their answer comes late (the oldest forgotten). */
const MAX_LATE = 256;

/** The other side gave no answer within the time it had. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
  constructor(readonly ms: number) {
    super(`no answer within ${ms / 1000} s`);
  }
}

type Settle = (answer: Error | Message) => void;

export class OwnRequests {
  private readonly pending: Map<string, Settle>;
  /** Ids given up on (no answer in time, cancelled): an answer that comes late is still ours, dropped. */
  private readonly late: Set<string>;

  /**
   * `send` puts a message on its way to `side`; a failure it reports fails that request. The
   * client is sent `notifications/cancelled` for a request it left unanswered (a confirmation
   * dialog closes; the server's own timeouts end its side).
   */
  constructor(
    private readonly send: (message: Message) => unknown,
    private readonly side: 'server' | 'client' = 'server',
    shared?: OwnRequests,
  ) {
    this.pending = shared?.pending ?? new Map();
    this.late = shared?.late ?? new Set();
  }

  /**
   * The same requests (ids, waits, answers) sent another way: for a transport with several ways
   * to the other side (serve: a confirmation on the event stream of the call it is about).
   */
  via(send: (message: Message) => unknown): OwnRequests {
    return new OwnRequests(send, this.side, this);
  }

  /** How many requests wait for their answers. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Whether an answer of ours may come (one waits for it, or one given up on may still come late). */
  get expecting(): boolean {
    return this.pending.size > 0 || this.late.size > 0;
  }

  /** Asks for a page of the tool list; resolves with the answer's result within LIST_TIMEOUT_MS. */
  readonly ask: ListTools = (cursor) => this.request('tools/list', cursor === undefined ? {} : { cursor }, LIST_TIMEOUT_MS);

  /**
   * Sends a request of the guard's own; resolves with its answer's result, rejects with the
   * reason when it cannot (an error answer, NoAnswer after `timeoutMs`, a failed send).
   */
  request(method: string, params: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    const id = ownRequestId(method, this.side);
    return new Promise((resolve, reject) => {
      const giveUp = (error: Error, reason: string) => {
        settle(error);
        this.late.add(id);
        if (this.late.size > MAX_LATE) this.late.delete(this.late.values().next().value!);
        if (this.side === 'client')
          this.trySend({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } } as Message);
      };
      const timer = setTimeout(() => giveUp(new NoAnswer(timeoutMs), 'timeout'), timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      const aborted = () => giveUp(new Error('cancelled'), 'cancelled');
      signal?.addEventListener('abort', aborted);
      const settle: Settle = (answer) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        if (!this.pending.delete(id)) return; // (settled already)
        if (answer instanceof Error) return reject(answer);
        const m = answer as { result?: unknown; error?: { code?: unknown } };
        if ('error' in m) reject(new Error(`the ${this.side} answered error ${Number(m.error?.code)}`));
        else resolve(m.result);
      };
      this.pending.set(id, settle);
      // Sent at once (a stdio guard writes it after what passed before the call, in order).
      this.trySend({ jsonrpc: '2.0', id, method, params } as Message, (e) => settle(new Error(`sending it failed (${(e as Error).name})`)));
    });
  }

  private trySend(message: Message, failed: (e: unknown) => void = () => {}): void {
    try {
      const sent = this.send(message);
      if (sent instanceof Promise) sent.catch(failed);
    } catch (e) {
      failed(e);
    }
  }

  /** Whether `message` answers one of these requests (an id of ours, no method), maybe late. */
  isAnswer(message: unknown): boolean {
    const m = message as { id?: unknown; method?: unknown } | undefined;
    return typeof m?.id === 'string' && m.method === undefined && (this.pending.has(m.id) || this.late.has(m.id));
  }

  /** Settles the request `answer` (an answer per `isAnswer`) is for, with it or with the error; a late one is dropped. */
  settle(answer: Message, outcome: Error | Message = answer): void {
    if (this.late.delete(answer.id as string)) return;
    this.pending.get(answer.id as string)?.(outcome);
  }

  /** Fails every request still waiting (the other side is gone). */
  failAll(reason: string): void {
    for (const settle of [...this.pending.values()]) settle(new Error(reason));
  }
}
