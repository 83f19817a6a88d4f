// A bounded, in-memory event store for Last-Event-ID resumption, one per `serve` session: it
// keeps the last MAX_EVENTS events of the session (all streams together), the messages of at most
// MAX_BYTES of them as JSON (or the newest alone, when it is larger); an older event keeps its id
// only, so a client that saw it resumes after it while what followed is held. A client that
// comes back too late gets 400 instead of the server holding memory for it (a few large results
// would otherwise pin gigabytes).
import type { EventStore } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const MAX_EVENTS = 1000;
const MAX_BYTES = 64 * 1024 * 1024;

export class BoundedEventStore implements EventStore {
  /** Oldest first; the first `marked` have let their message go (over the byte bound): ids only. */
  private events: { id: string; streamId: string; message: JSONRPCMessage | undefined; size: number }[] = [];
  private marked = 0;
  private seq = 0;
  private bytes = 0;

  constructor(
    private readonly max = MAX_EVENTS,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}|${++this.seq}`;
    const size = JSON.stringify(message).length;
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

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const at = this.resumable(eventId);
    return at < 0 ? undefined : this.events[at]!.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.resumable(lastEventId);
    if (at < 0) throw new Error('that event is no longer stored');
    const streamId = this.events[at]!.streamId;
    for (const e of this.events.slice(at + 1)) if (e.streamId === streamId) await send(e.id, e.message!);
    return streamId;
  }
}
