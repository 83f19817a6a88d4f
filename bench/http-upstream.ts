// The upstream for the `proxy` benchmark rows, run as a child process (scripts/run-ts.mjs): the SDK's McpServer over
// its StreamableHTTPServerTransport on node:http at /mcp (stateful; tools `open_app`, a small
// call, and `big`, a text result of `bytes` bytes, sent as one SSE event), and at /events a raw
// event stream of `mib` events of 1 MiB each (JSON-RPC log notifications), written as the
// reader takes them; at /event one tools/call result of `mib` MiB of text in a single event
// (`event: message` before its data, as the SDK writes it), written as the reader takes it; and
// at /held, for a GET (a proxy's MCP endpoint pointed at it), an event stream of one event of
// `mib` MiB whose large value must wait for what follows it (`shape`: see HELD). Prints
// `listening <url>` on stdout.
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { mixedText } from './corpus.ts';

const MiB = 1024 * 1024;
// The benchmark's mixed text (English, Chinese, app entries and paths, with terms), 256 KiB of
// it repeated to the size asked for (in UTF-16 units, so a little more in UTF-8).
const BLOCK = mixedText(7, 256 * 1024);
const texts = new Map<number, string>();
const textOf = (bytes: number): string => {
  if (!texts.has(bytes)) texts.set(bytes, BLOCK.repeat(Math.ceil(bytes / BLOCK.length)).slice(0, bytes));
  return texts.get(bytes)!;
};

function mcpServer() {
  const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  server.registerTool('open_app', { description: 'Opens Qwen and other apps', inputSchema: { app: z.string() } }, async ({ app }) => ({
    content: [{ type: 'text', text: `Opened ${app} (com.alibaba.${app})` }],
  }));
  server.registerTool('big', { description: 'A large text result', inputSchema: { bytes: z.number() } }, async ({ bytes }) => ({
    content: [{ type: 'text', text: textOf(bytes) }],
  }));
  return server;
}

// One event of about 1 MiB: a log notification whose data is prose.
const event = new TextEncoder().encode(
  `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: textOf(MiB - 100) } })}\n\n`,
);

// One event of `mib` MiB, in pieces: its head, the escaped text repeated, its tail.
const piece = new TextEncoder().encode(JSON.stringify(BLOCK).slice(1, -1));
const eventHead = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"';
const eventTail = '"}]}}\n\n';

// Events whose large value comes before what tells how to treat it: a log notification's
// `params.data` as one string (its object may still turn out to be media), and an image whose
// `data` comes before its `type` (as a server that sorts keys writes it).
const base64Piece = new TextEncoder().encode('iVBORw0KGgoAAAANSUhEUgAA'.repeat(4096));
const HELD: Record<string, [string, Uint8Array, string]> = {
  notification: [
    'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"',
    piece,
    '"}}\n\n',
  ],
  image: [
    'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"data":"',
    base64Piece,
    '","mimeType":"image/png","type":"image"}]}}\n\n',
  ],
};

/** Writes `head`, `body` repeated to `bytes`, then `tail`, as the reader takes it. */
function writeEvent(res: ServerResponse, head: string, body: Uint8Array, tail: string, bytes: number) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let sent = 0;
  res.write(head);
  const more = () => {
    while (sent < bytes) {
      sent += body.length;
      if (!res.write(body)) return void res.once('drain', more);
    }
    res.end(tail);
  };
  more();
}

const transports = new Map<string, StreamableHTTPServerTransport>();
const http = createServer(async (req, res) => {
  const url = new URL(req.url!, 'http://localhost');
  if (url.pathname === '/events') {
    const count = Number(url.searchParams.get('mib') ?? 1);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const more = () => {
      while (sent < count) {
        sent++;
        if (!res.write(event)) return void res.once('drain', more);
      }
      res.end();
    };
    return more();
  }
  if (url.pathname === '/event') return writeEvent(res, eventHead, piece, eventTail, Number(url.searchParams.get('mib') ?? 1) * MiB);
  if (url.pathname === '/held' && req.method === 'GET') {
    const [head, body, tail] = HELD[url.searchParams.get('shape') ?? '']!;
    return writeEvent(res, head, body, tail, Number(url.searchParams.get('mib') ?? 1) * MiB);
  }
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  const sid = req.headers['mcp-session-id'] as string | undefined;
  let transport = sid ? transports.get(sid) : undefined;
  if (!transport) {
    if (sid) return void res.writeHead(404).end();
    const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, created),
    });
    transport = created;
    await mcpServer().connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
http.listen(0, '127.0.0.1', () => process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}\n`));
