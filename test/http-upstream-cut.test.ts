// An upstream event stream cut by the network (not refused by the encoder) is not a refusal: the
// host's SDK client resumes it (Last-Event-ID) and gets the real answer. Through the proxy and
// through createFilteringFetch, the stream must not be ended with an error answer for the call.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringFetch } from '../src/http/index.js';
import { answerInitialize } from './http-helpers.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe('an upstream event stream cut by the network, with a priming event', () => {
  it.each(['proxy', 'filtering fetch'] as const)(
    'through the %s, the call resumes and gets its result',
    async (via) => {
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      let callId: unknown;
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          if (req.method === 'GET') {
            if (!req.headers['last-event-id']) return void res.writeHead(405).end();
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            return void res.end(
              `id: e2\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(callId)},"result":{"content":[{"type":"text","text":"ok"}]}}\n\n`,
            );
          }
          if (req.method !== 'POST') return void res.writeHead(405).end();
          const m = JSON.parse(body);
          if (m.method === 'initialize') return answerInitialize(res, m);
          if (m.id === undefined) return void res.writeHead(202).end();
          callId = m.id;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('id: e1\ndata: \n\n', () => setTimeout(() => res.socket?.destroy(), 50)); // (the network drops)
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const proxy = via === 'proxy' ? await runProxy({ upstream, port: 0, log: () => {} }) : undefined;
      const client = new Client({ name: 'host', version: '1.0.0' });
      client.onerror = () => {};
      cleanup.push(() => {
        void client.close();
        for (const s of proxy ? [server, proxy.server] : [server]) {
          s.closeAllConnections();
          s.close();
        }
      });
      const reconnectionOptions = {
        initialReconnectionDelay: 10,
        maxReconnectionDelay: 100,
        reconnectionDelayGrowFactor: 1,
        maxRetries: 3,
      };
      const transport = proxy
        ? new StreamableHTTPClientTransport(new URL(proxy.url), { reconnectionOptions })
        : new StreamableHTTPClientTransport(new URL(upstream), { fetch: createFilteringFetch(), reconnectionOptions });
      await client.connect(transport);
      const result = await client.callTool({ name: 'x', arguments: {} }, undefined, { timeout: 5_000 });
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    },
    15_000,
  );
});
