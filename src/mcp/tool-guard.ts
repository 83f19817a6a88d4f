// ToolCallGuardTransport: the tool-call guard (guard/tool.ts) at the client boundary of an SDK
// transport.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { OwnRequests } from '../guard/own-requests.js';
import { ToolCallGuard, type ToolCallGuardOptions } from '../guard/tool.js';
import type { MaybePromise } from '../jsonrpc.js';
import { type Message, TransportWrapper } from './wrapper.js';

export { type BlockedCall, ToolCallGuard, type ToolCallGuardOptions } from '../guard/tool.js';

/**
 * Client side: Client -> (PayloadFilteringTransport) -> ToolCallGuardTransport -> transport.
 * A call the guard cannot judge (no list seen yet, or the list changed and the tool is not in
 * the last one) makes it ask the server for the list itself, through the inner transport; the
 * answer is its own, never delivered to the client.
 */
export class ToolCallGuardTransport extends TransportWrapper {
  readonly guard: ToolCallGuard;
  /** The guard's own tools/list requests, sent through the inner transport. */
  private readonly own = new OwnRequests((request) => this.inner.send(request as Message));

  /**
   * `options` go to the guard (`roots`, `realpath`, `policy`, `onAudit`...); the trail's entries
   * carry the inner transport's session id, where it has one (Streamable HTTP).
   */
  constructor(inner: Transport, options: ToolCallGuardOptions = {}) {
    super(inner);
    const { onAudit } = options;
    this.guard = new ToolCallGuard(
      onAudit ? { ...options, onAudit: (e) => onAudit(this.sessionId === undefined ? e : { ...e, session: this.sessionId }) } : options,
    );
  }

  protected outgoing(message: Message): MaybePromise<Message | undefined> {
    return this.checkEach(message, (m) => this.guard.outgoing(m, this.own.ask) as MaybePromise<Message | undefined>);
  }

  protected incoming(message: Message, extra?: MessageExtraInfo): void {
    if (this.own.isAnswer(message)) {
      this.own.settle(message);
      return;
    }
    for (const m of Array.isArray(message) ? (message as Message[]) : [message]) this.guard.incoming(m);
    this.deliver(message, extra);
  }
}
