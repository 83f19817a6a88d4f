// connect's output to its host: one JSON-RPC message per line, written as the host reads (a
// slow host holds up what is relayed to it), and the answers connect writes itself.
import type { Writable } from 'node:stream';
import type { Codec } from '../codec/codec.js';
import { errorResponse, SERVER_ERROR } from '../jsonrpc/message.js';
import { messageText } from '../jsonrpc/raw-id.js';
import type { PendingRequests } from './pending-requests.js';

export class HostLines {
  constructor(
    private readonly output: Writable,
    private readonly codec: Codec,
  ) {}

  /** One message, on one line: newlines inside JSON are whitespace, so they become spaces. Resolves once the host has room. */
  async write(text: string): Promise<void> {
    if (!this.output.write(text.replace(/[\r\n]/g, ' ') + '\n')) await new Promise((r) => this.output.once('drain', r));
  }

  /** A message of connect's own, encoded like everything the host reads. */
  reply(message: unknown): Promise<void> {
    return this.write(messageText(this.codec.encodeMessage(message)));
  }

  /**
   * Each request still waiting in `pending` is answered -32000 with `message`, under its id as the
   * host wrote it; encoded (a message may quote what the server sent).
   */
  fail(pending: PendingRequests, message: string): void {
    for (const id of pending.take()) void this.reply(errorResponse(id, SERVER_ERROR, message));
  }
}
