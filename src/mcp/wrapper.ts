// A Transport around a Transport: the plumbing every wrapper here shares. Subclasses decide
// what happens to messages on the way out (`outgoing`) and on the way in (`incoming`).
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

import { DROPPED, type Dropped } from '../guard/drop.js';
import { errorResponse as jsonRpcError, type MaybePromise } from '../jsonrpc/message.js';

export { isNotification, isRequest } from '../jsonrpc/message.js';

/** A JSON-RPC error response, typed as the SDK's message. */
export const errorResponse = (...args: Parameters<typeof jsonRpcError>): Message => jsonRpcError(...args) as Message;

/** Optional members of newer transports, forwarded when the inner transport has them. */
const FORWARDED_METHODS = ['terminateSession', 'finishAuth', 'resumeStream', 'setSupportedProtocolVersions'] as const;

export type Message = JSONRPCMessage;
type Handler = ((message: Message, extra?: MessageExtraInfo) => void) | undefined;

export abstract class TransportWrapper implements Transport {
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  constructor(protected readonly inner: Transport) {
    // Handlers set on the inner transport before wrapping keep being called (with what the
    // inner transport delivered), then ours run.
    const before = { message: inner.onmessage as Handler, error: inner.onerror, close: inner.onclose };
    inner.onmessage = (message: Message, extra?: MessageExtraInfo) => {
      before.message?.(message, extra);
      this.incoming(message, extra);
    };
    inner.onerror = (error: Error) => {
      before.error?.(error);
      this.onerror?.(error);
    };
    inner.onclose = () => {
      before.close?.();
      this.onclose?.();
    };
    for (const name of FORWARDED_METHODS) {
      const f = (inner as unknown as Record<string, unknown>)[name];
      if (typeof f === 'function') (this as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => f.apply(inner, args);
    }
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Present when the inner transport has it. */
  get setProtocolVersion(): ((version: string) => void) | undefined {
    const f = this.inner.setProtocolVersion;
    return f ? (version: string) => f.call(this.inner, version) : undefined;
  }

  get protocolVersion(): string | undefined {
    return (this.inner as { protocolVersion?: string }).protocolVersion;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Settles when the last outgoing check that had to wait is done (sends start in order). */
  private waiting: Promise<void> | undefined;

  async send(message: Message, options?: TransportSendOptions): Promise<void> {
    // A check may wait (a guard loading its schema compiler); the messages after it wait too,
    // so they reach the inner transport in the order they were sent. Only the start of each
    // inner send is ordered: waiting for its end (an HTTP POST's answer) would serialise them.
    const out = this.waiting ? this.waiting.then(() => this.outgoing(message)) : this.outgoing(message);
    if (!(out instanceof Promise)) {
      if (out !== undefined) await this.inner.send(out, options);
      return;
    }
    const started = out.then((o) => ({ sending: o === undefined ? undefined : this.inner.send(o, options) }));
    const turn = started.then(
      () => undefined,
      () => undefined,
    );
    this.waiting = turn;
    void turn.then(() => {
      if (this.waiting === turn) this.waiting = undefined;
    });
    await (await started).sending;
  }

  /**
   * Runs `check` on a message, or on each message of a batch: what it answers is answered
   * locally (one message each, as the SDK's Protocol reads them), what it drops is neither sent
   * nor answered (guard/drop.ts), the rest is sent on (a batch as a batch). Never skips a
   * message of a batch.
   */
  protected checkEach(
    message: Message,
    check: (m: Message) => MaybePromise<Message | Dropped | undefined>,
  ): MaybePromise<Message | undefined> {
    const batch = Array.isArray(message) ? (message as Message[]) : undefined;
    const messages = batch ?? [message];
    const answers = messages.map(check);
    const finish = (settled: (Message | Dropped | undefined)[]): Message | undefined => {
      const rest = messages.filter((_, i) => settled[i] === undefined);
      for (const a of settled) if (a !== undefined && a !== DROPPED) this.answerLocally(a); // never sent
      if (!batch) return rest[0];
      return rest.length ? (rest as unknown as Message) : undefined;
    };
    return answers.some((a) => a instanceof Promise)
      ? Promise.all(answers).then(finish)
      : finish(answers as (Message | Dropped | undefined)[]);
  }

  /** Answers a message that will not be sent, as if the other side had (after this call returns). */
  protected answerLocally(reply: Message): void {
    queueMicrotask(() => this.deliver(reply));
  }

  /** Passes a message on to whoever listens to this transport. */
  protected deliver(message: Message, extra?: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
  }

  /** The message to send on, or undefined to send nothing (it was answered locally); may wait. */
  protected abstract outgoing(message: Message): MaybePromise<Message | undefined>;

  /** Handles a message from the inner transport (usually ends in `deliver`). */
  protected abstract incoming(message: Message, extra?: MessageExtraInfo): void;
}
