// --guard for the HTTP paths (the filtering fetch, the proxy, serve): the checks of wrap --guard
// on each decoded message on its way to the server (U+FFFD in tools/call arguments, then the
// tool list and schemas), and tool lists learnt from what the server answers. Message-level:
// each caller feeds it messages and sends the answers it gives in its own way.

import { damagedCall, integrityReply } from '../guard/integrity.js';
import { type ListTools, remember, ToolCallGuard } from '../guard/tool.js';
import { type Id, isId, isRequest, type MaybePromise, type Message } from '../jsonrpc.js';

/** 'all': both guards (--guard); 'tools': tool names and schemas only (--guard-tools-only). */
export type GuardMode = 'all' | 'tools';

export class CallGuard {
  private readonly tools: ToolCallGuard;
  /** tools/list requests sent on and not answered yet: only their answers are read. */
  private readonly pendingLists = new Set<Id>();

  constructor(
    private readonly mode: GuardMode,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.tools = new ToolCallGuard({ onblock: (b) => log(`blocked tools/call ${JSON.stringify(b.toolName)}: ${b.reason}`) });
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
   */
  answer(m: unknown, ask?: ListTools): MaybePromise<Message | undefined> {
    if (typeof m !== 'object' || m === null) return undefined;
    const message = m as Message;
    if (this.mode === 'all') {
      const error = damagedCall(message);
      if (error) {
        this.log(`blocked tools/call${error.toolName === undefined ? '' : ` ${JSON.stringify(error.toolName)}`}: ${error.message}`);
        return integrityReply((message as { id: Id }).id, error, 'result');
      }
    }
    const answer = this.tools.outgoing(message, ask);
    const passed = (a: Message | undefined) => {
      if (!a && isRequest(message) && message.method === 'tools/list') remember(this.pendingLists, message.id);
      return a;
    };
    return answer instanceof Promise ? answer.then(passed) : passed(answer);
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

/** What a guard made of a request body: answers for the blocked requests and what goes on. */
export interface Screened {
  batch: boolean;
  answers: Message[];
  /** The messages that pass (all of them when nothing was blocked). */
  rest: unknown[];
  /** Their positions in the batch. */
  passed: number[];
  /** Whether any message that passes asks for an answer. */
  restHasRequests: boolean;
}

/** Runs every message of a decoded body (a message or a batch) past the guard. */
export async function screen(guard: CallGuard, body: unknown, ask?: ListTools): Promise<Screened> {
  const batch = Array.isArray(body);
  const messages = batch ? (body as unknown[]) : [body];
  const verdicts = await Promise.all(messages.map((m) => guard.answer(m, ask)));
  const passed = messages.flatMap((_, i) => (verdicts[i] === undefined ? [i] : []));
  const rest = passed.map((i) => messages[i]);
  const restHasRequests = rest.some((m) => isRequest(m as Message));
  return { batch, answers: verdicts.filter((a): a is Message => a !== undefined), rest, passed, restHasRequests };
}
