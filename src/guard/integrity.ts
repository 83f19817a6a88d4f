// The integrity guard, free of any transport: a tools/call whose arguments hold damage (U+FFFD,
// lone surrogates) is found and answered, never sent on.

import { findReplacementCharacters } from '../codec/integrity.js';
import { ArgumentIntegrityError } from '../errors.js';
import { isRequest, type Message } from '../jsonrpc/message.js';
import { blockedReply, type GuardReply } from './reply.js';

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
/** The log line for a call blocked as damaged (the tool's name, where it has one, and why). */
export const damagedLine = (error: ArgumentIntegrityError): string =>
  `blocked tools/call${error.toolName === undefined ? '' : ` ${JSON.stringify(error.toolName)}`}: ${error.message}`;

export function integrityReply(id: string | number, error: ArgumentIntegrityError, form: GuardReply | undefined): Message {
  return blockedReply(id, form, error.message, { reports: error.reports, total: error.total });
}
