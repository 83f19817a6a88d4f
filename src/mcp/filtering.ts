// PayloadFilteringTransport: term aliasing on the MCP SDK's Transport interface.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { type Codec, createCodec } from '../codec/codec.js';
import type { CodecOptions } from '../codec/options.js';
import { PayloadKeyCollisionError } from '../errors.js';
import { INVALID_PARAMS, isResponse } from '../jsonrpc/message.js';
import { isFilterEnabled } from '../util/opt-in.js';
import { errorResponse, isRequest, type Message, TransportWrapper } from './wrapper.js';

export { INVALID_PARAMS };

export interface FilterOptions extends CodecOptions {
  /**
   * 'server' (default): around a server's transport; what the server sends is encoded, what
   * arrives is decoded (before the SDK validates tool arguments against their schemas).
   * 'client': around a host's transport, protecting the host from any server; what arrives
   * from the server is encoded, what the host sends is decoded.
   */
  side?: 'server' | 'client';
}

export class PayloadFilteringTransport extends TransportWrapper {
  readonly codec: Codec;
  readonly side: 'server' | 'client';

  constructor(inner: Transport, options: FilterOptions = {}) {
    super(inner);
    this.codec = createCodec(options);
    this.side = options.side ?? 'server';
  }

  protected outgoing(message: Message): Message {
    if (this.side === 'server') return this.codec.encodeMessage(message);
    // Client side: decoding what the host sends may collide; the send then rejects. A response
    // (the host's answer to the server's sampling, elicitation or roots request) is sent as an
    // error under its id instead, so the server's request fails rather than waits forever.
    try {
      return this.codec.decodeMessage(message);
    } catch (e) {
      if (!(e instanceof PayloadKeyCollisionError) || !isResponse(message)) throw e;
      return errorResponse(message.id, INVALID_PARAMS, e.message);
    }
  }

  protected incoming(message: Message, extra?: MessageExtraInfo): void {
    if (this.side === 'client') {
      this.deliver(this.codec.encodeMessage(message), extra);
      return;
    }
    let decoded: Message;
    try {
      decoded = this.codec.decodeMessage(message);
    } catch (e) {
      if (!(e instanceof PayloadKeyCollisionError)) throw e;
      if (isRequest(message)) {
        // Answered here and never dispatched: no handler sees a merged or truncated request. The
        // answer goes out encoded, like everything the server sends (the path it names may hold
        // a key with a term).
        const answer = this.codec.encodeMessage(errorResponse(message.id, INVALID_PARAMS, e.message));
        this.inner.send(answer).catch((err: Error) => this.onerror?.(err));
      } else if ('id' in message && message.id !== undefined && message.id !== null) {
        // A response whose keys collide: the waiting request fails instead of hanging.
        this.deliver(errorResponse(message.id, INVALID_PARAMS, e.message), extra);
      } else {
        this.onerror?.(e);
      }
      return;
    }
    this.deliver(decoded, extra);
  }
}

/** Wraps only when MCP_MODEL_PAYLOAD_FILTER is exactly "1"; otherwise returns `transport`. */
export function filterTransportIfEnabled<T extends Transport>(
  transport: T,
  options?: FilterOptions,
  env?: Record<string, string | undefined>,
): T | PayloadFilteringTransport {
  return isFilterEnabled(env) ? new PayloadFilteringTransport(transport, options) : transport;
}
