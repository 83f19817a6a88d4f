// wrap --guard: the guards on the proxy's two directions. Calls are checked after decoding
// (the real values the tools and schemas see): first for U+FFFD (the integrity guard), then
// against the tool list and schemas, and with --root the path arguments against the roots (the
// tool guard: a path written as tokens is checked as the server will receive it; the judgement
// of a call: call-judgement.ts). Tool lists are learnt from what the client is shown (the encoder's output, decoded back), so a line the
// encoder dropped as invalid teaches the guard nothing the client did not see.
//
// Every request of a batch is checked. The blocked ones are answered by the proxy, the rest
// go on to the server as a batch; when the server answers that batch, the proxy's answers are
// added at the end of its batch response, so the client gets ONE batch response. (A server
// that answers a batch with single lines gets the proxy's answers as a batch of their own
// after its first; if the server never answers, they go out when its output ends: partial-batches.ts.)
//
// A check may wait for the schema compiler to load (on first need), or for the server's tool
// list: a call the guard cannot judge (no list seen yet, or a tool not in the last list after
// list_changed) makes it ask the server itself (a tools/list of its own; the answer, read from
// the server's output, never reaches the client). Lines from the client then wait behind it,
// in order; none skips a check.
//
// --confirm: a call that passed the checks and that the rule names is held aside (lines after it
// go on) while the client is asked with an `elicitation/create` of the proxy's own, written to
// the client like the server's requests; the client's answer, taken out of its input before any
// queue, never reaches the server. Then the call goes on, or is answered as declined.
import type { Codec } from '../codec/codec.js';
import { keepElements } from '../codec/json-spans.js';
import type { OnAudit } from '../guard/audit.js';
import { OWN_ID_PREFIX, OwnRequests } from '../guard/own-requests.js';
import type { Realpath } from '../guard/paths.js';
import { remember, ToolCallGuard } from '../guard/tool.js';
import { isRequest, type MaybePromise, type Message } from '../jsonrpc/message.js';
import { rawIds, underId } from '../jsonrpc/raw-id.js';
import { concat } from '../util/concat.js';
import { auditJudgements, CallJudge, type Judgement } from './call-judgement.js';
import { LineSplitter } from './lines.js';
import { idOf, PartialBatches, parse } from './partial-batches.js';
import type { Reply } from './replies.js';

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();
const NEWLINE = new Uint8Array([0x0a]);
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
// (its start up to the slash, which a client may write escaped: `\/`)
const OWN_ID = `"${OWN_ID_PREFIX.slice(0, -1)}`;

export interface WrapGuardOptions {
  /** Check tool names and schemas (the tool guard). */
  tools: boolean;
  /** Check arguments for U+FFFD (the integrity guard). */
  integrity: boolean;
  /** Confine path arguments to these folders, or to the roots the client lists (the tool guard; see guard/paths.ts). */
  roots?: readonly string[] | 'client';
  /** This machine's realpath, with roots: symlinks in path arguments are followed. */
  realpath?: Realpath;
  /** Told each tools/call judged (request: the id as written), before its answer or the call leaves. */
  onAudit?: OnAudit;
  /** Calls the user must confirm first: tool names and 'destructive' (see guard/confirm.ts). */
  confirm?: readonly string[];
  /** How long the client has to answer a confirmation. */
  confirmTimeoutMs?: number;
}

export interface WrapGuardIo {
  /** Decoded bytes on to the server. */
  toServer: (bytes: Uint8Array) => void;
  /** The guard's own requests to the server (tools/list), when they go another way than the client's lines. */
  ownToServer?: (bytes: Uint8Array) => void;
  /** Encoded server output on to the client (with the proxy's batch answers merged in). */
  toClient: (bytes: Uint8Array) => void;
  /** A whole answer of the proxy's own (encoded by the caller). */
  reply: (reply: Reply) => void;
  log: (line: string) => void;
  /** A check failed (not a block: the guard itself could not run). */
  fail: (e: unknown) => void;
  /** True while lines from the client wait for a check (the caller may stop reading). */
  busy: (waiting: boolean) => void;
}

export class WrapGuard {
  private readonly tools: ToolCallGuard | undefined;
  private readonly judge: CallJudge;
  /** Ids of tools/list requests not yet answered: while any is, every server line is read. */
  private readonly pendingLists = new Set<string | number>();
  private readonly partials: PartialBatches;
  private readonly requests: LineSplitter;
  private readonly responses: LineSplitter;
  private readonly passed: Uint8Array[] = [];
  /** Client lines waiting behind a check that waits. */
  private readonly queue: Uint8Array[] = [];
  private waiting = false;
  private failed = false;
  private drainedWaiters: (() => void)[] = [];
  /** Lines held aside while the client is asked to confirm a call in them. */
  private confirming = 0;
  // The server's output: a line that may be the answer to a partial batch is held whole.
  private atLineStart = true;
  private holding = false;
  private held: Uint8Array[] = [];
  /** The guard's own tools/list requests, written to the server after what passed before the call. */
  private readonly own = new OwnRequests((request) => {
    this.flush();
    (this.io.ownToServer ?? this.io.toServer)(utf8Encoder.encode(`${JSON.stringify(request)}\n`));
  });
  /** The guard's own requests to the client (confirmations), written like the proxy's answers. */
  private readonly toClientRequests = new OwnRequests((request) => this.io.reply(request), 'client');

  constructor(
    private readonly codec: Codec,
    private readonly io: WrapGuardIo,
    private readonly options: WrapGuardOptions = { tools: true, integrity: true },
  ) {
    this.tools = options.tools
      ? new ToolCallGuard({
          ...(options.roots ? { roots: options.roots, realpath: options.realpath } : {}),
          ...(options.confirm ? { confirm: options.confirm, confirmTimeoutMs: options.confirmTimeoutMs } : {}),
        })
      : undefined;
    this.judge = new CallJudge(this.tools, options.integrity, io.log);
    this.partials = new PartialBatches(codec);
    this.requests = new LineSplitter((line) => {
      if (this.clientAnswer(line)) return;
      if (this.waiting) this.queue.push(line);
      else this.take(line);
    });
    this.responses = new LineSplitter(
      (line) => this.learn(line),
      // A line too long to hold for nothing (a screenshot) is read only while a list or a
      // batch answer is awaited, or when its head names a list change.
      (head) => this.pendingLists.size > 0 || this.partials.size > 0 || /list_changed|\\u/.test(utf8.decode(head)),
    );
  }

  /** Decoded bytes from the client, on their way to the server. */
  fromClient(bytes: Uint8Array): void {
    this.requests.push(bytes);
    this.flush();
  }

  /** The client's input ended (its last line may lack a '\n'); resolves once every line is through. */
  endFromClient(): Promise<void> {
    this.requests.end();
    this.flush();
    // (no answer can come now: the calls held for one are answered)
    this.toClientRequests.failAll("the client's input ended");
    if (!this.waiting && !this.confirming) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  /** The lines that passed, in one write (a write per line cost a system call each). */
  private flush(): void {
    if (this.passed.length) this.io.toServer(concat(this.passed.splice(0)));
  }

  /** Checks one line, or starts waiting for its check. */
  private take(line: Uint8Array): void {
    if (this.failed) return;
    let verdict: MaybePromise<() => void>;
    try {
      verdict = this.check(line);
    } catch (e) {
      this.fail(e);
      return;
    }
    if (!(verdict instanceof Promise)) {
      verdict();
      return;
    }
    this.waiting = true;
    // (stop reading the client, unless an answer from it is awaited: a check may wait for it)
    if (this.toClientRequests.waiting === 0) this.io.busy(true);
    verdict.then(
      (then) => {
        then();
        this.waiting = false;
        while (!this.waiting && !this.failed && this.queue.length) this.take(this.queue.shift()!);
        this.flush();
        if (!this.waiting) {
          this.io.busy(false);
          this.drained();
        }
      },
      (e: unknown) => this.fail(e),
    );
  }

  private drained(): void {
    if (!this.waiting && !this.confirming) for (const w of this.drainedWaiters.splice(0)) w();
  }

  /** Whether a whole client line is the answer to the guard's own request (then taken). */
  private clientAnswer(line: Uint8Array): boolean {
    if (!this.toClientRequests.expecting || line[0] !== OPEN_BRACE) return false;
    // (a native search first: after a question given up on, every line would be parsed twice)
    if (!Buffer.from(line.buffer, line.byteOffset, line.byteLength).includes(OWN_ID)) return false;
    const m = parse(line) as Message | undefined;
    if (!this.toClientRequests.isAnswer(m)) return false;
    this.toClientRequests.settle(m!);
    return true;
  }

  private fail(e: unknown): void {
    this.failed = true;
    this.waiting = false;
    this.queue.length = 0;
    for (const w of this.drainedWaiters.splice(0)) w();
    this.io.fail(e);
  }

  /** What to do with a line: a function that does it, once its checks are done. */
  private check(line: Uint8Array): MaybePromise<() => void> {
    const text = utf8.decode(line);
    const message = parse(text);
    const batch = Array.isArray(message) ? (message as Message[]) : undefined;
    const messages = batch ?? [message as Message];
    const answers = messages.map((m) => this.judge.judge(m, this.own, this.toClientRequests));
    const then = (checked: (Judgement | undefined)[]) => () => {
      if (checked.some((j) => j?.verdict.kind === 'ask-first')) this.confirmAside(checked, finish);
      else finish(checked);
    };
    const finish = (settled: (Judgement | undefined)[]) => {
      // Answers go under their requests' ids as written (read from the line only when there are any).
      const audit = this.options.onAudit;
      const ids = settled.some((j) => j?.reply !== undefined || (j && audit)) ? rawIds(text) : [];
      // The trail is written before any answer leaves or the call goes on.
      if (audit) auditJudgements(audit, settled, messages, ids);
      this.route(
        line,
        batch,
        messages,
        settled.map((j, k) => j?.reply && underId(j.reply, ids[k])),
        settled.map((j) => j?.verdict.kind === 'drop'),
      );
    };
    return answers.some((a) => a instanceof Promise) ? Promise.all(answers).then(then) : then(answers as (Judgement | undefined)[]);
  }

  /** Asks the client about each call of a line that needs it, the line held aside meanwhile. */
  private confirmAside(checked: (Judgement | undefined)[], finish: (settled: (Judgement | undefined)[]) => void): void {
    this.confirming++;
    this.judge.confirmed(checked, this.toClientRequests).then(
      (settled) => {
        this.confirming--;
        if (this.failed) return;
        finish(settled);
        this.flush();
        this.drained();
      },
      (e: unknown) => this.fail(e),
    );
  }

  /** Whether a whole server line is the answer to the guard's own request (then taken, decoded). */
  private ownAnswer(line: Uint8Array): boolean {
    const m = parse(line) as Message | undefined;
    if (!this.own.isAnswer(m)) return false;
    let decoded: Error | Message;
    try {
      decoded = this.codec.decodeMessage(m!);
    } catch {
      decoded = new Error('its answer could not be decoded');
    }
    this.own.settle(m!, decoded);
    return true;
  }

  /** Sends on what passed, answers what was answered here; `dropped` ones go nowhere (guard/drop.ts). */
  private route(
    line: Uint8Array,
    batch: Message[] | undefined,
    messages: Message[],
    answers: (Message | undefined)[],
    dropped: boolean[],
  ): void {
    const keep = messages.flatMap((_, i) => (answers[i] === undefined && !dropped[i] ? [i] : []));
    const rest = keep.map((i) => messages[i]!);
    const given = answers.filter((a): a is Message => a !== undefined);
    for (const m of rest) if (isRequest(m) && m.method === 'tools/list') remember(this.pendingLists, m.id);
    if (!batch) {
      if (given.length) this.io.reply(given[0]!);
      else if (keep.length) this.passed.push(line, NEWLINE);
      return;
    }
    if (keep.length === messages.length) {
      this.passed.push(line, NEWLINE); // byte for byte
      return;
    }
    if (given.length) {
      // Only requests are answered (a client's responses to the server's requests are not).
      const ids = new Set(rest.flatMap((m) => (isRequest(m) ? [m.id] : [])));
      if (ids.size === 0)
        this.io.reply(given); // nothing the server will answer
      else this.partials.add(ids, given);
    }
    // The messages that pass go as the client wrote them (a big id or number printed again
    // would change): their bytes, cut out of the line.
    if (rest.length) this.passed.push(keepElements(line, keep), NEWLINE);
  }

  /** Encoded bytes on their way to the client. */
  toClient(bytes: Uint8Array): void {
    this.responses.push(bytes);
    const out: Uint8Array[] = [];
    let start = 0;
    while (start < bytes.length) {
      if (this.atLineStart) {
        // Servers answer a batch with a batch: such a line is held whole while the proxy has
        // answers to add to one (bounded like any message, by --max-message-bytes).
        this.holding = (this.partials.size > 0 && bytes[start] === OPEN_BRACKET) || (this.own.waiting > 0 && bytes[start] === OPEN_BRACE);
        this.atLineStart = false;
      }
      const nl = bytes.indexOf(0x0a, start);
      const end = nl < 0 ? bytes.length : nl + 1;
      if (this.holding) this.held.push(bytes.slice(start, end));
      else out.push(bytes.subarray(start, end));
      if (nl >= 0) {
        this.atLineStart = true;
        if (this.holding) {
          const line = concat(this.held.splice(0));
          if (!(line[0] === OPEN_BRACE && this.ownAnswer(line))) out.push(this.partials.merge(line));
        }
      }
      start = end;
    }
    if (out.length) this.io.toClient(out.length === 1 ? out[0]! : concat(out));
  }

  /** The server's output ended: a held line goes out, and answers still waiting for the server. */
  endFromServer(): void {
    this.responses.end();
    this.own.failAll('the server ended its output');
    if (this.held.length) this.io.toClient(this.partials.merge(concat(this.held.splice(0))));
    for (const answers of this.partials.takeAll()) this.io.reply(answers);
  }

  private learn(line: Uint8Array): void {
    const parsed = parse(line);
    for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as { id?: unknown; method?: unknown }[]) {
      if (typeof m !== 'object' || m === null) continue;
      const id = idOf(m);
      if (!Array.isArray(parsed) && id !== undefined && !('method' in m)) {
        // A server that answers a batch with single lines: the proxy's answers follow its first.
        const answers = this.partials.single(id);
        if (answers) this.io.reply(answers);
      }
      const answersList = id !== undefined && this.pendingLists.delete(id);
      if (!this.tools || (!answersList && m.method !== 'notifications/tools/list_changed')) continue;
      try {
        this.tools.incoming(this.codec.decodeMessage(m as Message));
      } catch {
        // keys that collide once decoded: encoding made them, from distinct keys; cannot happen
      }
    }
  }
}
