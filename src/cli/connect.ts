// `mcp-payload-codec connect URL [--header 'Name: value']...`: a stdio MCP server for hosts
// that only speak stdio, forwarding to a remote Streamable HTTP server, filtered (through
// createFilteringFetch: what the host sends is decoded, what comes back encoded). Each line from
// the host is posted as it comes (remote-session.ts: the session id and protocol version, the
// GET stream, resumption, DELETE when the host closes stdin; connect-relay.ts: each answer).
import type { Readable, Writable } from 'node:stream';
import { createCodec } from '../codec/codec.js';
import { firstInvalidUtf8Byte, readLeniently } from '../codec/invalid-utf8.js';
import type { CodecOptions } from '../codec/options.js';
import type { OnAudit } from '../guard/audit.js';
import type { GuardMode } from '../http/call-guard.js';
import { createFilteringFetch, type FetchLike } from '../http/fetch.js';
import { PARSE_ERROR, refusalReplies } from '../jsonrpc/message.js';
import { messageText } from '../jsonrpc/raw-id.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import type { CommandLine } from './args.js';
import { auditOption } from './audit-file.js';
import { HostLines } from './host-lines.js';
import { callTimeout, type StreamCommandOptions } from './http-args.js';
import { ndjsonLines } from './ndjson-lines.js';
import { RemoteSession } from './remote-session.js';
import { lexicalRootsOption } from './roots.js';
import { UsageError } from './usage-error.js';

export interface ConnectCommandOptions extends CodecOptions {
  url: string;
  /** Extra request headers, each 'Name: value' (Authorization, say). */
  headers?: string[];
  maxMessageBytes?: number;
  /** Check tool calls before they leave ('all': tools and U+FFFD, as wrap --guard). */
  guard?: GuardMode | false;
  /** With a guard: absolute folders (the server's) path arguments must stay in; a lexical check. */
  roots?: string[];
  /** With a guard: told each tools/call judged, with its session, before its answer or the call goes on. */
  onAudit?: OnAudit;
  /** Answer a request the server leaves unanswered this long (http/timed.ts); default: none. */
  callTimeoutMs?: number;
  /** How long progress may keep a request going in all; default 10 times callTimeoutMs. */
  callTimeoutMaxMs?: number;
  /** Defaults: process.stdin, process.stdout, stderr lines, globalThis.fetch. */
  input?: Readable;
  output?: Writable;
  log?: (line: string) => void;
  fetch?: FetchLike;
}

export function parseHeaders(lines: readonly string[]): Headers {
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new TypeError(`--header must be 'Name: value'`);
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** Runs until the host closes stdin; resolves with the exit code. */
export async function runConnect(options: ConnectCommandOptions): Promise<number> {
  const { url, headers = [], input = process.stdin, output = process.stdout, fetch: inner, ...rest } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`mcp-payload-codec: ${line}\n`));
  const endpoint = new URL(url);
  const max = rest.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const codec = createCodec(rest);
  const host = new HostLines(output, codec);
  const fetch = createFilteringFetch({ ...rest, fetch: inner, onGuardLog: log });
  const remote = new RemoteSession({ endpoint, headers: parseHeaders(headers), fetch, host, log, maxBytes: max });
  const inFlight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    const settled = p.catch((e: Error) => log(`internal error: ${e.name}`));
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };
  /**
   * A line that is not UTF-8 is not posted (decoding would turn it into U+FFFD, silently): read
   * as the server would read it, its requests are answered and its responses (answers to the
   * server's requests) posted as errors, so no one waits for a timeout.
   */
  const refuse = (bytes: Uint8Array, n: number) => {
    const reason = `line ${n} from the host is not valid UTF-8 (at byte ${firstInvalidUtf8Byte(bytes)}) and was not forwarded`;
    const { replies, toOtherSide } = refusalReplies(readLeniently(bytes), PARSE_ERROR, reason);
    if (replies) void host.reply(replies);
    for (const m of toOtherSide) track(remote.post(messageText(m)));
    log(`skipped ${reason}`);
  };

  log(`forwarding stdio to ${endpoint.origin}${endpoint.pathname}`);
  // Lines from the host, each posted as it comes (a long call must not hold up a cancellation).
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lines = 0;
  try {
    for await (const bytes of ndjsonLines(input as AsyncIterable<Uint8Array | string>, max)) {
      lines++;
      let line: string;
      try {
        line = decoder.decode(bytes);
      } catch {
        refuse(bytes, lines);
        continue;
      }
      if (line.trim() === '') continue;
      track(remote.post(line));
    }
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new Error(`line ${lines + 1} from the host is larger than maxMessageBytes (${max})`);
  }
  // The host is done: let answers in flight finish, then end the session.
  await Promise.allSettled([...inFlight]);
  await remote.end();
  return 0;
}

/** `connect` from its command line; resolves with the exit code when stdin ends. */
export async function connectCommand(line: CommandLine, options: StreamCommandOptions, guard: GuardMode | false): Promise<number> {
  if (line.positionals.length !== 1) throw new UsageError('connect needs one URL');
  const url = line.positionals[0]!;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError('connect: the URL must be an http: or https: URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('connect: the URL must be an http: or https: URL');
  const headers = line.lists.header ?? [];
  try {
    parseHeaders(headers);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const roots = lexicalRootsOption(line);
  const audit = auditOption(line, (text) => process.stderr.write(`mcp-payload-codec: ${text}\n`));
  try {
    return await runConnect({
      ...options,
      url,
      headers,
      guard,
      ...callTimeout(line),
      ...(roots ? { roots } : {}),
      ...(audit ? { onAudit: audit.onAudit } : {}),
    });
  } finally {
    audit?.close();
  }
}
