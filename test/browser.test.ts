// The built ESM bundles in real headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): the string, value and integrity API, and fetch().body piped through
// createEncodeStream, checked byte for byte against Node's output for the same input.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEncodeStream } from '../src/stream/index.ts';
import { launchChromium } from './chromium.ts';
import { bytes, run } from './stream-helpers.ts';

const DIST = join(import.meta.dirname, '..', 'dist');
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html', '.ndjson': 'application/x-ndjson' };

const ndjson = bytes(
  '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Open Qwen in 阿里 Cloud 😀 \\u0071wen"},{"type":"image","data":"qwenQWEN==","mimeType":"image/png"}]}}\n' +
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"dash-scope 通义千问","level":"info"}}\n'.repeat(500),
);

let server: Server;
let browser: Browser;
let origin = '';
let echoed = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>mcp-payload-codec</title>');
    if (path === '/checks.js')
      return void res
        .writeHead(200, { 'content-type': 'text/javascript' })
        .end(readFileSync(join(import.meta.dirname, 'browser', 'checks.js')));
    if (path === '/data.ndjson') return void res.writeHead(200, { 'content-type': TYPES['.ndjson']! }).end(ndjson);
    if (path === '/echo-sse') {
      // What the page's filtering fetch sent, as the server saw it, echoed as an SSE result.
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        echoed = Buffer.concat(parts).toString('utf8');
        const request = JSON.parse(echoed) as { id: number; params: { arguments: { app: string } } };
        const result = JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          result: { content: [{ type: 'text', text: `Opened ${request.params.arguments.app}` }] },
        });
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`event: message\ndata: ${result}\n\n`);
      });
      return;
    }
    const file = normalize(join(DIST, path.replace(/^\/dist\//, '')));
    if (!path.startsWith('/dist/') || !file.startsWith(DIST)) return void res.writeHead(404).end();
    try {
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('in headless Chromium', () => {
  it('runs the root entry: round trips, messages, integrity reports', async () => {
    const page = await browser.newPage();
    await page.goto(origin + '/');
    // A string, so vitest does not rewrite the import() inside it.
    const result: Record<string, unknown> = await page.evaluate("import('/checks.js').then((c) => c.root())");
    expect(result.hasProcess).toBe(false);
    expect(result.encoded).toBe('Open __mcp_ref_5177656e__ in __mcp_ref_e998bfe9878c__ Cloud');
    expect(result.roundTrips).toEqual([true, true, true, true]);
    expect(result.message).toEqual({ jsonrpc: '2.0', id: 'Qwen', result: { __mcp_ref_5177656e__: ['__mcp_ref_e9809ae4b989__'] } });
    expect(result.reports).toEqual([
      {
        path: ['content'],
        parameterName: 'content',
        location: 'value',
        replacementCharacterCount: 3,
        loneSurrogateCount: 0,
        characterOffset: 2607,
        utf8ByteOffset: 7821,
      },
    ]);
    expect(result.longReport).toEqual([
      {
        path: [0],
        parameterName: '0',
        location: 'value',
        replacementCharacterCount: 2,
        loneSurrogateCount: 1,
        characterOffset: 30030,
        utf8ByteOffset: 90050,
      },
    ]);
    expect(result.filter).toBe(false);
    await page.close();
  });

  it('runs the http entry: a filtering fetch decodes what it sends and encodes the event stream back', async () => {
    const page = await browser.newPage();
    await page.goto(origin + '/');
    const result: { status: number; type: string; text: string } = await page.evaluate("import('/checks.js').then((c) => c.http())");
    expect(JSON.parse(echoed).params.arguments.app).toBe('Qwen');
    expect(result.status).toBe(200);
    expect(result.type).toBe('text/event-stream');
    expect(result.text).toBe(
      `event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Opened __mcp_ref_5177656e__"}]}}\n\n`,
    );
    await page.close();
  });

  it('pipes fetch().body through createEncodeStream, byte for byte as in Node', async () => {
    const page = await browser.newPage();
    await page.goto(origin + '/');
    const browserBytes: number[] = await page.evaluate("import('/checks.js').then((c) => c.stream())");
    const nodeBytes = await run(createEncodeStream(), [ndjson]);
    expect(browserBytes.length).toBe(nodeBytes.length);
    expect(Uint8Array.from(browserBytes)).toEqual(nodeBytes);
    await page.close();
  });
});
