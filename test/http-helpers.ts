// What every HTTP path (fetch wrapper, proxy, connect, serve) must show a host, checked one way,
// and the loopback servers the tests stand up.
import { once } from 'node:events';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { encodeText } from '../src/index.ts';

export const TIMEOUT = { timeout: 5_000 }; // (a hang fails fast)

export const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;

export interface Seen {
  kind: string;
  text: string;
}

/** The tool list arrives encoded, and an echo call gets the decoded argument to the server and the encoded result back. */
export async function expectEncodedListAndEcho(client: Client, text: string, calls?: () => unknown): Promise<void> {
  const { tools } = await client.listTools(undefined, TIMEOUT);
  expect(tools.find((t) => t.name === 'echo')!.description).toBe(encodeText('Echoes text, for Qwen and 通义千问 users'));
  const result = await client.callTool({ name: 'echo', arguments: { text: encodeText(text) } }, undefined, TIMEOUT);
  if (calls) expect(calls()).toEqual([{ tool: 'echo', args: { text } }]);
  expect(textOf(result)).toBe(encodeText(`echo: ${text}`));
}

/** Progress and log messages sent during a call arrive encoded, each before the result. */
export async function expectProgressBeforeResult(client: Client, seen: Seen[], steps: number): Promise<void> {
  const result = await client.callTool({ name: 'progress', arguments: { steps } }, undefined, {
    ...TIMEOUT,
    onprogress: (p) => void seen.push({ kind: 'progress', text: p.message ?? '' }),
  });
  seen.push({ kind: 'result', text: textOf(result) });
  const want: Seen[] = [];
  for (let i = 1; i <= steps; i++)
    want.push({ kind: 'progress', text: encodeText(`Qwen step ${i}`) }, { kind: 'log', text: encodeText(`dashscope log ${i}`) });
  expect(seen).toEqual([...want, { kind: 'result', text: encodeText('Qwen done') }]);
}

/** A host on the SDK's Streamable HTTP client transport at `url`, recording the log messages it is sent. */
export async function connectHost(url: string) {
  const client = new Client({ name: 'host', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const seen: Seen[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push({ kind: 'log', text: String(n.params.data) }));
  await client.connect(transport, TIMEOUT);
  return { client, transport, seen };
}

/** The first log message of a slow call reaches the host before the call ends (`release` lets it end). */
export async function expectFirstEventBeforeEnd(client: Client, seen: Seen[], release: () => unknown): Promise<void> {
  let started!: () => void;
  const first = new Promise<void>((r) => (started = r));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    seen.push({ kind: 'log', text: String(n.params.data) });
    started();
  });
  const call = client.callTool({ name: 'slow', arguments: {} }, undefined, TIMEOUT);
  await first;
  await release();
  expect(textOf(await call)).toBe(encodeText('Qwen finished'));
}

/** Closes a test server at once, open connections included. */
export const closer = (server: Server) => (): undefined => {
  server.closeAllConnections();
  server.close();
};

/** Listens on a free loopback port, closed by `cleanup`; resolves with its /mcp URL. */
export async function onLoopback(server: Server, cleanup: (() => unknown)[]): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(closer(server));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/**
 * A raw test upstream's answer to `initialize`: JSON, the protocol version the client asked for
 * unless `version` is given, and a session id when `session` is.
 */
export function answerInitialize(
  res: ServerResponse,
  m: { id: unknown; params: { protocolVersion: string } },
  { session, version }: { session?: string; version?: string } = {},
): void {
  const result = {
    protocolVersion: version ?? m.params.protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: 'raw', version: '1' },
  };
  res.writeHead(200, { 'content-type': 'application/json', ...(session ? { 'mcp-session-id': session } : {}) });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
}

/** The params of a raw client's `initialize`. */
export const RAW_INITIALIZE_PARAMS = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };

/** POSTs a raw `initialize` (id 1) to `url` with `headers` added: the first request of a session. */
export const postInitialize = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: RAW_INITIALIZE_PARAMS }),
  });
