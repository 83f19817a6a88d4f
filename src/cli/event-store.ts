// A bounded, in-memory event store for Last-Event-ID resumption, one per `serve` session: it
// keeps the last MAX_EVENTS events of the session (all streams together), the messages of at most
// MAX_BYTES of them as the text that was sent (or the newest alone, when it is larger; as
// characters); an older event keeps its id
// only, so a client that saw it resumes after it while what followed is held. A client that
// comes back too late gets 400 instead of the server holding memory for it (a few large results
// would otherwise pin gigabytes).

const MAX_EVENTS = 1000;
const MAX_BYTES = 64 * 1024 * 1024;

export class BoundedEventStore {
  /** Oldest first; the first `marked` have let their message go (over the byte bound): ids only. */
  private events: { id: string; streamId: string; message: string | undefined; size: number }[] = [];
  private marked = 0;
  private seq = 0;
  private bytes = 0;

  constructor(
    private readonly max = MAX_EVENTS,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  /** Stores the message (its JSON text; '' for an event without one: a stream's priming event); its event id. */
  storeEvent(streamId: string, message: string): string {
    const id = `${streamId}|${++this.seq}`;
    const size = message.length;
    this.events.push({ id, streamId, message, size });
    this.bytes += size;
    // Over the byte bound, the oldest messages go but their ids stay (until MAX_EVENTS): a client
    // that saw one (however large: the newest always stays whole) resumes after it, as long as
    // what followed it on its stream is still held. Over the count bound, the oldest go entirely.
    while (this.marked < this.events.length - 1 && this.bytes > this.maxBytes) {
      const e = this.events[this.marked++]!;
      this.bytes -= e.size;
      e.message = undefined;
      e.size = 0;
    }
    const drop = Math.max(0, this.events.length - this.max);
    if (drop) {
      for (const e of this.events.slice(0, drop)) this.bytes -= e.size;
      this.events.splice(0, drop);
      this.marked = Math.max(0, this.marked - drop);
    }
    return id;
  }

  /** Where event `at` lies, if what followed it on its stream is all held; else -1. */
  private resumable(eventId: string): number {
    const at = this.events.findIndex((e) => e.id === eventId);
    if (at < 0) return -1;
    const streamId = this.events[at]!.streamId;
    for (let k = at + 1; k < this.marked; k++) if (this.events[k]!.streamId === streamId) return -1;
    return at;
  }

  getStreamIdForEventId(eventId: string): string | undefined {
    const at = this.resumable(eventId);
    return at < 0 ? undefined : this.events[at]!.streamId;
  }

  /** The stream of event `lastEventId` and its messages after it, as [event id, message]; undefined when it cannot be resumed. */
  eventsAfter(lastEventId: string): { streamId: string; events: [string, string][] } | undefined {
    const at = this.resumable(lastEventId);
    if (at < 0) return undefined;
    const streamId = this.events[at]!.streamId;
    const events: [string, string][] = [];
    for (const e of this.events.slice(at + 1)) if (e.streamId === streamId && e.message) events.push([e.id, e.message]);
    return { streamId, events };
  }
}
