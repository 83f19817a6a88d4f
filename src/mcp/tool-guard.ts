// ToolCallGuardTransport: the tool-call guard (guard/tool.ts) at the client boundary of an SDK
// transport.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { type ListTools, ToolCallGuard, type ToolCallGuardOptions } from '../guard/tool.js';
import type { MaybePromise } from '../jsonrpc.js';
import { type Message, TransportWrapper } from './wrapper.js';

export { type BlockedCall, ToolCallGuard, type ToolCallGuardOptions } from '../guard/tool.js';

/** How long the server may take to answer a page of a list the guard asks for. */
const LIST_TIMEOUT_MS = 10_000;

/**
 * Client side: Client -> (PayloadFilteringTransport) -> ToolCallGuardTransport -> transport.
 * A call the guard cannot judge (no list seen yet, or the list changed and the tool is not in
 * the last one) makes it ask the server for the list itself, through the inner transport; the
 * answer is its own, never delivered to the client.
 */
export class ToolCallGuardTransport extends TransportWrapper {
  readonly guard: ToolCallGuard;
  /** The guard's own tools/list requests waiting for their answers. */
  private readonly asked = new Map<string, (m: Message) => void>();
  private asks = 0;

  constructor(inner: Transport, options: ToolCallGuardOptions = {}) {
    super(inner);
    this.guard = new ToolCallGuard(options);
  }

  protected outgoing(message: Message): MaybePromise<Message | undefined> {
    return this.checkEach(message, (m) => this.guard.outgoing(m, this.ask) as MaybePromise<Message | undefined>);
  }

  protected incoming(message: Message, extra?: MessageExtraInfo): void {
    const id = (message as { id?: unknown }).id;
    const mine = typeof id === 'string' && !('method' in message) ? this.asked.get(id) : undefined;
    if (mine) {
      mine(message);
      return;
    }
    for (const m of Array.isArray(message) ? (message as Message[]) : [message]) this.guard.incoming(m);
    this.deliver(message, extra);
  }

  private readonly ask: ListTools = (cursor) => {
    const id = `mcp-payload-codec/tools-list/${++this.asks}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(new Error(`no answer within ${LIST_TIMEOUT_MS} ms`)), LIST_TIMEOUT_MS);
      const settle = (outcome: Error | Message) => {
        clearTimeout(timer);
        this.asked.delete(id);
        if (outcome instanceof Error) return reject(outcome);
        const m = outcome as { result?: unknown; error?: { code?: unknown } };
        if ('error' in m) reject(new Error(`the server answered error ${Number(m.error?.code)}`));
        else resolve(m.result);
      };
      this.asked.set(id, settle);
      const params = cursor === undefined ? {} : { cursor };
      this.inner
        .send({ jsonrpc: '2.0', id, method: 'tools/list', params } as Message)
        .catch((e: unknown) => settle(new Error(`sending it failed (${(e as Error).name})`)));
    });
  };
}
