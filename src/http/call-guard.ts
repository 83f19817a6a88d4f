// --guard for the HTTP paths (the filtering fetch, the proxy, serve): the verdict of wrap --guard
// (guard/verdict.ts: U+FFFD in tools/call arguments with mode 'all', then the tool list and
// schemas) on each decoded message on its way to the server, and tool lists learnt from what the
// server answers; a call to confirm is held aside (`at.aside`) while asked. Message-level:
// each caller feeds it messages and sends the answers it gives in its own way. With `roots`,
// path arguments are confined too; with `onAudit`, each tools/call judged is told, with the
// request's id as written and its session, before its answer is given or it goes on.

import { auditEntry, type OnAudit } from '../guard/audit.js';
import type { AskUser } from '../guard/confirm.js';
import { DROPPED, type Dropped, droppedEntry } from '../guard/drop.js';
import type { OwnRequests } from '../guard/own-requests.js';
import type { Realpath } from '../guard/paths.js';
import { type ListTools, remember, ToolCallGuard } from '../guard/tool.js';
import { afterConfirm, callVerdict, type Verdict, type VerdictRules, verdictAudit, verdictReply } from '../guard/verdict.js';
import { type Id, isId, isRequest, type MaybePromise, type Message } from '../jsonrpc/message.js';

/** 'all': both guards (--guard); 'tools': tool names and schemas only (--guard-tools-only). */
export type GuardMode = 'all' | 'tools';

/** What a guard on HTTP checks besides tool names and schemas, and whom it tells. */
export interface CallGuardOptions {
  /** Folders path arguments must stay in (absolute; see guard/paths.ts); 'client': the roots the client lists (a caller that gives `client`). */
  roots?: readonly string[] | 'client';
  /** This machine's realpath, where the server runs here (serve): symlinks are followed. */
  realpath?: Realpath;
  /** Told each tools/call judged (allowed or blocked), before its answer or the call goes on. */
  onAudit?: OnAudit;
  /** Calls the user must confirm first (tool names, 'destructive'; see guard/confirm.ts). */
  confirm?: readonly string[];
  /** Asks the user about such a call where the guard cannot ask the client itself (no `client` given). */
  askUser?: AskUser;
  /** How long the client has to answer a confirmation it is asked for (see guard/confirm.ts). */
  confirmTimeoutMs?: number;
}

/** Where a message came from, for the trail: its id as written and its session. */
export interface CallContext {
  /** The id's JSON text as the client wrote it (default: the parsed id's). */
  request?: string | undefined;
  /** The Mcp-Session-Id it came with (null or undefined: none). */
  session?: string | null | undefined;
  /**
   * The guard's own requests to the client, where the caller can send them (serve): a
   * confirmation (`elicitation/create`), the client's roots (`roots/list`).
   */
  client?: OwnRequests | undefined;
  /** Told when the call waits for the user (the messages after it need not wait). */
  aside?: (() => void) | undefined;
}

export class CallGuard {
  private readonly tools: ToolCallGuard;
  private readonly rules: VerdictRules;
  /** tools/list requests sent on and not answered yet: only their answers are read. */
  private readonly pendingLists = new Set<Id>();

  constructor(
    mode: GuardMode,
    private readonly log: (line: string) => void = () => {},
    private readonly options: CallGuardOptions = {},
  ) {
    const { roots, realpath, confirm, askUser, confirmTimeoutMs } = options;
    this.tools = new ToolCallGuard({ ...(roots ? { roots, realpath } : {}), ...(confirm ? { confirm, askUser, confirmTimeoutMs } : {}) });
    this.rules = { integrity: mode === 'all', tools: this.tools };
  }

  /** Whether decisions are told (then callers give each message's context). */
  get audits(): boolean {
    return this.options.onAudit !== undefined;
  }

  /** True while a tools/list answer is awaited (responses must then be read). */
  get awaitingList(): boolean {
    return this.pendingLists.size > 0;
  }

  /** Whether the server's current tool list is known (else a call to a tool not in it asks or blocks). */
  get knowsList(): boolean {
    return this.tools.knowsList;
  }

  /** About how many bytes the tool list held takes (for a bound on what sessions keep). */
  get listBytes(): number {
    return this.tools.listBytes;
  }

  /**
   * A decoded message on its way to the server: the answer to give the client instead, or
   * undefined to send it on. Synchronous unless the schema compiler must load first or the tool
   * list is asked for (`ask`: one page of it from the server, with this request's session).
   * DROPPED for a tools/call without an id (guard/drop.ts): send nothing, answer nothing.
   */
  answer(m: unknown, ask?: ListTools, at: CallContext = {}): MaybePromise<Message | Dropped | undefined> {
    if (typeof m !== 'object' || m === null) return undefined;
    const message = m as Message;
    const v = callVerdict(message, this.rules, ask);
    if (!v) {
      this.tools.note(message, at.client); // (learns tools/list requests, asks roots; never blocks these)
      if (isRequest(message) && message.method === 'tools/list') remember(this.pendingLists, message.id);
      return undefined;
    }
    const act = (w: Verdict): MaybePromise<Message | Dropped | undefined> => {
      if (w.kind === 'drop') {
        this.log(w.line);
        this.options.onAudit?.(droppedEntry({ toolName: w.tool, reason: w.reason }, at.session));
        return DROPPED;
      }
      const id = (message as { id: Id }).id;
      if (w.kind !== 'ask-first') return this.settle(w, id, at);
      // A call the confirm rule names waits for the client's user (or askUser); the messages after it need not.
      const confirmed = this.tools.confirmCall(w.request, at.client, id).then((r) => this.settle(afterConfirm(w.tool, r), id, at));
      at.aside?.();
      return confirmed;
    };
    return v instanceof Promise ? v.then(act) : act(v);
  }

  /** Tells the trail of a final verdict, logs a block, and gives its answer (undefined: send it on). */
  private settle(v: Verdict, id: Id, at: CallContext): Message | undefined {
    this.options.onAudit?.(auditEntry(at.request ?? JSON.stringify(id), v.tool, verdictAudit(v), at.session));
    if (v.kind !== 'block') return undefined;
    this.log(v.line);
    return verdictReply(id, v);
  }

  /** Whether a message from the server (as the client sees it: ids and methods are never encoded) teaches the guard anything. */
  wants(m: unknown): boolean {
    if (typeof m !== 'object' || m === null) return false;
    const o = m as { id?: unknown; method?: unknown };
    return o.method === 'notifications/tools/list_changed' || (o.method === undefined && isId(o.id) && this.pendingLists.has(o.id));
  }

  /** A message from the server, with its real (decoded) values. */
  learn(m: unknown): void {
    if (!this.wants(m)) return;
    const o = m as { id?: unknown };
    if (isId(o.id)) this.pendingLists.delete(o.id);
    this.tools.incoming(m as Message);
  }
}

/** What a guard made of a request body: answers for the blocked requests, what goes on, and what is dropped. */
export interface Screened {
  batch: boolean;
  answers: Message[];
  /** The positions of the answered messages in the batch (one per answer). */
  answered: number[];
  /** How many were dropped (guard/drop.ts): neither sent on nor answered. */
  dropped: number;
  /** The messages that pass (all of them when nothing was blocked). */
  rest: unknown[];
  /** Their positions in the batch. */
  passed: number[];
  /** Whether any message that passes asks for an answer. */
  restHasRequests: boolean;
}

/**
 * Runs every message of a decoded body (a message or a batch) past the guard; `ids` (the ids as
 * written, by position) and `session` go to the trail.
 */
export async function screen(
  guard: CallGuard,
  body: unknown,
  ask?: ListTools,
  ids: readonly ({ text: string } | undefined)[] = [],
  session?: string | null,
): Promise<Screened> {
  const batch = Array.isArray(body);
  const messages = batch ? (body as unknown[]) : [body];
  const verdicts = await Promise.all(messages.map((m, k) => guard.answer(m, ask, { request: ids[k]?.text, session })));
  const at = (kind: (v: Message | Dropped | undefined) => boolean) => messages.flatMap((_, i) => (kind(verdicts[i]) ? [i] : []));
  const passed = at((v) => v === undefined);
  const answered = at((v) => v !== undefined && v !== DROPPED);
  const rest = passed.map((i) => messages[i]);
  const restHasRequests = rest.some((m) => isRequest(m as Message));
  const answers = answered.map((i) => verdicts[i] as Message);
  return { batch, answers, answered, dropped: messages.length - passed.length - answered.length, rest, passed, restHasRequests };
}
