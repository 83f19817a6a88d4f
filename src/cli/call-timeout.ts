// wrap --call-timeout: a request from the client that the server has not answered within the
// limit is answered by the proxy (a tools/call with an isError result, anything else with
// JSON-RPC error -32001), the server is sent notifications/cancelled for it, and its late answer
// is dropped. Progress notifications for the request restart its timer, as the SDK's
// resetTimeoutOnProgress does, up to a total of `maxMs`.
//
// Requests are read from what reaches the server (after the guard: a request it blocked is
// answered already), answers from the server's raw output; both by their ids as written (the
// codec never rewrites an id), so `9007199254740993` is told apart from `9007199254740992`.
// Each request of a batch is timed on its own and answered as a single message.
//
// Memory stays bounded: at most MAX_TRACKED requests in flight are timed (beyond, the rest are
// not, said once), and as many timed-out ids wait for a late answer (the oldest forgotten). A
// server line is held whole only while some request is timed or waits, and only up to
// `holdLimit` bytes: a longer line passes unread (its id may come last), said once.
import { concat } from '../concat.js';
import type { OnAudit } from '../guard/audit.js';
import { keepElements } from '../json-spans.js';
import { idKey, memberText, RawId, rawIds } from '../raw-id.js';
import { LineSplitter } from './lines.js';
import type { Reply } from './replies.js';

/** Requests timed at once; beyond, the rest go untimed. */
export const MAX_TRACKED = 10_000;
/** JSON-RPC error code of an answer the proxy gives for the server (the SDK's RequestTimeout). */
export const TIMEOUT_CODE = -32001;

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

interface Pending {
  /** The id as the client wrote it (answers and the cancellation carry it). */
  raw: string;
  method: string;
  /** The tool's name, for a tools/call. */
  tool: string | undefined;
  started: number;
  timer: NodeJS.Timeout;
  /** The progressToken's text, when the request asked for progress. */
  token: string | undefined;
}

/** `30 s`, `1.5 s`: how the answer names the limit. */
export const seconds = (ms: number) => `${ms / 1000} s`;

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const isObject = (m: unknown): m is Record<string, unknown> => typeof m === 'object' && m !== null && !Array.isArray(m);

export class CallTimeouts {
  private readonly pending = new Map<string, Pending>();
  /** Progress tokens (by idKey), to the key of their request. */
  private readonly tokens = new Map<string, string>();
  /** Ids (by idKey) answered by the proxy: their late answers are dropped. */
  private readonly late = new Set<string>();
  private readonly requests = new LineSplitter((line) => this.sent(line));
  /** The client's bytes to the server end between lines; else cancellations wait for the line's end. */
  private betweenLines = true;
  private cancellations: Uint8Array[] = [];
  private toldFull = false;
  private toldLong = false;
  // The server's output, line by line: held whole only while some id is timed or late.
  private atLineStart = true;
  private holding = false;
  private held: Uint8Array[] = [];
  private heldBytes = 0;

  constructor(
    private readonly limitMs: number,
    private readonly maxMs: number,
    private readonly io: CallTimeoutIo,
    private readonly holdLimit: number,
  ) {}

  /** Decoded bytes on their way to the server (the client's lines that passed): read, then written. */
  toServer(bytes: Uint8Array): void {
    this.requests.push(bytes);
    this.io.toServer(bytes);
    if (bytes.length) this.betweenLines = bytes[bytes.length - 1] === 0x0a;
    if (this.betweenLines && this.cancellations.length) this.io.toServer(concat(this.cancellations.splice(0)));
  }

  private sent(line: Uint8Array): void {
    const text = utf8.decode(line);
    const parsed = parse(text);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    if (!messages.some((m) => isObject(m) && typeof m.method === 'string' && 'id' in m)) return;
    const ids = rawIds(text);
    messages.forEach((m, k) => {
      const id = ids[k];
      if (!isObject(m) || typeof m.method !== 'string' || !id) return;
      const token = Array.isArray(parsed) ? progressTokenText(m) : memberText(text, ['params', '_meta', 'progressToken']);
      const name = (m.params as { name?: unknown } | undefined)?.name;
      this.track(id.text, m.method, m.method === 'tools/call' ? String(name) : undefined, token === undefined ? undefined : idKey(token));
    });
  }

  private track(raw: string, method: string, tool: string | undefined, token: string | undefined): void {
    // Keyed by what the id means, not how it is spelt: a server may answer under the id it parsed.
    const id = idKey(raw);
    if (this.pending.has(id)) return; // a reused id: the first one's timer stands
    if (this.pending.size >= MAX_TRACKED) {
      if (!this.toldFull) this.io.log(`--call-timeout: over ${MAX_TRACKED} requests in flight; the ones beyond are not timed`);
      this.toldFull = true;
      return;
    }
    this.late.delete(id); // an id used again: its new answer is awaited
    const timer = setTimeout(() => this.expire(id), this.limitMs);
    this.pending.set(id, { raw, method, tool, started: Date.now(), timer, token });
    if (token !== undefined) this.tokens.set(token, id);
  }

  private settle(id: string): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    clearTimeout(p.timer);
    this.pending.delete(id);
    if (p.token !== undefined && this.tokens.get(p.token) === id) this.tokens.delete(p.token);
    return p;
  }

  private expire(id: string): void {
    const p = this.settle(id);
    if (!p) return;
    this.late.add(id);
    if (this.late.size > MAX_TRACKED) this.late.delete(this.late.values().next().value!);
    const text = `no answer from the server within ${seconds(this.limitMs)}`;
    const rawId = new RawId(p.raw);
    this.io.onAudit?.({
      time: new Date().toISOString(),
      request: p.raw,
      ...(p.tool === undefined ? {} : { tool: p.tool }),
      decision: 'timed-out',
      rule: 'timeout',
    });
    this.io.reply(
      p.method === 'tools/call'
        ? { jsonrpc: '2.0', id: rawId, result: { content: [{ type: 'text', text }], isError: true } }
        : { jsonrpc: '2.0', id: rawId, error: { code: TIMEOUT_CODE, message: text } },
    );
    const cancel = utf8Encoder.encode(
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${p.raw},"reason":"timeout"}}\n`,
    );
    if (this.betweenLines) this.io.toServer(cancel);
    else this.cancellations.push(cancel); // (never inside a line of the client's still being written)
    this.io.log(`--call-timeout: ${p.method} ${id} had no answer within ${seconds(this.limitMs)}; answered it, told the server`);
  }

  /** Progress for a timed request: its timer starts again, within maxMs of its start. */
  private progress(token: string): void {
    const id = this.tokens.get(token);
    const p = id === undefined ? undefined : this.pending.get(id);
    if (!p) return;
    const left = Math.min(this.limitMs, p.started + this.maxMs - Date.now());
    if (left <= 0) return; // the cap: its timer fires as set
    clearTimeout(p.timer);
    p.timer = setTimeout(() => this.expire(id!), left);
  }

  /** The server's raw output; `next` gets it without the late answers. */
  fromServer(bytes: Uint8Array, next: (bytes: Uint8Array) => void): void {
    const out: Uint8Array[] = [];
    let start = 0;
    while (start < bytes.length) {
      if (this.atLineStart) {
        this.holding = this.pending.size > 0 || this.late.size > 0;
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
    const parsed = parse(text);
    if (parsed === undefined) return line; // not JSON: the stream says so
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const ids = rawIds(text);
    const keep: number[] = [];
    messages.forEach((m, k) => {
      const written = ids[k]?.text;
      const id = written === undefined ? undefined : idKey(written);
      if (isObject(m) && m.method === 'notifications/progress') {
        const token = Array.isArray(parsed) ? progressTokenText(m, 'params') : memberText(text, ['params', 'progressToken']);
        if (token !== undefined) this.progress(idKey(token));
      } else if (isObject(m) && m.method === undefined && id !== undefined) {
        if (this.late.delete(id)) {
          this.io.log(`--call-timeout: dropped the server's late answer to ${written}`);
          return;
        }
        this.settle(id);
      }
      keep.push(k);
    });
    if (keep.length === messages.length) return line;
    if (!Array.isArray(parsed) || keep.length === 0) return undefined;
    return concat([keepElements(line.subarray(0, line.lastIndexOf(0x5d) + 1), keep), NEWLINE]);
  }

  /** No more timers (the server is gone). */
  stop(): void {
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    this.tokens.clear();
  }
}

/** A progress token's JSON text from a parsed message (in a batch, where no text span is at hand). */
function progressTokenText(m: Record<string, unknown>, where: 'meta' | 'params' = 'meta'): string | undefined {
  const params = m.params as Record<string, unknown> | undefined;
  const token = where === 'params' ? params?.progressToken : (params?._meta as Record<string, unknown> | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? JSON.stringify(token) : undefined;
}
