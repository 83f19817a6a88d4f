// End-to-end helpers: real child processes (the CLI's `wrap`, third-party servers) driven by the
// real SDK Client over StdioClientTransport, and the checks the e2e tests share.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'vitest';
import { DEFAULT_TERMS, decodeMessage, encodeMessage } from '../src/index.ts';

export const ROOT = join(import.meta.dirname, '..');
export const CLI = join(ROOT, 'bin', 'mcp-payload-codec.js');
export const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
export const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
export const MISBEHAVING = join(ROOT, 'test', 'fixtures', 'misbehaving-server.mjs');

/** Short request timeouts: a hang fails in seconds, not the SDK's default 60 s (10 s: the CI host may be loaded). */
export const REQUEST = { timeout: 10_000 } as const;

export interface Session {
  client: Client;
  /** stderr of the process the client started (the proxy passes the child's through). */
  stderr: string[];
  /** All stderr so far, once it holds `text` (see joinedOnceIncludes). */
  stderrWith(text: string, ms?: number): Promise<string>;
  /** Errors the SDK reported on the connection (unparseable lines, unknown ids, ...). */
  errors: Error[];
  /** Every line the client's process wrote on stdout, as raw text. */
  rawLines: string[];
  /** Writes bytes straight into the process's stdin, between the SDK's own messages. */
  writeRaw(text: string): void;
  close(): Promise<void>;
}

// StdioClientTransport keeps its child private; the tests need its raw stdout and stdin.
function childOf(transport: StdioClientTransport): ChildProcess {
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  if (!child?.stdin || !child.stdout) throw new Error('StdioClientTransport no longer exposes _process: update e2e-helpers');
  return child;
}

/**
 * Connects the SDK client to `server` (a command line), through `wrap` or directly.
 * `setup` runs on the client before it connects (notification handlers, say); `wrapArgs` are
 * `wrap`'s own options (`--guard`).
 */
export async function connect(
  server: string[],
  via: 'wrap' | 'direct',
  setup?: (client: Client) => void,
  wrapArgs: string[] = [],
): Promise<Session> {
  const [command, ...args] = via === 'wrap' ? [process.execPath, CLI, 'wrap', ...wrapArgs, '--', ...server] : server;
  // The SDK passes only a few variables to the child; the proxy must run the core this project tests.
  const env = {
    ...getDefaultEnvironment(),
    ...(process.env.MCP_PAYLOAD_CODEC_WASM ? { MCP_PAYLOAD_CODEC_WASM: process.env.MCP_PAYLOAD_CODEC_WASM } : {}),
  };
  const transport = new StdioClientTransport({ command: command!, args, cwd: ROOT, env, stderr: 'pipe' });
  const stderr: string[] = [];
  const errors: Error[] = [];
  const rawLines: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  // Tap stdout as soon as the child exists, before any line can arrive.
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    let partial = '';
    childOf(transport).stdout!.on('data', (d: Buffer) => {
      const parts = (partial + d.toString('utf8')).split('\n');
      partial = parts.pop()!;
      rawLines.push(...parts);
    });
  };
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  client.onerror = (e) => errors.push(e);
  setup?.(client);
  await client.connect(transport, REQUEST);
  return {
    client,
    stderr,
    errors,
    rawLines,
    stderrWith: (text, ms) => joinedOnceIncludes(stderr, text, ms),
    writeRaw: (text) => void childOf(transport).stdin!.write(text),
    close: () => client.close(),
  };
}

/**
 * Resolves with `chunks` joined once they hold `text`, or after `ms`. A child's stderr is its own
 * pipe, so a line it wrote before answering may arrive after the answer, or after it exits.
 */
export async function joinedOnceIncludes(chunks: string[], text: string, ms = 5_000): Promise<string> {
  for (const end = Date.now() + ms; !chunks.join('').includes(text) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
  return chunks.join('');
}

/** What the library's own encodeMessage makes of a result, as a response's payload. */
export function encodedResult<T>(result: T): T {
  return encodeMessage({ jsonrpc: '2.0' as const, id: 1, result }).result;
}

/** What the library's own decodeMessage makes of a request's params (what the server should get). */
export function decodedParams<P>(method: string, params: P): P {
  return decodeMessage({ jsonrpc: '2.0' as const, id: 1, method, params }).params;
}

/** A request the SDK client sends: its JSON-RPC method, and how the client sends it. */
export interface Request<P, R> {
  method: string;
  send(client: Client, params: P): Promise<R>;
}

const request = <P, R>(method: string, send: (client: Client, params: P) => Promise<R>): Request<P, R> => ({ method, send });
export const requests = {
  listTools: request('tools/list', (c) => c.listTools(undefined, REQUEST)),
  callTool: request('tools/call', (c, p: Parameters<Client['callTool']>[0]) => c.callTool(p, undefined, REQUEST)),
  listResources: request('resources/list', (c) => c.listResources(undefined, REQUEST)),
  listResourceTemplates: request('resources/templates/list', (c) => c.listResourceTemplates(undefined, REQUEST)),
  readResource: request('resources/read', (c, p: { uri: string }) => c.readResource(p, REQUEST)),
  listPrompts: request('prompts/list', (c) => c.listPrompts(undefined, REQUEST)),
  getPrompt: request('prompts/get', (c, p: Parameters<Client['getPrompt']>[0]) => c.getPrompt(p, REQUEST)),
  complete: request('completion/complete', (c, p: Parameters<Client['complete']>[0]) => c.complete(p, REQUEST)),
};

export interface Pair {
  direct: Session;
  wrapped: Session;
}

/**
 * Sends `params` as a model would (tokens where terms were) through the proxy, and what
 * decodeMessage makes of them directly. The proxied result must equal encodeMessage of the direct
 * one (after `normalise`, for what legitimately differs between runs) and leak no term.
 */
export async function same<P, R>(
  pair: Pair,
  req: Request<P, R>,
  params: P,
  normalise: (v: unknown) => unknown = (v) => v,
): Promise<{ direct: R; wrapped: R }> {
  const [d, w] = await Promise.all([
    req.send(pair.direct.client, decodedParams(req.method, params)),
    req.send(pair.wrapped.client, params),
  ]);
  expect(normalise(w)).toEqual(normalise(encodedResult(d)));
  expect(termLeaks(w)).toEqual([]);
  return { direct: d, wrapped: w };
}

// Fields that are protocol, not payload: a model never sees them, and a host matches them.
const PROTOCOL_KEYS = new Set(['_meta', 'progressToken', 'requestId', 'protocolVersion', 'cursor', 'nextCursor', 'taskId']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A whole `data:` URI whose payload is base64: opaque bytes. */
export function isBase64DataUri(text: string): boolean {
  const comma = text.indexOf(',');
  return text.startsWith('data:') && comma > 0 && text.slice(0, comma).endsWith(';base64') && BASE64.test(text.slice(comma + 1));
}

function isOpaque(parent: Record<string, unknown>, key: string): boolean {
  if (key === 'data' && (parent.type === 'image' || parent.type === 'audio')) return true;
  return key === 'blob' && Object.hasOwn(parent, 'uri');
}

export interface VisibleString {
  path: string;
  text: string;
}

/**
 * Every string a model may see in `value`: object keys and string values, except protocol fields
 * (`_meta` anywhere, progress tokens, request and task ids, protocol version, cursors) and opaque
 * base64 (image/audio `data`, a resource's `blob`, a whole base64 `data:` URI).
 */
export function modelVisibleStrings(value: unknown): VisibleString[] {
  const out: VisibleString[] = [];
  const stack: [unknown, string][] = [[value, '$']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isBase64DataUri(v)) out.push({ path, text: v });
    } else if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) stack.push([x, `${path}[${i}]`]);
    } else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      for (const [k, x] of Object.entries(o)) {
        out.push({ path: `${path} (key)`, text: k });
        if (!PROTOCOL_KEYS.has(k) && !isOpaque(o, k)) stack.push([x, `${path}.${k}`]);
      }
    }
  }
  return out;
}

// The reference: plain substring search over DEFAULT_TERMS, ASCII case folded only (as the codec does).
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
const ASCII_PATTERNS = [...DEFAULT_TERMS.ascii, ...DEFAULT_TERMS.pairs.flatMap(([a, b]) => ['', '-', '_', ' '].map((sep) => a + sep + b))];

/** The first DEFAULT_TERMS term found in `text`, or undefined. */
export function findTerm(text: string): string | undefined {
  const lower = asciiLower(text);
  return ASCII_PATTERNS.find((t) => lower.includes(t)) ?? DEFAULT_TERMS.exact.find((t) => text.includes(t));
}

/** Where a model-visible string of `value` holds a term: `path: term` (never the text). */
export function termLeaks(value: unknown): string[] {
  return modelVisibleStrings(value).flatMap(({ path, text }) => {
    const term = findTerm(text);
    return term ? [`${path}: ${term}`] : [];
  });
}

/** A stable stand-in for random bytes: the same sequence on every run. */
export function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  let x = seed >>> 0;
  return Uint8Array.from({ length }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x >>> 24;
  });
}
