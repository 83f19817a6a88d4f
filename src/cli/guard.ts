// wrap --guard: the tool guard on the proxy's two directions. Calls are checked after
// decoding (the real values the tools and schemas see); tool lists are learnt from what the
// client is shown (the encoder's output, decoded back), so a line the encoder dropped as
// invalid teaches the guard nothing the client did not see.
import type { Codec } from '../codec.js';
import { INVALID_PARAMS } from '../mcp/filtering.js';
import { ToolCallGuard } from '../mcp/tool-guard.js';
import { errorResponse, isRequest, type Message } from '../mcp/wrapper.js';
import { concat } from '../stream/pipe.js';
import { LineSplitter } from './lines.js';
import type { Reply } from './replies.js';

const utf8 = new TextDecoder();
const NEWLINE = new Uint8Array([0x0a]);

function parse(line: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(line));
  } catch {
    return undefined; // (the streams only pass JSON: cannot happen)
  }
}

export class WrapGuard {
  private readonly guard: ToolCallGuard;
  /** Ids of tools/list requests not yet answered: while any is, every server line is read. */
  private readonly pendingLists = new Set<string | number>();
  private readonly requests: LineSplitter;
  private readonly responses: LineSplitter;
  private readonly passed: Uint8Array[] = [];
  private readonly toServer: (bytes: Uint8Array) => void;

  constructor(
    private readonly codec: Codec,
    toServer: (bytes: Uint8Array) => void,
    reply: (reply: Reply) => void,
    log: (line: string) => void,
  ) {
    this.guard = new ToolCallGuard({ onblock: (b) => log(`blocked tools/call ${JSON.stringify(b.toolName)}: ${b.reason}`) });
    this.requests = new LineSplitter((line) => {
      const answer = this.checkRequest(parse(line));
      if (answer) reply(answer);
      else this.passed.push(line, NEWLINE);
    });
    this.toServer = toServer;
    this.responses = new LineSplitter(
      (line) => this.learn(line),
      // A line too long to hold for nothing (a screenshot) is read only while a list is awaited,
      // or when its head names a list change.
      (head) => this.pendingLists.size > 0 || /list_changed|\\u/.test(utf8.decode(head)),
    );
  }

  /** Decoded bytes from the client, on their way to the server. */
  fromClient(bytes: Uint8Array): void {
    this.requests.push(bytes);
    this.flush();
  }

  /** The lines that passed, in one write (a write per line cost a system call each). */
  private flush(): void {
    if (this.passed.length) this.toServer(concat(this.passed.splice(0)));
  }

  /** Encoded bytes on their way to the client. */
  toClient(bytes: Uint8Array): void {
    this.responses.push(bytes);
  }

  /** The client's input ended: its last line may lack a '\n'. */
  endFromClient(): void {
    this.requests.end();
    this.flush();
  }

  /** The answer to give instead of forwarding, if any. A batch goes whole or not at all. */
  private checkRequest(message: unknown): Reply | undefined {
    const messages = (Array.isArray(message) ? message : [message]) as Message[];
    const blocked = new Map<Message, Message>();
    const lists: (string | number)[] = [];
    for (const m of messages) {
      if (typeof m !== 'object' || m === null) continue;
      const answer = this.guard.outgoing(m);
      if (answer) blocked.set(m, answer);
      else if (isRequest(m) && m.method === 'tools/list') lists.push(m.id);
    }
    if (blocked.size === 0) {
      for (const id of lists) this.pendingLists.add(id);
      return undefined;
    }
    if (!Array.isArray(message)) return blocked.get(message as Message);
    // The block's reason for its own requests; the others are dropped with it.
    const first = blocked.values().next().value as { error: { message: string } };
    return messages.filter((m) => isRequest(m)).map((m) => blocked.get(m) ?? errorResponse((m as { id: string | number }).id, INVALID_PARAMS, `dropped with its batch: ${first.error.message}`));
  }

  private learn(line: Uint8Array): void {
    const parsed = parse(line);
    for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as { id?: unknown; method?: unknown }[]) {
      if (typeof m !== 'object' || m === null) continue;
      const answersList = (typeof m.id === 'string' || typeof m.id === 'number') && this.pendingLists.delete(m.id);
      if (!answersList && m.method !== 'notifications/tools/list_changed') continue;
      try {
        this.guard.incoming(this.codec.decodeMessage(m as Message));
      } catch {
        // keys that collide once decoded: encoding made them, from distinct keys; cannot happen
      }
    }
  }
}
