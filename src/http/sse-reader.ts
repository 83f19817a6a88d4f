// Reads server-sent events from text chunks (`connect`, and the guard's look at whole events):
// LF, CRLF and CR line ends, an event's data lines joined by '\n', its size bounded.

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export class SseReader {
  private buffer = '';
  private pendingCR = false;
  private data: string[] = [];
  private dataLength = 0;
  private event = '';
  private id: string | undefined;
  /** The last event id seen (for Last-Event-ID when resuming). */
  lastEventId: string | undefined;
  /** The server's reconnection delay (`retry:`), in milliseconds. */
  retryMs: number | undefined;

  /** Called for each event with data. */
  onEvent: (event: SseEvent) => void = () => {};

  constructor(private readonly maxEventChars: number) {}

  /** A new stream: forgets any half-read event, keeps lastEventId and retryMs. */
  reset(): void {
    this.buffer = '';
    this.pendingCR = false;
    this.data = [];
    this.dataLength = 0;
    this.event = '';
    this.id = undefined;
  }

  push(text: string): void {
    if (this.pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.pendingCR = false;
    this.buffer += text;
    if (!/[\r\n]/.test(text)) {
      // (No line ends here: the buffer is split only when one arrives, so a long line costs
      // its length once, not once per piece.)
      if (this.buffer.length + this.dataLength > this.maxEventChars)
        throw new Error(`an event larger than maxMessageBytes (${this.maxEventChars})`);
      return;
    }
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop()!;
    // A CR at the very end may be half of a CRLF: its line is done, an LF next is skipped.
    if (/\r$/.test(text) && this.buffer === '') this.pendingCR = true;
    for (const line of lines) this.line(line);
    if (this.buffer.length + this.dataLength > this.maxEventChars)
      throw new Error(`an event larger than maxMessageBytes (${this.maxEventChars})`);
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') {
      this.data.push(value);
      this.dataLength += value.length + 1;
      if (this.dataLength > this.maxEventChars) throw new Error(`an event larger than maxMessageBytes (${this.maxEventChars})`);
    } else if (name === 'event') this.event = value;
    else if (name === 'id' && !value.includes('\0')) this.id = value;
    else if (name === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  private dispatch(): void {
    if (this.id !== undefined) this.lastEventId = this.id;
    if (this.data.length) this.onEvent({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
    this.data = [];
    this.dataLength = 0;
    this.event = '';
    this.id = undefined;
  }
}
