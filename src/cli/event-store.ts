// A bounded, in-memory event store for Last-Event-ID resumption, one per `serve` session: it
// keeps the last MAX_EVENTS events of the session (all streams together), at most MAX_BYTES of
// them as JSON (or the newest alone, when it is larger), and forgets older ones, so a client that comes back too late gets 400 instead of
// the server holding memory for it (a few large results would otherwise pin gigabytes).
import type { EventStore } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const MAX_EVENTS = 1000;
const MAX_BYTES = 64 * 1024 * 1024;

export class BoundedEventStore implements EventStore {
  private events: { id: string; streamId: string; message: JSONRPCMessage; size: number }[] = [];
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
    // The newest stays, however large (at most a message): its id was handed out, and a client
    // that saw it and drops resumes from it (dropped at once, the resumption got 400).
    let drop = 0;
    while (drop < this.events.length - 1 && (this.events.length - drop > this.max || this.bytes > this.maxBytes))
      this.bytes -= this.events[drop++]!.size;
    if (drop) this.events.splice(0, drop);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at < 0) throw new Error('that event is no longer stored');
    const streamId = this.events[at]!.streamId;
    for (const e of this.events.slice(at + 1)) if (e.streamId === streamId) await send(e.id, e.message);
    return streamId;
  }
}
