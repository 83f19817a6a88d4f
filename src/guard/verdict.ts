// The verdict on one tools/call, the same for every transport (the SDK wrapper, the HTTP pieces,
// wrap and serve): drop it (no id: drop.ts), block it (U+FFFD first, where this path checks it;
// then the tool list, schemas, roots and policy: tool.ts), ask the user first (the confirm rule),
// or let it go. A plain value: the verdict writes no log, no trail and no answer, and asks no
// user; each transport does those in its own way and at its own time (verdictReply,
// verdictAudit, the block's `line`). What it may wait for is what the checks read: the schema
// compiler, the server's list (through the transport's `ask`), the client's roots.

import { isRequest, type MaybePromise, type Message } from '../jsonrpc/message.js';
import { type AuditDecision, type AuditRule, jsonPointer } from './audit.js';
import type { ConfirmRequest } from './confirm.js';
import { droppedCall, droppedText } from './drop.js';
import { damagedCall, damagedLine } from './integrity.js';
import type { ListTools } from './own-requests.js';
import { blockedReply, type GuardReply } from './reply.js';

export interface BlockedCall {
  readonly toolName: string;
  readonly reason: string;
  /** Which check blocked it (decided where the block is, for a trail; see audit.ts). */
  readonly rule: AuditRule;
  /** JSON path of the offending argument, when the block is about one (e.g. "/content"). */
  readonly path?: string;
  /** How the trail names it: 'blocked' unless a confirmation was 'declined' or 'timed-out'. */
  readonly decision?: Exclude<AuditDecision, 'allowed' | 'confirmed'>;
}

/** The text a blocked call is answered with. */
export const blockedText = (b: BlockedCall) =>
  `MCP tool call ${JSON.stringify(b.toolName)} was blocked before it reached the server: ${b.reason}`;

/** The log line for a blocked call (the tool's name and why, never its arguments). */
export const blockedLine = (b: BlockedCall) => `blocked tools/call ${JSON.stringify(b.toolName)}: ${b.reason}`;

export interface Allow {
  readonly kind: 'allow';
  readonly tool: string;
  /** The user said yes (the verdict after an 'ask-first'). */
  readonly confirmed?: true;
}

export interface Block {
  readonly kind: 'block';
  readonly tool: string;
  /** Rule, reason and first JSON path, as `onblock` is told. */
  readonly blocked: BlockedCall;
  /** The JSON pointers of every argument concerned (U+FFFD may be in several). */
  readonly paths?: readonly string[];
  /** What the model reads: the answer's text (or error message). */
  readonly text: string;
  /** The error form's `data` (the integrity reports), where there is one. */
  readonly data?: unknown;
  /** The log line (the tool's name and why, never an argument's value). */
  readonly line: string;
}

export interface Drop {
  readonly kind: 'drop';
  readonly tool: string;
  readonly reason: string;
  readonly line: string;
}

export interface AskFirst {
  readonly kind: 'ask-first';
  readonly tool: string;
  /** What the user is asked about (the tool and its argument names). */
  readonly request: ConfirmRequest;
}

export type Verdict = Allow | Block | Drop | AskFirst;

/** The tool checks a verdict runs (ToolCallGuard's): list, schemas, roots, policy; the confirm rule. */
export interface CallChecks {
  checkCall(message: Message, ask?: ListTools): MaybePromise<BlockedCall | undefined>;
  confirmation(message: Message): ConfirmRequest | undefined;
}

/** What a path checks. */
export interface VerdictRules {
  /**
   * Whether U+FFFD and lone surrogates in arguments block the call here, before the tool checks
   * (wrap and serve --guard, the HTTP pieces' guard 'all'). A transport need, not a default: on
   * the SDK, IntegrityGuardTransport is a layer of its own that a host composes (also server
   * side), so ToolCallGuard leaves it to that unless given `integrity: true`.
   */
  readonly integrity: boolean;
  /** The tool checks; none in wrap's integrity-only guard. */
  readonly tools?: CallChecks | undefined;
}

/** A verdict blocking for `b`. */
export const blockVerdict = (b: BlockedCall): Block => ({
  kind: 'block',
  tool: b.toolName,
  blocked: b,
  ...(b.path === undefined ? {} : { paths: [b.path] }),
  text: blockedText(b),
  line: blockedLine(b),
});

/** The verdict once the user was asked (`refused`: ToolCallGuard.confirmCall's answer). */
export const afterConfirm = (tool: string, refused: BlockedCall | undefined): Allow | Block =>
  refused ? blockVerdict(refused) : { kind: 'allow', tool, confirmed: true };

/**
 * The verdict on `m`, or undefined for anything but a tools/call (which the transport passes on).
 * Synchronous unless a check waits (the schema compiler, the list through `ask`, the client's roots).
 */
export function callVerdict(m: unknown, rules: VerdictRules, ask?: ListTools): MaybePromise<Verdict> | undefined {
  const dropped = droppedCall(m);
  if (dropped) return { kind: 'drop', tool: dropped.toolName, reason: dropped.reason, line: droppedText(dropped) };
  if (!isRequest(m) || m.method !== 'tools/call') return undefined;
  const tool = String(m.params?.name);
  if (rules.integrity) {
    const error = damagedCall(m);
    if (error) {
      const paths = error.reports.map((r) => jsonPointer(r.path));
      return {
        kind: 'block',
        tool,
        blocked: { toolName: tool, rule: 'damaged', reason: error.message, ...(paths.length ? { path: paths[0] } : {}) },
        paths,
        text: error.message,
        data: { reports: error.reports, total: error.total },
        line: damagedLine(error),
      };
    }
  }
  const checks = rules.tools;
  if (!checks) return { kind: 'allow', tool };
  const judged = (b: BlockedCall | undefined): Verdict => {
    if (b) return blockVerdict(b);
    const request = checks.confirmation(m);
    return request ? { kind: 'ask-first', tool, request } : { kind: 'allow', tool };
  };
  const v = checks.checkCall(m, ask);
  return v instanceof Promise ? v.then(judged) : judged(v);
}

/** The answer to request `id` that a block gives, in the form asked for ('result' by default). */
export const verdictReply = (id: string | number, v: Block, form?: GuardReply): Message => blockedReply(id, form, v.text, v.data);

/** What the trail says of a verdict (auditEntry's `block`): undefined for a call allowed unasked. */
export function verdictAudit(
  v: Verdict,
): { rule: AuditRule; decision?: Exclude<AuditDecision, 'allowed'>; paths?: readonly string[] } | undefined {
  switch (v.kind) {
    case 'block':
      return { rule: v.blocked.rule, decision: v.blocked.decision, paths: v.paths };
    case 'drop':
      return { rule: 'malformed' };
    case 'allow':
      return v.confirmed ? { rule: 'confirm', decision: 'confirmed' } : undefined;
    default:
      return undefined;
  }
}
