// The tool-call guard, free of any transport: a tools/call is checked before it leaves: the
// tool must be in the list the server last gave, its arguments must satisfy the tool's
// inputSchema, and the host's own policy must allow it. A blocked call is answered locally,
// by default with a tool result the model can read (isError: true), or with JSON-RPC error
// -32602 (reply: 'error'); either says what was blocked and why, never argument content.
// The SDK transport (mcp/), the CLI and the HTTP pieces all run this one.
import { isNotification, isRequest, type MaybePromise, type Message } from '../jsonrpc.js';
import { blockedReply, type GuardReply } from './reply.js';
import { loadSchemaCompiler, schemaCompilerLoaded, schemaProblem } from './schema.js';

export interface BlockedCall {
  readonly toolName: string;
  readonly reason: string;
  /** JSON path of the offending argument, when the block is about one (e.g. "/content"). */
  readonly path?: string;
}

export interface ToolCallGuardOptions {
  /** The host's own rules; return { allow: false, reason } to block a call. */
  policy?: (toolName: string, args: Record<string, unknown>) => { allow: true } | { allow: false; reason: string };
  /** Told about every blocked call, for logs. */
  onblock?: (blocked: BlockedCall) => void;
  /** 'result' (default): a CallToolResult with isError: true; 'error': JSON-RPC error -32602. */
  reply?: GuardReply;
}

interface Tool {
  name: string;
  inputSchema?: Record<string, unknown>;
}

const hasSchema = (tool: Tool | undefined): tool is Tool & { inputSchema: Record<string, unknown> } =>
  typeof tool?.inputSchema === 'object' && tool.inputSchema !== null;

/** The text a blocked call is answered with. */
export const blockedText = (b: BlockedCall) =>
  `MCP tool call ${JSON.stringify(b.toolName)} was blocked before it reached the server: ${b.reason}`;

/** The guard's state and checks, independent of any transport (the CLI proxy uses it too). */
export class ToolCallGuard {
  private tools: Map<string, Tool> | null = null; // null until a complete list was seen
  private collecting: Map<string, Tool> | null = null;
  private stale = false;
  private readonly listRequests = new Set<string | number>();

  constructor(private readonly options: ToolCallGuardOptions = {}) {}

  /** Loads the schema compiler (ajv), so that `check` can run synchronously. */
  static ready(): Promise<void> {
    return loadSchemaCompiler();
  }

  /** Why this call must not leave, or undefined (loads the schema compiler if needed). */
  async checkAsync(name: string, args: Record<string, unknown>): Promise<BlockedCall | undefined> {
    return this.verdict(name, args);
  }

  /** As `checkAsync`, synchronously: after `await ToolCallGuard.ready()` (throws if a schema needs the compiler before). */
  check(name: string, args: Record<string, unknown>): BlockedCall | undefined {
    const v = this.verdict(name, args);
    if (v instanceof Promise) throw new Error('the schema compiler is not loaded yet (await ToolCallGuard.ready() first)');
    return v;
  }

  /** Synchronous unless a schema must be checked before the compiler has loaded. */
  private verdict(name: string, args: Record<string, unknown>): MaybePromise<BlockedCall | undefined> {
    // After notifications/tools/list_changed, until the host lists again, the last list still
    // holds for the tools in it (checked against their last schema); a tool not in it may be
    // new, so it passes and the server answers. A stale list never strands a session.
    const tool = this.tools?.get(name);
    if (this.tools && !tool && !this.stale)
      return { toolName: name, reason: `tool ${JSON.stringify(name)} is not in the server's current tool list` };
    if (hasSchema(tool) && !schemaCompilerLoaded()) return loadSchemaCompiler().then(() => this.verdict(name, args));
    const problem = hasSchema(tool) ? schemaProblem(tool.inputSchema, args) : undefined;
    if (problem) return { toolName: name, reason: `arguments do not match the tool's inputSchema: ${problem.text}`, path: problem.path };
    const verdict = this.options.policy?.(name, args);
    if (verdict && !verdict.allow) return { toolName: name, reason: `blocked by policy: ${verdict.reason}` };
    return undefined;
  }

  /**
   * A message on its way to the server: remembers tools/list requests; for a tools/call that
   * must not leave, gives the answer to give the caller instead (after reporting the block).
   * Synchronous unless the schema compiler must load first.
   */
  outgoing(message: Message): MaybePromise<Message | undefined> {
    if (!isRequest(message)) return undefined;
    if (message.method === 'tools/list') {
      this.listRequests.add(message.id);
      if (!message.params?.cursor) this.collecting = new Map();
      return undefined;
    }
    if (message.method !== 'tools/call') return undefined;
    const params = message.params ?? {};
    const name = String(params.name);
    const args = (typeof params.arguments === 'object' && params.arguments !== null ? params.arguments : {}) as Record<string, unknown>;
    const answer = (blocked: BlockedCall | undefined) => {
      if (!blocked) return undefined;
      this.options.onblock?.(blocked);
      return blockedReply(message.id, this.options.reply, blockedText(blocked));
    };
    const v = this.verdict(name, args);
    return v instanceof Promise ? v.then(answer) : answer(v);
  }

  /** A message from the server: learns tool lists (all pages) and list changes. */
  incoming(message: Message): void {
    if (isNotification(message) && message.method === 'notifications/tools/list_changed') this.stale = true;
    const m = message as { id?: string | number; result?: { tools?: Tool[]; nextCursor?: string } };
    if (m.id === undefined || !this.listRequests.delete(m.id) || !m.result || !Array.isArray(m.result.tools)) return;
    const into = this.collecting ?? new Map<string, Tool>();
    for (const tool of m.result.tools) into.set(tool.name, tool);
    this.collecting = into;
    if (!m.result.nextCursor) {
      this.tools = into;
      this.collecting = null;
      this.stale = false;
      // Load the compiler now, while the host thinks: the first call then needs no wait.
      if ([...into.values()].some(hasSchema)) void loadSchemaCompiler().catch(() => {});
    }
  }
}
