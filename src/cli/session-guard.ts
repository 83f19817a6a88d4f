// The tool guard of one `serve` session (--guard): it checks each message from the host on its
// way to the child, in order, and learns the tool list from what the child writes. It may ask
// either side itself: the child for a page of its tool list (when it cannot judge a call: no
// list seen yet, or a tool not in the last one after list_changed), the host for a confirmation
// (--confirm, on that call's event stream) or its roots (--root client). Ids are the guard's own
// (own-requests.ts); the answers are taken out of what each side sends and never reach the
// other. A call waiting for its user is held aside: the messages after it pass the guard meanwhile.
import type { Codec } from '../codec/codec.js';
import { DROPPED, droppedCall } from '../guard/drop.js';
import { OwnRequests } from '../guard/own-requests.js';
import type { CallGuard } from '../http/call-guard.js';
import { errorResponse, type Id, type Message, SERVER_ERROR } from '../jsonrpc/message.js';
import { type HostMessage, isRequest } from './host-message.js';

export interface SessionGuardIo {
  /** A line for the child (the guard's own tools/list). */
  toChild: (line: string) => void;
  /** A request of the guard's own for the host, encoded: on `stream`, else where the child's own requests go. */
  toHost: (request: Message, stream?: string) => void;
  /** A message that passed: on to the child. */
  pass: (m: HostMessage) => void;
  /** A message answered here instead (a blocked call): `answer` goes to the host under its id. */
  answer: (m: HostMessage, answer: object) => void;
  ended: () => boolean;
  log: (line: string) => void;
}

export class SessionGuard {
  /** Messages from the host pass the guard in order (a check may wait for the schema compiler). */
  private checks: Promise<void> = Promise.resolve();
  /** The guard's own tools/list requests to the child; their answers are taken from its output, decoded. */
  private readonly own = new OwnRequests((request) => {
    if (this.io.ended()) throw new Error('the session has ended');
    this.io.toChild(JSON.stringify(request));
  });
  /** The guard's own requests to the host (confirmations, roots/list): encoded, routed as the child's requests. */
  private readonly host = new OwnRequests((request) => this.io.toHost(request), 'client');

  constructor(
    private readonly guard: CallGuard | undefined,
    private readonly session: string,
    private readonly codec: Codec,
    private readonly io: SessionGuardIo,
  ) {}

  /** The messages of a POST that are not the host's answers to the guard's own requests (those settle them here). */
  takeAnswers(all: HostMessage[]): HostMessage[] {
    return all.filter((m) => {
      if (!this.host.isAnswer(m.value)) return true;
      this.host.settle(m.value as unknown as Message);
      return false;
    });
  }

  /** Whether `value` answers a request of the guard's own to the host; then that request fails (its answer could not be read). */
  ownAnswerUnread(value: unknown): boolean {
    if (!this.host.isAnswer(value)) return false;
    this.host.settle(value as Message, new Error('its answer could not be decoded'));
    return true;
  }

  /**
   * A message from the host on its way to the child: passed or answered once checked (`stream`:
   * its POST's event stream, where a confirmation about it is asked). Without a guard, passed now.
   */
  check(m: HostMessage, stream?: string): void {
    const guard = this.guard;
    if (!guard) {
      this.io.pass(m);
      return;
    }
    const client = stream === undefined ? this.host : this.host.via((request) => this.io.toHost(request, stream));
    // (The next message is checked once this one is through, or once it waits for its user.)
    const checked = (next: () => void) =>
      Promise.resolve()
        .then(() => guard.answer(m.value, this.own.ask, { request: m.rawId, session: this.session, client, aside: next }))
        .then(
          (answer) => (answer === DROPPED ? undefined : answer ? this.io.answer(m, answer) : this.io.pass(m)),
          (e: unknown) => {
            this.io.log(`the guard failed (${(e as Error).name}): message not delivered`);
            if (isRequest(m.value)) this.io.answer(m, errorResponse(m.value.id as Id, SERVER_ERROR, 'The tool call guard failed'));
          },
        )
        .finally(next);
    this.checks = this.checks.then(() => new Promise<void>((next) => void checked(next)));
  }

  /**
   * A tools/call refused before the guard (serve answers `"id": null` 400, as the SDK's servers
   * do): the guard drops it as it drops the others, in order (guard/drop.ts: the log line, the
   * trail's entry). Nothing for anything else, or without a guard.
   */
  refused(value: unknown): void {
    const guard = this.guard;
    if (!guard || !droppedCall(value)) return;
    this.checks = this.checks.then(() => void guard.answer(value, undefined, { session: this.session }));
  }

  /** A message from the child (encoded): the guard learns from it; true when it answers the guard's own request (then taken). */
  fromChild(m: { id?: unknown; method?: unknown }): boolean {
    if (this.guard?.wants(m)) {
      try {
        this.guard.learn(this.codec.decodeMessage(m));
      } catch {
        // keys that collide once decoded: encoding made them from distinct keys; cannot happen
      }
    }
    if (!this.own.isAnswer(m)) return false;
    let decoded: Error | Message;
    try {
      decoded = this.codec.decodeMessage(m) as Message;
    } catch {
      decoded = new Error('its answer could not be decoded');
    }
    this.own.settle(m as Message, decoded);
    return true;
  }

  /** No answer can come from the host now: the guard's requests to it fail. */
  failHost(why: string): void {
    this.host.failAll(why);
  }

  /** No answer can come from either side now. */
  failAll(why: string): void {
    this.own.failAll(why);
    this.host.failAll(why);
  }
}
