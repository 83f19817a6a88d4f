// IntegrityGuardTransport: a tools/call whose arguments hold U+FFFD never reaches the server
// (the check is guard/integrity.ts).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { ArgumentIntegrityError } from '../errors.js';
import { DROPPED, type Dropped, type DroppedCall, droppedCall } from '../guard/drop.js';
import { damagedCall, integrityReply } from '../guard/integrity.js';
import type { GuardReply } from '../guard/reply.js';
import { type Message, TransportWrapper } from './wrapper.js';

export { damagedCall } from '../guard/integrity.js';

export interface IntegrityGuardOptions {
  /**
   * 'client' (default): outgoing calls are checked and a damaged one is answered locally.
   * 'server': incoming calls are checked and a damaged one is answered, never dispatched.
   */
  side?: 'client' | 'server';
  /** Told about every blocked call (for logs): the error holds reports, never content. */
  onblock?: (error: ArgumentIntegrityError) => void;
  /**
   * Told about every dropped call (for logs): a tools/call without a string or number id, which
   * no answer could reach, neither sent on nor answered (guard/drop.ts); its tool and why, never
   * its arguments.
   */
  ondrop?: (dropped: DroppedCall) => void;
  /**
   * 'result' (default): a CallToolResult with isError: true whose text is the error's message;
   * 'error': JSON-RPC error -32602 with data { reports, total }.
   */
  reply?: GuardReply;
}

export class IntegrityGuardTransport extends TransportWrapper {
  private readonly side: 'client' | 'server';

  constructor(
    inner: Transport,
    private readonly options: IntegrityGuardOptions = {},
  ) {
    super(inner);
    this.side = options.side ?? 'client';
  }

  /** The answer to `message` if it must not go on, after reporting it (DROPPED: none can be given; guard/drop.ts). */
  private answer(message: Message): Message | Dropped | undefined {
    const dropped = droppedCall(message);
    if (dropped) {
      this.options.ondrop?.(dropped);
      return DROPPED;
    }
    const error = damagedCall(message);
    if (!error) return undefined;
    this.options.onblock?.(error);
    return integrityReply((message as { id: string | number }).id, error, this.options.reply) as Message;
  }

  protected outgoing(message: Message): Message | undefined {
    if (this.side !== 'client') return message;
    return this.checkEach(message, (m) => this.answer(m)) as Message | undefined; // (never waits)
  }

  protected incoming(message: Message, extra?: MessageExtraInfo): void {
    if (this.side !== 'server') {
      this.deliver(message, extra);
      return;
    }
    const batch = Array.isArray(message) ? (message as Message[]) : undefined;
    const rest: Message[] = [];
    for (const m of batch ?? [message]) {
      const reply = this.answer(m);
      if (reply === DROPPED) continue;
      if (reply) this.inner.send(reply).catch((err: Error) => this.onerror?.(err));
      else rest.push(m);
    }
    if (rest.length) this.deliver(batch ? (rest as unknown as Message) : rest[0]!, extra);
  }
}
