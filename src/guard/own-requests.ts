// The guards' own requests to a server: a page of its tool list, asked when a guard cannot
// judge a call. Their ids (strings no host or server request uses), the time a server has to
// answer, and how an answer settles the request waiting for it. A transport that can ask
// keeps one OwnRequests: it sends what `ask` makes and hands back every answer whose id is ours.
import type { Message } from '../jsonrpc.js';
import type { ListTools } from './tool.js';

/** How long a server may take to answer a page (over HTTP: every page of one asking together). */
export const LIST_TIMEOUT_MS = 10_000;

let issued = 0;
/** A new id for one of the guards' own requests. */
export const ownRequestId = (): string => `mcp-payload-codec/tools-list/${++issued}`;

type Settle = (answer: Error | Message) => void;

export class OwnRequests {
  private readonly pending = new Map<string, Settle>();

  /** `send` puts a request on its way; a failure it reports fails that request. */
  constructor(private readonly send: (request: Message) => void | Promise<unknown>) {}

  /** How many requests wait for their answers. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Asks for a page of the tool list; resolves with the answer's result within LIST_TIMEOUT_MS. */
  readonly ask: ListTools = (cursor) => {
    const id = ownRequestId();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(new Error(`no answer within ${LIST_TIMEOUT_MS} ms`)), LIST_TIMEOUT_MS);
      (timer as { unref?: () => void }).unref?.();
      const settle: Settle = (answer) => {
        clearTimeout(timer);
        this.pending.delete(id);
        if (answer instanceof Error) return reject(answer);
        const m = answer as { result?: unknown; error?: { code?: unknown } };
        if ('error' in m) reject(new Error(`the server answered error ${Number(m.error?.code)}`));
        else resolve(m.result);
      };
      this.pending.set(id, settle);
      const request: Message = { jsonrpc: '2.0', id, method: 'tools/list', params: cursor === undefined ? {} : { cursor } };
      // Sent at once (a stdio guard writes it after what passed before the call, in order).
      const failed = (e: unknown) => settle(new Error(`sending it failed (${(e as Error).name})`));
      try {
        const sent = this.send(request);
        if (sent instanceof Promise) sent.catch(failed);
      } catch (e) {
        failed(e);
      }
    });
  };

  /** Whether `message` answers one of these requests (an id of ours, no method). */
  isAnswer(message: unknown): boolean {
    const m = message as { id?: unknown; method?: unknown } | undefined;
    return typeof m?.id === 'string' && m.method === undefined && this.pending.has(m.id);
  }

  /** Settles the request `answer` (an answer per `isAnswer`) is for, with it or with the error. */
  settle(answer: Message, outcome: Error | Message = answer): void {
    this.pending.get(answer.id as string)?.(outcome);
  }

  /** Fails every request still waiting (the server is gone). */
  failAll(reason: string): void {
    for (const settle of [...this.pending.values()]) settle(new Error(reason));
  }
}
