// The core's error codes (E_*) as stream errors: a code, a reason, the message number and the
// byte offset, never the content.
import { E_CONTROL, E_DEPTH, E_ESCAPE, E_EVENTS, E_INCOMPLETE, E_SYNTAX, E_TYPE_CONFLICT, E_UTF8 } from '../core/abi.js';
import { PayloadStreamError, type PayloadStreamErrorCode } from './stream-error.js';
import { STACK_DEPTH } from './transducer-block.js';

const ERRORS: Record<number, [PayloadStreamErrorCode, string]> = {
  [E_SYNTAX]: ['invalid-json', 'invalid JSON'],
  [E_UTF8]: ['invalid-utf8', 'invalid UTF-8'],
  [E_CONTROL]: ['control-character', 'control character in a JSON string'],
  [E_ESCAPE]: ['invalid-escape', 'invalid escape in a JSON string'],
  [E_DEPTH]: ['too-deep', `JSON nested deeper than ${STACK_DEPTH - 1} levels`],
  [E_INCOMPLETE]: ['incomplete', 'the message ends before its JSON value does'],
  [E_TYPE_CONFLICT]: ['type-conflict', 'two "type" keys that disagree in one object (image/audio or not)'],
};

/** The error for core error `code` in message `messageNumber` at byte `offset` of it. */
export function coreError(code: number, messageNumber: number, offset: number): Error {
  if (code === E_EVENTS)
    return new Error(`mcp-payload-codec: the core wrote more events than its interface allows (message ${messageNumber})`);
  const [name, reason] = ERRORS[code] ?? ['invalid-json', 'invalid input'];
  return new PayloadStreamError(name, reason, messageNumber, offset);
}
