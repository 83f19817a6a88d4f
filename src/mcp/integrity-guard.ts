// IntegrityGuardTransport: a tools/call whose arguments hold U+FFFD never reaches the server.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { ArgumentIntegrityError } from '../errors.js';
import { findReplacementCharacters } from '../integrity.js';
import { blockedReply, type GuardReply } from './guard-reply.js';
import { isRequest, type Message, TransportWrapper } from './wrapper.js';

export interface IntegrityGuardOptions {
  /**
   * 'client' (default): outgoing calls are checked and a damaged one is answered locally.
   * 'server': incoming calls are checked and a damaged one is answered, never dispatched.
   */
  side?: 'client' | 'server';
  /** Told about every blocked call (for logs): the error holds reports, never content. */
  onblock?: (error: ArgumentIntegrityError) => void;
  /**
   * 'result' (default): a CallToolResult with isError: true whose text is the error's message;
   * 'error': JSON-RPC error -32602 with data { reports, total }.
   */
  reply?: GuardReply;
}

/** The ArgumentIntegrityError for a tools/call request, or undefined if it is clean. */
export function damagedCall(message: Message): ArgumentIntegrityError | undefined {
  if (!isRequest(message) || message.method !== 'tools/call') return undefined;
  const params = message.params ?? {};
  // Reports are bounded (count and path budget), so the error and the reply stay small
  // however deep and however damaged the arguments are.
  const reports = findReplacementCharacters(params.arguments ?? {});
  return reports.total
    ? new ArgumentIntegrityError(reports, typeof params.name === 'string' ? params.name : undefined, reports.total)
    : undefined;
}

/** The answer to a damaged call, in the form asked for. */
export function integrityReply(id: string | number, error: ArgumentIntegrityError, form: GuardReply | undefined): Message {
  return blockedReply(id, form, error.message, { reports: error.reports, total: error.total });
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

  /** The answer to `message` if it must not go on, after reporting it. */
  private answer(message: Message): Message | undefined {
    const error = damagedCall(message);
    if (!error) return undefined;
    this.options.onblock?.(error);
    return integrityReply((message as { id: string | number }).id, error, this.options.reply);
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
      if (reply) this.inner.send(reply).catch((err: Error) => this.onerror?.(err));
      else rest.push(m);
    }
    if (rest.length) this.deliver(batch ? (rest as unknown as Message) : rest[0]!, extra);
  }
}
