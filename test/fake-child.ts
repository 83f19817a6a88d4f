// A child process on in-memory streams, for ServeSession tests: what the session writes to its
// stdin is read back as lines; what the test writes to its stdout is the child's output.
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { SessionChild } from '../src/cli/serve-child.ts';

export class FakeChild extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly pid = 4242;
  /** The signals it was sent. */
  readonly signals: string[] = [];
  private input = '';

  constructor() {
    super();
    this.stdin.on('data', (b: Buffer) => {
      this.input += b.toString('utf8');
    });
  }

  /** Typed as what a session takes. */
  get asChild(): SessionChild {
    return this as unknown as SessionChild;
  }

  /** The lines the session wrote to its stdin, as text. */
  get lines(): string[] {
    return this.input.split('\n').filter(Boolean);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    this.signals.push(signal);
    return true;
  }

  /** Writes `text` (whole lines) to its stdout. */
  say(text: string): void {
    this.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Exits with `code`: its stdout ends first, as a process's does. */
  exit(code: number): void {
    this.exitCode = code;
    this.stdout.end();
    setImmediate(() => this.emit('exit', code, null));
  }
}

/** Waits until `check` holds, polling, up to `ms` (then throws, naming `what`). */
export async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** An event of a Streamable HTTP event stream: its id and data (undefined fields absent). */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Reads a response's event stream as events, `count` of them or to its end. */
export class SseEvents {
  readonly events: SseEvent[] = [];
  ended = false;
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
    void this.pump();
  }

  /** The message events' data, parsed. */
  get messages(): Record<string, unknown>[] {
    return this.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data));
  }

  async untilCount(n: number): Promise<void> {
    await until(() => this.messages.length >= n || this.ended, `${n} messages`);
  }

  async untilEnd(): Promise<void> {
    await until(() => this.ended, 'the end of the stream');
  }

  /** Stops reading (the host leaves). */
  async leave(): Promise<void> {
    await this.reader.cancel();
  }

  private async pump(): Promise<void> {
    const text = new TextDecoder();
    for (;;) {
      const next = await this.reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) break;
      this.buffer += text.decode(next.value, { stream: true });
      for (let end = this.buffer.indexOf('\n\n'); end >= 0; end = this.buffer.indexOf('\n\n')) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        if (block.startsWith(':')) continue; // (a keep-alive comment)
        const e: SseEvent = { data: '' };
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          const [field, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
          if (field === 'id') e.id = value;
          else if (field === 'event') e.event = value;
          else if (field === 'data') e.data = value;
        }
        this.events.push(e);
      }
    }
    this.ended = true;
  }
}
