// wrap --call-timeout on NDJSON lines: the timers, the answers and the cancellation are
// guard/call-timer.ts's; this reads the requests from what reaches the server (after the guard: a
// request it blocked is answered already) and the answers from the server's raw output, both by
// their ids as written (the codec never rewrites an id), so `9007199254740993` is told apart
// from `9007199254740992`. Each request of a batch is timed on its own and answered as a single
// message.
//
// A server line is held whole only while some request is timed or waits, and only up to
// `holdLimit` bytes: a longer line passes unread (its id may come last), said once.

import { keepElements } from '../codec/json-spans.js';
import type { OnAudit } from '../guard/audit.js';
import { CallTimer } from '../guard/call-timer.js';
import { idKey, memberText, readMessage } from '../jsonrpc/raw-id.js';
import { concat } from '../util/concat.js';
import { isObject } from '../util/json.js';
import { LineSplitter } from './lines.js';
import type { Reply } from './replies.js';

export { MAX_TRACKED, seconds, TIMEOUT_CODE } from '../guard/call-timer.js';

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();
const NEWLINE = new Uint8Array([0x0a]);

export interface CallTimeoutIo {
  /** An answer of the proxy's own to the client (encoded by the caller). */
  reply: (reply: Reply) => void;
  /** Bytes on to the server: the client's, and the proxy's own cancellations between its lines. */
  toServer: (bytes: Uint8Array) => void;
  log: (line: string) => void;
  /** Told each request the proxy answered for the server, before its answer leaves. */
  onAudit?: OnAudit;
}

export class CallTimeouts {
  private readonly timer: CallTimer;
  private readonly requests = new LineSplitter((line) => this.sent(line));
  /** The client's bytes to the server end between lines; else cancellations wait for the line's end. */
  private betweenLines = true;
  private cancellations: Uint8Array[] = [];
  private toldLong = false;
  // The server's output, line by line: held whole only while some id is timed or late.
  private atLineStart = true;
  private holding = false;
  private held: Uint8Array[] = [];
  private heldBytes = 0;

  constructor(
    limitMs: number,
    maxMs: number,
    private readonly io: CallTimeoutIo,
    private readonly holdLimit: number,
  ) {
    this.timer = new CallTimer({
      limitMs,
      maxMs,
      log: io.log,
      onAudit: io.onAudit,
      onTimeout: (t) => {
        io.reply(t.answer);
        const cancel = utf8Encoder.encode(`${t.cancel}\n`);
        if (this.betweenLines) io.toServer(cancel);
        else this.cancellations.push(cancel); // (never inside a line of the client's still being written)
      },
    });
  }

  /** Decoded bytes on their way to the server (the client's lines that passed): read, then written. */
  toServer(bytes: Uint8Array): void {
    this.requests.push(bytes);
    this.io.toServer(bytes);
    if (bytes.length) this.betweenLines = bytes[bytes.length - 1] === 0x0a;
    if (this.betweenLines && this.cancellations.length) this.io.toServer(concat(this.cancellations.splice(0)));
  }

  private sent(line: Uint8Array): void {
    const text = utf8.decode(line);
    const read = readMessage(text);
    if (!read) return;
    const parsed = read.value;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    if (!messages.some((m) => isObject(m) && typeof m.method === 'string' && 'id' in m)) return;
    const { ids } = read;
    messages.forEach((m, k) => {
      const id = ids[k];
      if (!isObject(m) || typeof m.method !== 'string' || !id) return;
      const token = Array.isArray(parsed) ? progressTokenText(m) : memberText(text, ['params', '_meta', 'progressToken']);
      const name = (m.params as { name?: unknown } | undefined)?.name;
      this.timer.track(
        id.text,
        m.method,
        m.method === 'tools/call' ? String(name) : undefined,
        token === undefined ? undefined : idKey(token),
      );
    });
  }

  /** The server's raw output; `next` gets it without the late answers. */
  fromServer(bytes: Uint8Array, next: (bytes: Uint8Array) => void): void {
    const out: Uint8Array[] = [];
    let start = 0;
    while (start < bytes.length) {
      if (this.atLineStart) {
        this.holding = this.timer.watching;
        this.atLineStart = false;
      }
      const nl = bytes.indexOf(0x0a, start);
      const end = nl < 0 ? bytes.length : nl + 1;
      if (this.holding) {
        this.held.push(bytes.slice(start, end));
        this.heldBytes += end - start;
        if (nl < 0 && this.heldBytes > this.holdLimit) {
          if (!this.toldLong)
            this.io.log(`--call-timeout: a server line over ${this.holdLimit} bytes passes unread (a late answer in one is not dropped)`);
          this.toldLong = true;
          this.holding = false;
          out.push(...this.held.splice(0));
          this.heldBytes = 0;
        }
      } else out.push(bytes.subarray(start, end));
      if (nl >= 0) {
        this.atLineStart = true;
        if (this.holding) {
          const line = concat(this.held.splice(0));
          this.heldBytes = 0;
          const kept = this.read(line);
          if (kept) out.push(kept);
        }
      }
      start = end;
    }
    if (out.length) next(out.length === 1 ? out[0]! : concat(out));
  }

  /** The server's output ended: a held last line goes on. */
  endFromServer(next: (bytes: Uint8Array) => void): void {
    if (this.held.length) {
      const kept = this.read(concat(this.held.splice(0)));
      if (kept) next(kept);
    }
    this.stop();
  }

  /** A whole server line (with its '\n'), without its late answers; undefined for none left. */
  private read(line: Uint8Array): Uint8Array | undefined {
    const text = utf8.decode(line);
    const read = readMessage(text);
    if (!read) return line; // not JSON: the stream says so
    const { value: parsed, ids } = read;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const keep: number[] = [];
    messages.forEach((m, k) => {
      const written = ids[k]?.text;
      if (isObject(m) && m.method === 'notifications/progress') {
        const token = Array.isArray(parsed) ? progressTokenText(m, 'params') : memberText(text, ['params', 'progressToken']);
        if (token !== undefined) this.timer.progress(idKey(token));
      } else if (isObject(m) && m.method === undefined && written !== undefined && this.timer.answered(written)) return;
      keep.push(k);
    });
    if (keep.length === messages.length) return line;
    if (!Array.isArray(parsed) || keep.length === 0) return undefined;
    return concat([keepElements(line.subarray(0, line.lastIndexOf(0x5d) + 1), keep), NEWLINE]);
  }

  /** No more timers (the server is gone). */
  stop(): void {
    this.timer.stop();
  }
}

/** A progress token's JSON text from a parsed message (in a batch, where no text span is at hand). */
function progressTokenText(m: Record<string, unknown>, where: 'meta' | 'params' = 'meta'): string | undefined {
  const params = m.params as Record<string, unknown> | undefined;
  const token = where === 'params' ? params?.progressToken : (params?._meta as Record<string, unknown> | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? JSON.stringify(token) : undefined;
}
