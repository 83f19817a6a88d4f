// wrap --guard: the verdict on each tools/call from the client, after decoding (the values the
// tools and schemas see; guard/verdict.ts: U+FFFD first, then the tool list, schemas and roots,
// then --confirm), with wrap's way of acting on it: the log line at once, the answer under the
// id, the question to the client asked for a whole line at a time (`confirmed`).
import { auditEntry, type OnAudit } from '../guard/audit.js';
import type { OwnRequests } from '../guard/own-requests.js';
import type { ToolCallGuard } from '../guard/tool.js';
import { afterConfirm, callVerdict, type Verdict, type VerdictRules, verdictAudit, verdictReply } from '../guard/verdict.js';
import type { MaybePromise, Message } from '../jsonrpc/message.js';
import type { RawId } from '../jsonrpc/raw-id.js';

/** The verdict on one tools/call, and the answer to give when it is a block. */
export interface Judgement {
  verdict: Verdict;
  /** The call's id (undefined for a call dropped: it has none). */
  id?: string | number;
  reply?: Message;
}

export class CallJudge {
  private readonly rules: VerdictRules;

  constructor(
    /** The tool guard, when tools are checked. */
    private readonly tools: ToolCallGuard | undefined,
    /** Whether arguments are checked for U+FFFD. */
    integrity: boolean,
    private readonly log: (line: string) => void,
  ) {
    this.rules = { integrity, tools };
  }

  /**
   * The judgement of one message from the client; undefined for anything but a tools/call (the
   * tool guard learns from those: tools/list requests, and asks the client's roots).
   * `server`: the guard's own requests to the server; `client`, to the client.
   */
  judge(m: Message, server: OwnRequests, client: OwnRequests): MaybePromise<Judgement | undefined> {
    if (typeof m !== 'object' || m === null) return undefined;
    const v = callVerdict(m, this.rules, server.ask);
    if (!v) {
      this.tools?.note(m, client); // (never blocks these)
      return undefined;
    }
    const id = (m as { id?: string | number }).id;
    return v instanceof Promise ? v.then((w) => this.judged(w, id)) : this.judged(v, id);
  }

  /** Logs a block or a drop at once, and writes a block's answer. */
  private judged(verdict: Verdict, id: string | number | undefined): Judgement {
    if (verdict.kind === 'drop') {
      this.log(verdict.line);
      return { verdict };
    }
    if (verdict.kind !== 'block') return { verdict, id };
    this.log(verdict.line);
    return { verdict, id, reply: verdictReply(id!, verdict) };
  }

  /** Each judgement that needs it, once the client has confirmed (or declined: then blocked). */
  confirmed(checked: (Judgement | undefined)[], client: OwnRequests): Promise<(Judgement | undefined)[]> {
    return Promise.all(
      checked.map((j) => {
        const v = j?.verdict;
        if (v?.kind !== 'ask-first') return j;
        return this.tools!.confirmCall(v.request, client, j!.id).then((r) => this.judged(afterConfirm(v.tool, r), j!.id));
      }),
    );
  }
}

/** Tells `audit` of each call judged, under its id as written (`ids`, read from the line), else as parsed. */
export function auditJudgements(audit: OnAudit, settled: (Judgement | undefined)[], messages: Message[], ids: (RawId | undefined)[]): void {
  settled.forEach((j, k) => {
    if (!j) return;
    // (a dropped call has no id to name)
    const request = j.verdict.kind === 'drop' ? undefined : (ids[k]?.text ?? JSON.stringify((messages[k] as { id?: unknown }).id));
    audit(auditEntry(request, j.verdict.tool, verdictAudit(j.verdict)));
  });
}
