// ToolCallGuardTransport: the tool-call guard (guard/tool.ts) at the client boundary of an SDK
// transport.
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { OnAudit } from '../guard/audit.js';
import type { Dropped } from '../guard/drop.js';
import { OwnRequests } from '../guard/own-requests.js';
import { ToolCallGuard, type ToolCallGuardOptions } from '../guard/tool.js';
import type { MaybePromise } from '../jsonrpc/message.js';
import { CallTimeoutTransport } from './call-timeout.js';
import { type Message, TransportWrapper } from './wrapper.js';

export { type BlockedCall, ToolCallGuard, type ToolCallGuardOptions } from '../guard/tool.js';

export interface ToolCallGuardTransportOptions extends ToolCallGuardOptions {
  /**
   * Also answer a call (or any request) the server leaves unanswered this long, as
   * CallTimeoutTransport does (its timeouts go to onAudit too). Default: no limit.
   */
  callTimeoutMs?: number;
  /** With callTimeoutMs: how long progress may keep a request going in all; default 10 times it. */
  callTimeoutMaxMs?: number;
}

/**
 * Client side: Client -> (PayloadFilteringTransport) -> ToolCallGuardTransport -> transport.
 * A call the guard cannot judge (no list seen yet, or the list changed and the tool is not in
 * the last one) makes it ask the server for the list itself, through the inner transport; the
 * answer is its own, never delivered to the client.
 *
 * A call the `confirm` rule names is asked about with an `elicitation/create` delivered to the
 * client (when it declared elicitation; its answer is taken out of what it sends, never sent on),
 * else with the `askUser` option. Messages the client sends while it waits wait too, in order.
 */
export class ToolCallGuardTransport extends TransportWrapper {
  readonly guard: ToolCallGuard;
  /** The guard's own tools/list requests, sent through the inner transport. */
  private readonly own = new OwnRequests((request) => this.inner.send(request as Message));
  /** The guard's own requests to the client (confirmations), delivered as if the server sent them. */
  private readonly toClient = new OwnRequests((request) => this.deliver(request as Message), 'client');

  /**
   * `options` go to the guard (`roots`, `realpath`, `policy`, `onAudit`...); the trail's entries
   * carry the inner transport's session id, where it has one (Streamable HTTP). `callTimeoutMs`
   * puts a CallTimeoutTransport below the guard.
   */
  constructor(inner: Transport, options: ToolCallGuardTransportOptions = {}) {
    const { callTimeoutMs, callTimeoutMaxMs, onAudit, ...rest } = options;
    const audit: OnAudit | undefined = onAudit && ((e) => onAudit(inner.sessionId === undefined ? e : { ...e, session: inner.sessionId }));
    // (Timed below the guard: a call it blocks is answered already; its own asking is timed too.)
    super(callTimeoutMs === undefined ? inner : new CallTimeoutTransport(inner, { callTimeoutMs, callTimeoutMaxMs, onAudit: audit }));
    this.guard = new ToolCallGuard(audit ? { ...rest, onAudit: audit } : rest);
  }

  protected outgoing(message: Message): MaybePromise<Message | undefined> {
    return this.checkEach(
      message,
      (m) => this.guard.outgoing(m, this.own.ask, this.toClient) as MaybePromise<Message | Dropped | undefined>,
    );
  }

  override send(message: Message, options?: TransportSendOptions): Promise<void> {
    // The client's answer to a request of the guard's own is taken here, before the messages
    // waiting behind the call it confirms (one of which it is).
    if (this.toClient.isAnswer(message)) {
      this.toClient.settle(message);
      return Promise.resolve();
    }
    return super.send(message, options);
  }

  override close(): Promise<void> {
    this.toClient.failAll('the transport closed');
    return super.close();
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
