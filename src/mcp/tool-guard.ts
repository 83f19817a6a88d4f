// ToolCallGuardTransport: a tools/call is checked at the client boundary before it leaves:
// the tool must be in the list the server last gave, its arguments must satisfy the tool's
// inputSchema, and the host's own policy must allow it. A blocked call is answered locally
// with JSON-RPC error -32602 that says what was blocked and why (never argument content).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { INVALID_PARAMS } from './filtering.js';
import { linearPattern, neutralisePatternProperties } from './linear-pattern.js';
import { errorResponse, isNotification, isRequest, TransportWrapper, type Message } from './wrapper.js';

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
}

interface Tool {
  name: string;
  inputSchema?: Record<string, unknown>;
}

// `pattern`, `patternProperties` and `propertyNames` patterns are the server's: they run on
// re2js (linear time), never on a backtracking engine; see linear-pattern.ts.
const AJV_OPTIONS = { allErrors: false, strict: false, validateFormats: false, code: { regExp: linearPattern } };
let ajv: Ajv | undefined; // created on first use: most hosts never see an inputSchema
let ajv2020: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** Each schema object is compiled once. */
function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
    const { $schema: _ignored, ...rest } = schema;
    const checkable = neutralisePatternProperties(is2020 ? schema : rest) as Record<string, unknown>;
    v = is2020 ? (ajv2020 ??= new Ajv2020(AJV_OPTIONS)).compile(checkable) : (ajv ??= new Ajv(AJV_OPTIONS)).compile(checkable);
    compiled.set(schema, v);
  }
  return v;
}

/** The guard's state and checks, independent of any transport (the CLI proxy uses it too). */
export class ToolCallGuard {
  private tools: Map<string, Tool> | null = null; // null until a complete list was seen
  private collecting: Map<string, Tool> | null = null;
  private stale = false;
  private readonly listRequests = new Set<string | number>();

  constructor(private readonly options: ToolCallGuardOptions = {}) {}

  /** Why this call must not leave, or undefined. */
  check(name: string, args: Record<string, unknown>): BlockedCall | undefined {
    if (this.tools) {
      // After notifications/tools/list_changed the list cannot be trusted for any tool (the
      // one called may be the one removed) until the host lists the tools again.
      if (this.stale) return { toolName: name, reason: `the server's tool list changed since it was last fetched (stale); list the tools again before calling ${JSON.stringify(name)}` };
      const tool = this.tools.get(name);
      if (!tool) return { toolName: name, reason: `tool ${JSON.stringify(name)} is not in the server's current tool list` };
      if (tool.inputSchema) {
        const validate = validatorFor(tool.inputSchema);
        if (!validate(args)) {
          const e = validate.errors![0]!;
          const path = e.keyword === 'required' ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}` : e.instancePath || '/';
          return { toolName: name, reason: `arguments do not match the tool's inputSchema: ${path} ${e.message} (rule "${e.keyword}")`, path };
        }
      }
    }
    const verdict = this.options.policy?.(name, args);
    if (verdict && !verdict.allow) return { toolName: name, reason: `blocked by policy: ${verdict.reason}` };
    return undefined;
  }

  /**
   * A message on its way to the server: remembers tools/list requests; for a tools/call that
   * must not leave, returns the error response to give the caller instead.
   */
  outgoing(message: Message): Message | undefined {
    if (!isRequest(message)) return undefined;
    if (message.method === 'tools/list') {
      this.listRequests.add(message.id);
      if (!message.params?.cursor) this.collecting = new Map();
      return undefined;
    }
    if (message.method !== 'tools/call') return undefined;
    const params = message.params ?? {};
    const name = String(params.name);
    const blocked = this.check(name, (params.arguments ?? {}) as Record<string, unknown>);
    if (!blocked) return undefined;
    this.options.onblock?.(blocked);
    return errorResponse(message.id, INVALID_PARAMS, `MCP tool call ${JSON.stringify(name)} was blocked before it reached the server: ${blocked.reason}`);
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
    }
  }
}

/**
 * Client side: Client -> (PayloadFilteringTransport) -> ToolCallGuardTransport -> transport.
 * Before any tool list was seen, calls pass.
 */
export class ToolCallGuardTransport extends TransportWrapper {
  readonly guard: ToolCallGuard;

  constructor(inner: Transport, options: ToolCallGuardOptions = {}) {
    super(inner);
    this.guard = new ToolCallGuard(options);
  }

  protected outgoing(message: Message): Message | undefined {
    const reply = this.guard.outgoing(message);
    if (!reply) return message;
    this.answerLocally(reply); // never sent
    return undefined;
  }

  protected incoming(message: Message, extra?: MessageExtraInfo): void {
    this.guard.incoming(message);
    this.deliver(message, extra);
  }
}
