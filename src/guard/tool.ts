// The tool-call guard, free of any transport: a tools/call is checked before it leaves: the
// tool must be in the list the server last gave, its arguments must satisfy the tool's
// inputSchema, its path arguments must stay inside the host's roots (paths.ts, or the client's:
// client-roots.ts), and the host's own policy must allow it; then a call the confirm rule names
// goes on only once the user said yes (confirm.ts). A blocked call is answered locally,
// by default with a tool result the model can read (isError: true), or with JSON-RPC error
// -32602 (reply: 'error'); either says what was blocked and why, never argument content.
// The SDK transport (mcp/), the CLI and the HTTP pieces all run these checks, through the one
// verdict on a call (verdict.ts).
import { isNotification, isRequest, type MaybePromise, type Message } from '../jsonrpc/message.js';
import { auditEntry, type OnAudit } from './audit.js';
import { ClientRoots } from './client-roots.js';
import {
  type AskUser,
  CONFIRM_TIMEOUT_MS,
  type ConfirmRequest,
  canElicitForm,
  confirm,
  elicitingAsker,
  needsConfirmation,
} from './confirm.js';
import { DROPPED, type Dropped, droppedEntry } from './drop.js';
import type { ListTools, OwnRequests } from './own-requests.js';
import { type OutsideRoots, type Realpath, Roots } from './paths.js';
import type { GuardReply } from './reply.js';
import { loadSchemaCompiler, schemaCompilerLoaded, schemaProblem } from './schema.js';
import { afterConfirm, type BlockedCall, type CallChecks, callVerdict, type Verdict, verdictAudit, verdictReply } from './verdict.js';

export { type BlockedCall, blockedLine, blockedText } from './verdict.js';

export interface ToolCallGuardOptions {
  /** The host's own rules; return { allow: false, reason } to block a call. */
  policy?: (toolName: string, args: Record<string, unknown>) => { allow: true } | { allow: false; reason: string };
  /** Told about every blocked call, for logs. */
  onblock?: (blocked: BlockedCall) => void;
  /** Told about every tools/call judged, allowed or blocked (`request`: the parsed id's JSON text). */
  onAudit?: OnAudit;
  /** 'result' (default): a CallToolResult with isError: true; 'error': JSON-RPC error -32602. */
  reply?: GuardReply;
  /**
   * Folders the tools may work in (absolute paths, all POSIX or all Windows): a call whose path
   * argument (see the rule in docs/MCP.md) resolves outside every one is blocked. Relative paths are
   * taken against the first. 'client': the roots the client lists (see client-roots.ts), asked
   * for by a transport that can send the client a request.
   */
  roots?: readonly string[] | 'client';
  /**
   * Where the server runs on this machine: the real path of an existing path (undefined when it
   * does not exist; throw when it cannot tell), so that symlinks are followed. Without it the
   * check is lexical. Give real paths as `roots` then.
   */
  realpath?: Realpath;
  /**
   * Calls the user must confirm first: tool names, and 'destructive' for every tool whose
   * listed annotations say `destructiveHint: true` and not `readOnlyHint: true`. Asked with an
   * `elicitation/create` where the client declared `elicitation` and the transport can send
   * it, else with `askUser`; a call nobody can be asked about is blocked. `outgoing` asks;
   * `check` and `checkAsync` do not (a caller of theirs asks with `confirmation` and
   * `confirmCall`).
   */
  confirm?: readonly string[];
  /** Asks the user about a call (`confirm`) where the client cannot be asked; true lets it go on. */
  askUser?: AskUser;
  /** How long an `elicitation/create` waits for the user (default CONFIRM_TIMEOUT_MS, 55 s). */
  confirmTimeoutMs?: number;
  /**
   * Block a call whose arguments hold U+FFFD or lone surrogates first, as `wrap --guard` does
   * (rule 'damaged', in the trail). Default false: on the SDK that is IntegrityGuardTransport's.
   */
  integrity?: boolean;
}

interface Tool {
  name: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { destructiveHint?: unknown; readOnlyHint?: unknown };
}

export type { ListTools } from './own-requests.js';

/** tools/list requests remembered while unanswered (an unanswered one is forgotten past it). */
export const MAX_PENDING_LISTS = 64;

/** Adds `id` to `pending`, forgetting the oldest past MAX_PENDING_LISTS (memory stays bounded). */
export function remember(pending: Set<string | number>, id: string | number): void {
  pending.add(id);
  if (pending.size > MAX_PENDING_LISTS) pending.delete(pending.values().next().value!);
}

/** Calls that may wait for a confirmation at once (each holds its message; past it, one is refused). */
export const MAX_CONFIRMING = 16;

/** Pages a list learnt by asking may have (a server whose cursors never end is refused). */
const MAX_LIST_PAGES = 1000;

const hasSchema = (tool: Tool | undefined): tool is Tool & { inputSchema: Record<string, unknown> } =>
  typeof tool?.inputSchema === 'object' && tool.inputSchema !== null;

/** The guard's state and checks, independent of any transport (the CLI proxy uses it too). */
export class ToolCallGuard implements CallChecks {
  private tools: Map<string, Tool> | null = null; // null until a complete list was seen
  private collecting: Map<string, Tool> | null = null;
  private stale = false;
  /** list_changed notifications seen (a list asked for before the last one is stale). */
  private changes = 0;
  /** The list being learnt by asking, shared by the calls that wait for it. */
  private asking: Promise<void> | undefined;
  private readonly listRequests = new Set<string | number>();
  /** About how many bytes the current list holds (its JSON), for callers that bound memory. */
  listBytes = 0;
  private readonly roots: Roots | ClientRoots | undefined;
  /** Calls waiting for the user's answer. */
  private confirming = 0;
  /** Those of them the client may cancel, by their id's JSON text. */
  private readonly cancellable = new Map<string, AbortController>();
  /** The capabilities the client declared in its `initialize` (what it can be asked). */
  private clientCapabilities: unknown;

  constructor(private readonly options: ToolCallGuardOptions = {}) {
    const { roots, realpath } = options;
    this.roots = roots === 'client' ? new ClientRoots(realpath) : roots ? new Roots(roots, realpath) : undefined;
  }

  /** Loads the schema compiler (ajv), so that `check` can run synchronously. */
  static ready(): Promise<void> {
    return loadSchemaCompiler();
  }

  /** Why this call must not leave, or undefined (loads the schema compiler if needed). */
  async checkAsync(name: string, args: Record<string, unknown>, ask?: ListTools): Promise<BlockedCall | undefined> {
    return this.verdict(name, args, ask);
  }

  /** As `checkAsync`, synchronously: after `await ToolCallGuard.ready()` (throws if a schema needs the compiler before). */
  check(name: string, args: Record<string, unknown>): BlockedCall | undefined {
    const v = this.verdict(name, args);
    if (v instanceof Promise) throw new Error('the schema compiler is not loaded yet (await ToolCallGuard.ready() first)');
    return v;
  }

  /** Whether a complete tool list is known (and not changed since). */
  get knowsList(): boolean {
    return this.tools !== null && !this.stale;
  }

  /**
   * Synchronous unless a schema must be checked before the compiler has loaded, or the list
   * must be asked for. A guard that does not know the server's current list never lets an
   * unknown tool pass: it asks (`ask`, when the transport can), else it blocks with the reason.
   */
  private verdict(name: string, args: Record<string, unknown>, ask?: ListTools): MaybePromise<BlockedCall | undefined> {
    // After notifications/tools/list_changed the last list still holds for the tools in it
    // (checked against their last schema, so a session is not stranded); a tool not in it may be
    // new or made up: only the server's current list can say.
    const tool = this.tools?.get(name);
    if (!tool && !this.knowsList) {
      if (!ask)
        return { toolName: name, rule: 'unknown-tool', reason: `${this.unknownList()}; list the tools (tools/list), then call again` };
      return this.learnBy(ask).then(
        () => this.checkListed(name, args), // (the list just given holds, even if changed again since)
        (e: unknown) => ({
          toolName: name,
          rule: 'unknown-tool',
          reason: `${this.unknownList()}, and asking the server for it failed: ${(e as Error).message}`,
        }),
      );
    }
    return this.checkListed(name, args);
  }

  /** The checks against the list the guard holds. */
  private checkListed(name: string, args: Record<string, unknown>): MaybePromise<BlockedCall | undefined> {
    const tool = this.tools?.get(name);
    if (!tool)
      return { toolName: name, rule: 'unknown-tool', reason: `tool ${JSON.stringify(name)} is not in the server's current tool list` };
    if (hasSchema(tool) && !schemaCompilerLoaded()) return loadSchemaCompiler().then(() => this.checkListed(name, args));
    const problem = hasSchema(tool) ? schemaProblem(tool.inputSchema, args) : undefined;
    if (problem)
      return {
        toolName: name,
        rule: 'schema',
        reason: `arguments do not match the tool's inputSchema: ${problem.text}`,
        path: problem.path,
      };
    const outside = this.roots?.check(args, tool.inputSchema);
    return outside instanceof Promise ? outside.then((o) => this.checkPolicy(name, args, o)) : this.checkPolicy(name, args, outside);
  }

  private checkPolicy(name: string, args: Record<string, unknown>, outside: OutsideRoots | undefined): BlockedCall | undefined {
    if (outside) return { toolName: name, rule: 'outside-roots', reason: outside.reason, path: outside.pointer };
    const verdict = this.options.policy?.(name, args);
    if (verdict && !verdict.allow) return { toolName: name, rule: 'policy', reason: `blocked by policy: ${verdict.reason}` };
    return undefined;
  }

  private unknownList(): string {
    return this.tools ? "the server's tool list changed and was not listed again" : "the server's tool list is not known";
  }

  /** Learns the whole list by asking (all pages); calls waiting at once share one asking. */
  private learnBy(ask: ListTools): Promise<void> {
    if (!this.asking) {
      const asking = this.askAll(ask);
      this.asking = asking;
      const done = () => {
        if (this.asking === asking) this.asking = undefined;
      };
      asking.then(done, done);
    }
    return this.asking;
  }

  private async askAll(ask: ListTools): Promise<void> {
    const changes = this.changes;
    const into = new Map<string, Tool>();
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page === MAX_LIST_PAGES) throw new Error(`its tool list runs past ${MAX_LIST_PAGES} pages`);
      const result = (await ask(cursor)) as { tools?: unknown; nextCursor?: unknown } | null;
      if (typeof result !== 'object' || result === null || !Array.isArray(result.tools))
        throw new Error(`its tools/list answer (page ${page + 1}) holds no tools array`);
      for (const tool of result.tools as Tool[]) if (typeof tool?.name === 'string') into.set(tool.name, tool);
      if (typeof result.nextCursor !== 'string' || result.nextCursor === '') break;
      if (cursors.has(result.nextCursor)) throw new Error(`its tools/list cursors repeat (page ${page + 1})`);
      cursor = result.nextCursor;
      cursors.add(cursor);
    }
    this.adopt(into);
    // (a change announced while asking may not be in what was given)
    this.stale = this.changes !== changes;
  }

  /** A complete list becomes the current one. */
  private adopt(into: Map<string, Tool>): void {
    this.tools = into;
    this.stale = false;
    let bytes = 0;
    for (const tool of into.values()) bytes += JSON.stringify(tool)?.length ?? 0;
    this.listBytes = bytes;
    // Load the compiler now, while the host thinks: the first call then needs no wait.
    if ([...into.values()].some(hasSchema)) void loadSchemaCompiler().catch(() => {});
  }

  /**
   * A message on its way to the server: remembers tools/list requests; for a tools/call that
   * must not leave, gives the answer to give the caller instead (after reporting the block).
   * Synchronous unless the schema compiler must load first or the list is asked for (`ask`:
   * how this transport asks the server for a page of it; without it, an unknown list blocks),
   * or the client is asked (`client`: this transport's own requests to it; a confirmation, the
   * client's roots; without it, askUser confirms and roots: 'client' blocks path arguments).
   * DROPPED for a tools/call without an id (drop.ts): send nothing, answer nothing.
   */
  outgoing(message: Message, ask?: ListTools, client?: OwnRequests): MaybePromise<Message | Dropped | undefined> {
    const v = callVerdict(message, { integrity: this.options.integrity === true, tools: this }, ask);
    if (!v) {
      this.note(message, client);
      return undefined;
    }
    const id = (message as { id: string | number }).id;
    return v instanceof Promise ? v.then((w) => this.act(w, id, client)) : this.act(v, id, client);
  }

  /** Does what a verdict says: tells, answers, asks the user (the SDK's way: messages after wait). */
  private act(v: Verdict, id: string | number, client: OwnRequests | undefined): MaybePromise<Message | Dropped | undefined> {
    if (v.kind === 'drop') {
      const dropped = { toolName: v.tool, reason: v.reason };
      this.options.onAudit?.(droppedEntry(dropped));
      this.options.onblock?.({ ...dropped, rule: 'malformed' });
      return DROPPED;
    }
    if (v.kind === 'ask-first') return this.confirmCall(v.request, client, id).then((r) => this.answer(afterConfirm(v.tool, r), id));
    return this.answer(v, id);
  }

  private answer(v: Verdict, id: string | number): Message | undefined {
    this.options.onAudit?.(auditEntry(JSON.stringify(id), v.tool, verdictAudit(v)));
    if (v.kind !== 'block') return undefined;
    this.options.onblock?.(v.blocked);
    return verdictReply(id, v, this.options.reply);
  }

  /**
   * What the guard learns from a message to the server other than a tools/call: tools/list
   * requests, the client's capabilities, its roots (asked through `client`), cancellations.
   */
  note(message: Message, client?: OwnRequests): void {
    if (isNotification(message)) {
      if (this.roots instanceof ClientRoots) this.roots.notified(message, this.clientCapabilities, client);
      if (message.method === 'notifications/cancelled')
        this.cancellable.get(JSON.stringify((message.params as { requestId?: unknown } | undefined)?.requestId))?.abort();
    }
    if (!isRequest(message)) return;
    if (message.method === 'initialize') this.clientCapabilities = (message.params as { capabilities?: unknown })?.capabilities;
    if (message.method === 'tools/list') {
      remember(this.listRequests, message.id);
      if (!message.params?.cursor) this.collecting = new Map();
    }
  }

  /** What to ask the user before a call that passed the checks may leave, or undefined. */
  confirmation(message: Message): ConfirmRequest | undefined {
    const rule = this.options.confirm;
    if (!rule?.length) return undefined;
    const params = (message as { params?: { name?: unknown; arguments?: unknown } }).params ?? {};
    const name = String(params.name);
    if (!needsConfirmation(rule, this.tools?.get(name) ?? { name })) return undefined;
    const args = typeof params.arguments === 'object' && params.arguments !== null ? params.arguments : {};
    return { tool: name, argumentNames: Object.keys(args) };
  }

  /**
   * Asks the user (through `client`, the transport's own requests to the client, when the client
   * declared elicitation; else with the askUser option) and resolves with the block, or
   * undefined when the user confirmed.
   */
  async confirmCall(request: ConfirmRequest, client?: OwnRequests, id?: string | number): Promise<BlockedCall | undefined> {
    const ask =
      client && canElicitForm(this.clientCapabilities)
        ? elicitingAsker(client, this.options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS)
        : this.options.askUser;
    if (this.confirming >= MAX_CONFIRMING)
      return { toolName: request.tool, rule: 'confirm', reason: `${MAX_CONFIRMING} calls wait for a confirmation already` };
    this.confirming++;
    // (the client may cancel the call meanwhile: notifications/cancelled, see outgoing)
    const key = JSON.stringify(id);
    const abort = new AbortController();
    if (id !== undefined) this.cancellable.set(key, abort);
    const refused = await confirm(request, ask, abort.signal).finally(() => {
      this.confirming--;
      if (this.cancellable.get(key) === abort) this.cancellable.delete(key);
    });
    return refused && { toolName: request.tool, rule: 'confirm', decision: refused.decision, reason: refused.reason };
  }

  /** The verdict on a tools/call request (undefined: it may leave), without answering or telling. */
  checkCall(message: Message, ask?: ListTools): MaybePromise<BlockedCall | undefined> {
    const params = (message as { params?: { name?: unknown; arguments?: unknown } }).params ?? {};
    const given = params.arguments;
    // (MCP's arguments are an object: the checks below read names, and an array's are none)
    if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given)))
      return { toolName: String(params.name), rule: 'schema', reason: 'its arguments are not an object' };
    return this.verdict(String(params.name), (given ?? {}) as Record<string, unknown>, ask);
  }

  /** A message from the server: learns tool lists (all pages) and list changes. */
  incoming(message: Message): void {
    if (isNotification(message) && message.method === 'notifications/tools/list_changed') {
      this.stale = true;
      this.changes++;
    }
    const m = message as { id?: string | number; result?: { tools?: Tool[]; nextCursor?: string } };
    if (m.id === undefined || !this.listRequests.delete(m.id) || !m.result || !Array.isArray(m.result.tools)) return;
    const into = this.collecting ?? new Map<string, Tool>();
    for (const tool of m.result.tools) into.set(tool.name, tool);
    this.collecting = into;
    if (!m.result.nextCursor) {
      this.collecting = null;
      this.adopt(into);
    }
  }
}
