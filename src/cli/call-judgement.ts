// wrap --guard: the judgement of each tools/call from the client, after decoding (the values
// the tools and schemas see): U+FFFD first (the integrity guard), then the tool list, schemas
// and roots (the tool guard), then --confirm (the client is asked). Its answer when blocked,
// and what the audit trail says of it.
import { type AuditDecision, type AuditRule, auditEntry, jsonPointer, type OnAudit } from '../guard/audit.js';
import type { ConfirmRequest } from '../guard/confirm.js';
import { droppedCall, droppedText } from '../guard/drop.js';
import { damagedCall, damagedLine, integrityReply } from '../guard/integrity.js';
import type { OwnRequests } from '../guard/own-requests.js';
import { blockedReply } from '../guard/reply.js';
import { type BlockedCall, blockedLine, blockedText, type ToolCallGuard } from '../guard/tool.js';
import { isRequest, type MaybePromise, type Message } from '../jsonrpc/message.js';
import type { RawId } from '../jsonrpc/raw-id.js';

/** The guard's judgement of one tools/call: its answer when blocked, and why. */
export interface Judgement {
  tool: string;
  reply?: Message;
  rule?: AuditRule;
  decision?: Exclude<AuditDecision, 'allowed'>;
  paths?: string[];
  /** A tools/call without an id (guard/drop.ts): neither sent on nor answered. */
  drop?: true;
  /** Passed the checks; must be confirmed first (`id`: the call's, for the answer). */
  confirm?: { request: ConfirmRequest; id: string | number };
}

export class CallJudge {
  constructor(
    /** The tool guard, when tools are checked. */
    private readonly tools: ToolCallGuard | undefined,
    /** Whether arguments are checked for U+FFFD. */
    private readonly integrity: boolean,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * The judgement of one message from the client; undefined for anything but a tools/call (the
   * tool guard learns from those: tools/list requests, and asks the client's roots).
   * `server`: the guard's own requests to the server; `client`, to the client.
   */
  judge(m: Message, server: OwnRequests, client: OwnRequests): MaybePromise<Judgement | undefined> {
    if (typeof m !== 'object' || m === null) return undefined;
    const dropped = droppedCall(m);
    if (dropped) {
      this.log(droppedText(dropped));
      return { tool: dropped.toolName, drop: true, rule: 'malformed' };
    }
    if (!isRequest(m) || m.method !== 'tools/call') {
      this.tools?.outgoing(m, server.ask, client); // (never blocks these)
      return undefined;
    }
    const tool = String(m.params?.name);
    if (this.integrity) {
      const error = damagedCall(m);
      if (error) {
        this.log(damagedLine(error));
        const paths = error.reports.map((r) => jsonPointer(r.path));
        return { tool, reply: integrityReply(m.id, error, 'result'), rule: 'damaged', paths };
      }
    }
    const tools = this.tools;
    if (!tools) return { tool };
    const judged = (b: BlockedCall | undefined): Judgement => {
      if (!b) {
        const request = tools.confirmation(m);
        return request ? { tool, confirm: { request, id: m.id } } : { tool };
      }
      this.log(blockedLine(b));
      const reply = blockedReply(m.id, undefined, blockedText(b));
      return { tool, reply, rule: b.rule, ...(b.path === undefined ? {} : { paths: [b.path] }) };
    };
    const v = tools.checkCall(m, server.ask);
    return v instanceof Promise ? v.then(judged) : judged(v);
  }

  /** Each judgement that needs it, once the client has confirmed (or declined: then blocked). */
  confirmed(checked: (Judgement | undefined)[], client: OwnRequests): Promise<(Judgement | undefined)[]> {
    return Promise.all(
      checked.map((j) =>
        j?.confirm
          ? this.tools!.confirmCall(j.confirm.request, client, j.confirm.id).then((b): Judgement => {
              if (!b) return { tool: j.tool, rule: 'confirm', decision: 'confirmed' };
              this.log(blockedLine(b));
              const reply = blockedReply(j.confirm!.id, undefined, blockedText(b));
              return { tool: j.tool, reply, rule: 'confirm', ...(b.decision ? { decision: b.decision } : {}) };
            })
          : j,
      ),
    );
  }
}

/** Tells `audit` of each call judged, under its id as written (`ids`, read from the line), else as parsed. */
export function auditJudgements(audit: OnAudit, settled: (Judgement | undefined)[], messages: Message[], ids: (RawId | undefined)[]): void {
  settled.forEach((j, k) => {
    if (!j) return;
    // (a dropped call has no id to name)
    const request = j.drop ? undefined : (ids[k]?.text ?? JSON.stringify((messages[k] as { id?: unknown }).id));
    audit(auditEntry(request, j.tool, j.rule && { rule: j.rule, decision: j.decision, paths: j.paths }));
  });
}
