// A Transport around a Transport: the plumbing every wrapper here shares. Subclasses decide
// what happens to messages on the way out (`outgoing`) and on the way in (`incoming`).
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/** Optional members of newer transports, forwarded when the inner transport has them. */
const FORWARDED_METHODS = ['terminateSession', 'finishAuth', 'resumeStream', 'setSupportedProtocolVersions'] as const;

export type Message = JSONRPCMessage;
type Handler = ((message: Message, extra?: MessageExtraInfo) => void) | undefined;

export const isRequest = (m: unknown): m is { id: string | number; method: string; params?: Record<string, unknown> } =>
  typeof m === 'object' && m !== null && 'method' in m && 'id' in m;
export const isNotification = (m: unknown): m is { method: string } => typeof m === 'object' && m !== null && 'method' in m && !('id' in m);

/** A JSON-RPC error response. */
export function errorResponse(id: string | number, code: number, message: string, data?: unknown): Message {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } } as Message;
}

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

  async send(message: Message, options?: TransportSendOptions): Promise<void> {
    const out = this.outgoing(message);
    if (out !== undefined) await this.inner.send(out, options);
  }

  /** Answers a message that will not be sent, as if the other side had (after this call returns). */
  protected answerLocally(reply: Message): void {
    queueMicrotask(() => this.deliver(reply));
  }

  /** Passes a message on to whoever listens to this transport. */
  protected deliver(message: Message, extra?: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
  }

  /** The message to send on, or undefined to send nothing (it was answered locally). */
  protected abstract outgoing(message: Message): Message | undefined;

  /** Handles a message from the inner transport (usually ends in `deliver`). */
  protected abstract incoming(message: Message, extra?: MessageExtraInfo): void;
}
