// CallTimeoutTransport: call time limits (guard/call-timer.ts) at the client boundary of an SDK
// transport. A request sent that has no answer within the limit is answered to the client
// through onmessage (a tools/call with an isError result, anything else with error -32001), the
// server is sent notifications/cancelled through the inner transport, and its late answer is
// never delivered. Progress for the request restarts its timer, up to the max.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { OnAudit } from '../guard/audit.js';
import { CallTimer, type TimedOut } from '../guard/call-timer.js';
import { type Message, TransportWrapper } from './wrapper.js';

export interface CallTimeoutTransportOptions {
  /** Answer a request the server leaves unanswered this long (milliseconds). */
  callTimeoutMs: number;
  /** How long progress notifications may keep a request going in all; default 10 times callTimeoutMs. */
  callTimeoutMaxMs?: number;
  /** Told each request answered for the server, before its answer is delivered. */
  onAudit?: OnAudit;
  /** One line per timeout and dropped late answer (never payload text). */
  onLog?: (line: string) => void;
}

type Fields = { id?: unknown; method?: unknown; params?: Record<string, unknown> };

/** An id's key as the timer reads it: its JSON text (the SDK's messages hold parsed ids). */
const idText = (id: unknown) => (typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined);
const each = (message: Message) => (Array.isArray(message) ? (message as Fields[]) : [message as Fields]);

/**
 * Client side: Client -> (PayloadFilteringTransport) -> CallTimeoutTransport -> transport, so the
 * answers it makes are encoded like the server's on their way up.
 */
export class CallTimeoutTransport extends TransportWrapper {
  private readonly timer: CallTimer;

  constructor(inner: Transport, options: CallTimeoutTransportOptions) {
    super(inner);
    this.timer = new CallTimer({
      limitMs: options.callTimeoutMs,
      maxMs: options.callTimeoutMaxMs,
      log: options.onLog,
      onAudit: options.onAudit,
      onTimeout: (t) => this.timedOut(t),
    });
    const closed = inner.onclose;
    inner.onclose = () => {
      this.timer.stop();
      closed?.();
    };
  }

  override close(): Promise<void> {
    this.timer.stop();
    return super.close();
  }

  protected outgoing(message: Message): Message {
    for (const m of each(message)) {
      const raw = idText(m.id);
      if (typeof m.method !== 'string' || raw === undefined) continue;
      const meta = m.params?._meta as { progressToken?: unknown } | undefined;
      this.timer.track(raw, m.method, m.method === 'tools/call' ? String(m.params?.name) : undefined, idText(meta?.progressToken));
    }
    return message;
  }

  protected incoming(message: Message, extra?: MessageExtraInfo): void {
    const batch = Array.isArray(message) ? (message as Message[]) : undefined;
    const kept = each(message).filter((m) => {
      if (m.method === 'notifications/progress') {
        const token = idText(m.params?.progressToken);
        if (token !== undefined) this.timer.progress(token);
        return true;
      }
      const raw = m.method === undefined ? idText(m.id) : undefined;
      return raw === undefined || !this.timer.answered(raw);
    }) as Message[];
    if (batch ? kept.length : kept.length === 1) this.deliver(batch ? (kept as unknown as Message) : kept[0]!, extra);
  }

  /** The client gets the answer (under the id it sent: a parsed value), the server the cancellation. */
  private timedOut(t: TimedOut): void {
    this.deliver({ ...t.answer, id: JSON.parse(t.raw) } as Message);
    this.inner.send(JSON.parse(t.cancel) as Message).catch((e: Error) => this.onerror?.(e));
  }
}
