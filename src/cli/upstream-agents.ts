// The keep-alive connection pools of the proxy's upstream requests (node-upstream.ts), one per
// scheme. When a response ends, Node's agent asks `keepSocketAlive` whether to keep its socket,
// which reads one field, the Keep-Alive hint, through `res.headers`: an object of the whole head
// built a field at a time, per response (9 µs a call in a loaded profile of small calls), that
// nothing else here reads (the proxy reads `rawHeaders`). Here the agent is given that one field,
// read from `rawHeaders` as Node would join it, and the rest is left unbuilt. It reads the
// socket's request as Node's agent does (`_httpMessage`); where that or a settable lazy head is
// missing (another Node), the agents do as Node's own.
import { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';

/**
 * The Keep-Alive field of a raw head as `res.headers` holds it (repeats joined with ", "), or
 * undefined; `entries`: how many of `raw` Node builds `res.headers` from (headEntries).
 */
export function keepAliveHint(raw: readonly string[], entries = raw.length): string | undefined {
  let hint: string | undefined;
  const n = Math.min(entries, raw.length);
  for (let i = 0; i + 1 < n; i += 2) {
    const name = raw[i]!;
    if (name.length !== 10 || name.toLowerCase() !== 'keep-alive') continue;
    hint = hint === undefined ? raw[i + 1]! : `${hint}, ${raw[i + 1]!}`;
  }
  return hint;
}

/** Whether this Node builds `res.headers` when first read and lets it be set (Node 15 on); else the agents do as Node's. */
const LAZY_HEAD = typeof Object.getOwnPropertyDescriptor(IncomingMessage.prototype, 'headers')?.set === 'function';

/** The request a pooled socket just carried, and its response, as the agent reads them. */
const requestOf = (socket: Socket) => (socket as { _httpMessage?: { res?: IncomingMessage; maxHeadersCount?: unknown } })._httpMessage;

/**
 * How many `rawHeaders` entries Node builds `res.headers` from: its parser's limit, the
 * request's maxHeadersCount fields (0: no limit) or else 2000 entries (1000 fields), where
 * `rawHeaders` may hold up to 32 fields more (Node collects them 32 at a time): a hint past
 * the limit is not one Node reads.
 */
function headEntries(req: { maxHeadersCount?: unknown }): number {
  if (typeof req.maxHeadersCount !== 'number') return 2000;
  const entries = req.maxHeadersCount << 1; // (as Node sets its parser's limit)
  return entries > 0 ? entries : Number.POSITIVE_INFINITY;
}

/**
 * Sets `res.headers` to the hint alone for Node's keepSocketAlive to read; `taken` unsets it
 * after, so that a reader (none here) would get the whole head, built from `rawHeaders` as before.
 */
function lent(socket: Socket): IncomingMessage | undefined {
  if (!LAZY_HEAD) return undefined;
  const req = requestOf(socket);
  if (!req?.res) return undefined;
  const res = req.res;
  const hint = keepAliveHint(res.rawHeaders, headEntries(req));
  res.headers = hint === undefined ? {} : { 'keep-alive': hint };
  return res;
}

function taken(res: IncomingMessage | undefined): void {
  if (res) res.headers = undefined as unknown as IncomingMessage['headers']; // (the getter builds the whole head if read)
}

/** Node's keepSocketAlive (`keep`) with the hint lent for it to read. */
function keptWithHint(socket: Socket, keep: () => unknown): boolean {
  const res = lent(socket);
  try {
    return keep() as boolean; // (typed void; Node reads it: keep the socket or not)
  } finally {
    taken(res);
  }
}

class UpstreamHttpAgent extends HttpAgent {
  override keepSocketAlive(socket: Socket): boolean {
    return keptWithHint(socket, () => super.keepSocketAlive(socket));
  }
}

class UpstreamHttpsAgent extends HttpsAgent {
  override keepSocketAlive(socket: Socket): boolean {
    return keptWithHint(socket, () => super.keepSocketAlive(socket));
  }
}

/** One pool per scheme: a stream that ends cleanly gives its connection back. */
export const agents = { 'http:': new UpstreamHttpAgent({ keepAlive: true }), 'https:': new UpstreamHttpsAgent({ keepAlive: true }) };
