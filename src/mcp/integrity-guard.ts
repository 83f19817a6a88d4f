// IntegrityGuardTransport: a tools/call whose arguments hold U+FFFD never reaches the server.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { ArgumentIntegrityError } from '../errors.js';
import { findReplacementCharacters } from '../integrity.js';
import { INVALID_PARAMS } from './filtering.js';
import { errorResponse, isRequest, TransportWrapper, type Message } from './wrapper.js';

export interface IntegrityGuardOptions {
  /**
   * 'client' (default): outgoing calls are checked and a damaged one is answered locally with
   * an error. 'server': incoming calls are checked and a damaged one is answered with -32602.
   */
  side?: 'client' | 'server';
  /** Told about every blocked call (for logs): the error holds reports, never content. */
  onblock?: (error: ArgumentIntegrityError) => void;
}

/** The ArgumentIntegrityError for a tools/call request, or undefined if it is clean. */
export function damagedCall(message: Message): ArgumentIntegrityError | undefined {
  if (!isRequest(message) || message.method !== 'tools/call') return undefined;
  const params = message.params ?? {};
  // Reports are bounded (count and path budget), so the error and the reply stay small
  // however deep and however damaged the arguments are.
  const reports = findReplacementCharacters(params.arguments ?? {});
  return reports.total ? new ArgumentIntegrityError(reports, typeof params.name === 'string' ? params.name : undefined, reports.total) : undefined;
}

export class IntegrityGuardTransport extends TransportWrapper {
  private readonly side: 'client' | 'server';

  constructor(inner: Transport, private readonly options: IntegrityGuardOptions = {}) {
    super(inner);
    this.side = options.side ?? 'client';
  }

  private answer(message: Message, error: ArgumentIntegrityError): Message {
    this.options.onblock?.(error);
    return errorResponse((message as { id: string | number }).id, INVALID_PARAMS, error.message, { reports: error.reports, total: error.total });
  }

  protected outgoing(message: Message): Message | undefined {
    const error = this.side === 'client' ? damagedCall(message) : undefined;
    if (!error) return message;
    this.answerLocally(this.answer(message, error)); // never sent
    return undefined;
  }

  protected incoming(message: Message, extra?: MessageExtraInfo): void {
    const error = this.side === 'server' ? damagedCall(message) : undefined;
    if (!error) return this.deliver(message, extra);
    this.inner.send(this.answer(message, error)).catch((err: Error) => this.onerror?.(err));
  }
}
