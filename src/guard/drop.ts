// The guard's third outcome, beside "send it on" and "answer it here": drop. A tools/call with
// no id MCP allows (sent as a notification, or with `"id": null` or an id that is not a string
// or number) is not a request MCP knows, yet a server may run it (hand-written ones do): a call
// no check saw. Nothing can answer it (an answer needs the id; JSON-RPC's `"id": null` answer
// means "the id could not be read", which no caller matches to its call, and JSON-RPC 1.0 servers
// take `"id": null` for a notification). So every guard path drops it: never sent on, never
// answered; the log names the tool, the trail says `blocked`, rule `malformed`, no request id.

import { isId } from '../jsonrpc/message.js';
import { type AuditEntry, auditEntry, inSession } from './audit.js';

/** What a guard's judgement gives for a message to drop (neither sent on nor answered). */
export const DROPPED: unique symbol = Symbol('dropped');
export type Dropped = typeof DROPPED;

/** A tools/call to drop: its tool's name (as blocks name it) and why. */
export interface DroppedCall {
  readonly toolName: string;
  readonly reason: string;
}

/** `m` as a tools/call to drop, or undefined (anything else: a request, another method). */
export function droppedCall(m: unknown): DroppedCall | undefined {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return undefined;
  const o = m as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  if (o.method !== 'tools/call' || isId(o.id)) return undefined;
  const why = !('id' in o)
    ? 'it has no id (sent as a notification)'
    : o.id === null
      ? 'its id is null'
      : 'its id is not a string or number';
  return {
    toolName: String(o.params?.name),
    reason: `${why}: a tools/call must be a request, and without an id it cannot be answered`,
  };
}

/** The log line for a dropped call (the tool's name, never its arguments). */
export const droppedText = (d: DroppedCall) => `dropped tools/call ${JSON.stringify(d.toolName)}: ${d.reason}`;

/** The trail's entry for a dropped call: blocked, rule `malformed`, no request id (it has none to name). */
export const droppedEntry = (d: DroppedCall, session?: string | null): AuditEntry =>
  inSession(auditEntry(undefined, d.toolName, { rule: 'malformed' }), session);
