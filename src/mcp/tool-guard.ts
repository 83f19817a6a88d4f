// ToolCallGuardTransport: the tool-call guard (guard/tool.ts) at the client boundary of an SDK
// transport.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { ToolCallGuard, type ToolCallGuardOptions } from '../guard/tool.js';
import type { MaybePromise } from '../jsonrpc.js';
import { type Message, TransportWrapper } from './wrapper.js';

export { type BlockedCall, ToolCallGuard, type ToolCallGuardOptions } from '../guard/tool.js';

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

  protected outgoing(message: Message): MaybePromise<Message | undefined> {
    return this.checkEach(message, (m) => this.guard.outgoing(m) as MaybePromise<Message | undefined>);
  }

  protected incoming(message: Message, extra?: MessageExtraInfo): void {
    for (const m of Array.isArray(message) ? (message as Message[]) : [message]) this.guard.incoming(m);
    this.deliver(message, extra);
  }
}
