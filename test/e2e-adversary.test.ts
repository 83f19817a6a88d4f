// End to end, adversarially: the real SDK Client and server-everything, through the real CLI
// (`wrap`, `serve`) as child processes, and the SDK transport wrapper around a real McpServer.
// Each test here failed before its fix.

import { Buffer } from 'node:buffer';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCodec, decodeText, encodeText } from '../src/index.ts';
import { PayloadFilteringTransport } from '../src/mcp/index.ts';
import { connect, EVERYTHING, findTerm, pseudoRandomBytes, termLeaks } from './e2e-helpers.ts';
import { cleanup, listening } from './http-cli-helpers.ts';
import { bytes, oneByteChunks, streamAgreesWithObjectApi, transformChunks } from './stream-helpers.ts';
import { until } from './until.ts';

const T = 30_000;
const EVERYTHING_SERVER = join(dirname(EVERYTHING), 'server', 'index.js');
/** Shorter than server-everything's own wait for an elicitation answer (10 minutes): a hang fails here. */
const CALL = { timeout: 5_000 } as const;

// The host's answer to the server's elicitation: two keys that decode alike (`Qwen` and its token).
const COLLIDING = { action: 'accept' as const, content: { name: 'x', Qwen: 'a', __mcp_ref_5177656e__: 'b' } };
const answerColliding = (client: Client) => {
  client.registerCapabilities({ elicitation: {} });
  client.setRequestHandler(ElicitRequestSchema, async () => COLLIDING);
};

/** The tool call's outcome: the server got an error for its elicitation and said so (isError), leaking no term. */
function expectServerWasTold(result: unknown, errors: Error[]) {
  expect(result).toMatchObject({ isError: true });
  expect(decodeText(JSON.stringify(result))).toMatch(/Decoding makes keys #1 and #2/);
  expect(termLeaks(result)).toEqual([]);
  // Nothing was sent to the host under the server's request id (which it never sent).
  expect(errors.map((e) => e.message).filter((m) => /unknown message ID/.test(m))).toEqual([]);
}

describe('a response from the host whose keys collide goes back to the server as an error, not to the host', () => {
  it(
    'wrap: the server-to-client request fails at once; the host is not answered under the server id',
    async () => {
      const s = await connect([process.execPath, EVERYTHING, 'stdio'], 'wrap', answerColliding);
      cleanup.push(() => s.close());
      const result = await s.client.callTool({ name: 'trigger-elicitation-request', arguments: {} }, undefined, CALL);
      expectServerWasTold(result, s.errors);
    },
    T,
  );

  it(
    'serve: the same over Streamable HTTP',
    async () => {
      const { url } = await listening(['serve', '--port', '0', process.execPath, EVERYTHING, 'stdio']);
      const errors: Error[] = [];
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      client.onerror = (e) => void errors.push(e);
      answerColliding(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)), CALL);
      cleanup.push(() => client.close().catch(() => {}));
      const result = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} }, undefined, CALL);
      expectServerWasTold(result, errors);
      expect(errors.map((e) => e.message).filter((m) => /Error POSTing/.test(m))).toEqual([]);
    },
    T,
  );
});

describe('PayloadFilteringTransport on the client side', () => {
  it("fails the server's request when the host's answer collides, instead of leaving it waiting", async () => {
    const { createServer } = (await import(EVERYTHING_SERVER)) as { createServer: () => { server: McpServer; cleanup: () => void } };
    const { server, cleanup: stop } = createServer();
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(serverEnd);
    const errors: Error[] = [];
    const client = new Client({ name: 'host', version: '1.0.0' });
    client.onerror = (e) => void errors.push(e);
    answerColliding(client);
    await client.connect(new PayloadFilteringTransport(clientEnd, { side: 'client' }), CALL);
    cleanup.push(async () => {
      await client.close();
      stop();
    });
    const result = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} }, undefined, CALL);
    expectServerWasTold(result, errors);
    expect(errors.map((e) => e.message).filter((m) => /Failed to send response/.test(m))).toEqual([]);
  });
});

describe('PayloadFilteringTransport on the server side', () => {
  it('answers a colliding request with -32602 encoded, as wrap does: the path it names holds no term', async () => {
    const server = new McpServer({ name: 's', version: '1.0.0' });
    server.registerTool('open', { inputSchema: { target: z.record(z.string(), z.unknown()) } }, async () => ({ content: [] }));
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(new PayloadFilteringTransport(serverEnd));
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(clientEnd);
    cleanup.push(() => client.close());
    // A key a host wrote itself (a file name, say) above the two keys that decode alike.
    const args = { target: { 'Qwen 通义.txt': { Qwen: 1, __mcp_ref_5177656e__: 2 } } };
    const error = await client.callTool({ name: 'open', arguments: args }, undefined, CALL).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/-32602/);
    expect(findTerm(error!.message)).toBeUndefined();
    expect(decodeText(error!.message)).toContain('["Qwen 通义.txt"]');
  });
});

/** A host speaking raw HTTP to `serve` at `url`, initialized at `version`: its headers, POST and session headers. */
async function rawHost(url: string, version: string) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = (body: unknown, h: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(url, { method: 'POST', headers: { ...headers, ...h }, body: JSON.stringify(body), signal });
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'host', version: '1' } },
  });
  await init.text();
  const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': version };
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
  return { headers, post, session };
}

const SPY = 'test/fixtures/stdout-spy.mjs';

describe('serve: a request stream the host dropped and resumed', () => {
  /** The events of an SSE body read until `until` holds or `ms` pass, as [id, data] pairs. */
  async function events(body: ReadableStream<Uint8Array>, until: (text: string) => boolean, ms: number) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const end = Date.now() + ms;
    while (!until(text) && Date.now() < end) {
      const next = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(r, end - Date.now()))]);
      if (!next || next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    void reader.cancel().catch(() => {});
    return [...text.matchAll(/^id: (.*)\ndata: (.*)$/gm)].map((m) => [m[1]!, m[2]!] as const);
  }

  it(
    'replays every progress notification of the call after Last-Event-ID (none moved to a GET stream the host never opened)',
    async () => {
      // (server-everything's output also goes to a file: the case waits for the call's answer there)
      const wrote = join(mkdtempSync(join(tmpdir(), 'e2e-adversary-')), 'stdout');
      const { url } = await listening(['serve', '--port', '0', process.execPath, SPY, wrote, process.execPath, EVERYTHING, 'stdio']);
      const { headers, post, session } = await rawHost(url, '2025-06-18');
      const steps = 5;
      const call = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'trigger-long-running-operation', arguments: { duration: 1, steps }, _meta: { progressToken: 'qwen-1' } },
      };
      // The host reads the first two progress events, then its connection drops (no GET stream open).
      const aborter = new AbortController();
      const first = await events((await post(call, session, aborter.signal)).body!, (t) => t.split('\n\n').length > 2, 5_000);
      aborter.abort();
      expect(first).toHaveLength(2);
      // After the call has ended, it comes back with the last event id it saw. (Its answer, if
      // serve had not stored it yet, would come on the resumed stream.)
      const answered = () => {
        const text = existsSync(wrote) ? readFileSync(wrote, 'utf8') : '';
        const lines = text
          .slice(0, text.lastIndexOf('\n') + 1)
          .split('\n')
          .filter(Boolean); // (whole lines)
        return lines.some((l) => l.includes('"result"') && JSON.parse(l).id === 1);
      };
      await until(answered);
      const get = await fetch(url, { headers: { ...headers, ...session, accept: 'text/event-stream', 'last-event-id': first[1]![0] } });
      const rest = await events(get.body!, (t) => t.includes('"result"'), 5_000);
      const progress = [...first, ...rest].map(([, data]) => JSON.parse(data)).filter((m) => m.method === 'notifications/progress');
      expect(progress.map((m) => m.params.progress)).toEqual([1, 2, 3, 4, 5]);
      expect(progress.every((m) => m.params.progressToken === 'qwen-1')).toBe(true);
      expect(rest.map(([, data]) => JSON.parse(data)).at(-1)).toMatchObject({ id: 1, result: {} });
    },
    T,
  );
});

describe('serve: a message from the server while the host has no stream open', () => {
  // A stdio server that, during a call, logs something unrelated to it (as a server's own log
  // may come at any time), then answers, then creates the file it was given (the test waits for
  // it, not for a fixed time).
  const CHILD = `
    const answered = process.argv[1];
    const rl = require('node:readline').createInterface({ input: process.stdin });
    const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
    rl.on('line', (line) => {
      const m = JSON.parse(line);
      if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'x', version: '1' } } });
      else if (m.method === 'tools/call') setTimeout(() => {
        send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'Qwen log' } });
        setTimeout(() => {
          send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'done' }] } });
          require('node:fs').writeFileSync(answered, '');
        }, 100);
      }, 600);
    });`;

  it(
    "stays on the call's stream the host left (replayed after Last-Event-ID), not on a GET stream it never opened",
    async () => {
      const answered = join(mkdtempSync(join(tmpdir(), 'e2e-adversary-')), 'answered');
      const { url } = await listening(['serve', '--port', '0', process.execPath, '-e', CHILD, answered]);
      // (2025-11-25: the server primes each stream with an event id, resumable from the start)
      const { headers, post, session } = await rawHost(url, '2025-11-25');
      // The host reads the call's priming event, then its connection drops (no GET stream open).
      const aborter = new AbortController();
      const res = await post(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {} } },
        session,
        aborter.signal,
      );
      const reader = res.body!.getReader();
      let head = '';
      while (!/^id: .+$/m.test(head)) head += new TextDecoder().decode((await reader.read()).value);
      aborter.abort();
      const primed = head.match(/^id: (.+)$/m)![1]!;
      // (The call has ended: its answer, if it came after, would come on the resumed stream.)
      await until(() => existsSync(answered));
      const get = await fetch(url, { headers: { ...headers, ...session, accept: 'text/event-stream', 'last-event-id': primed } });
      const text = await Promise.race([
        (async () => {
          const r = get.body!.getReader();
          let t = '';
          while (!t.includes('"result"')) {
            const next = await r.read();
            if (next.done) break;
            t += new TextDecoder().decode(next.value);
          }
          void r.cancel().catch(() => {});
          return t;
        })(),
        new Promise<string>((r) => setTimeout(() => r('timed out'), 5_000)),
      ]);
      const messages = [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]!));
      expect(messages.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 1]);
      expect(findTerm(text)).toBeUndefined();
      expect(decodeText(messages[0].params.data)).toBe('Qwen log');
    },
    T,
  );
});

describe('a data: URI the model took out of prose comes back whole', () => {
  // Bytes ab 07 a7 are `qwen` in base64: encoded prose holding this URI holds a token inside it.
  const input = Buffer.concat([Buffer.from([0xab, 0x07, 0xa7]), pseudoRandomBytes(61, 12345)]);
  const uri = `data:application/octet-stream;base64,${input.toString('base64')}`;

  it('decoding restores a token inside a whole data: URI (object API and every stream path); encoding keeps the URI', () => {
    const codec = createCodec();
    const seen = encodeText(`see ${uri} here`).slice(4, -5); // the URI as the model saw it in prose
    expect(seen).not.toBe(uri);
    const call = (data: string, pad = 0) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'g', arguments: { data, pad: 'x'.repeat(pad) } } });
    expect(codec.decodeMessage(JSON.parse(call(seen))).params.arguments.data).toBe(uri);
    expect(codec.encodeMessage(JSON.parse(call(uri))).params.arguments.data).toBe(uri);
    // Small, past the lane's 16 KiB, past the large path's 256 KiB: whole, and a byte at a time.
    for (const pad of [0, 20_000, 300_000]) {
      const line = `${call(seen, pad)}\n`;
      streamAgreesWithObjectApi('decode', {}, line, []);
      expect(JSON.parse(transformChunks('decode', {}, [bytes(line)])).params.arguments.data).toBe(uri);
    }
    expect(transformChunks('decode', {}, oneByteChunks(bytes(`${call(seen)}\n`)))).toBe(`${call(uri)}\n`);
  });

  it(
    'wrap: server-everything gzips what it gets; the URI taken from an echo, as the model saw it, gives the same file',
    async () => {
      const [direct, wrapped] = await Promise.all([
        connect([process.execPath, EVERYTHING, 'stdio'], 'direct'),
        connect([process.execPath, EVERYTHING, 'stdio'], 'wrap'),
      ]);
      cleanup.push(() => Promise.all([direct.close(), wrapped.close()]));
      const echo = await wrapped.client.callTool({ name: 'echo', arguments: { message: `see ${uri} here` } }, undefined, CALL);
      const seen = /data:\S+/.exec((echo.content as { text: string }[])[0]!.text)![0];
      expect(findTerm(seen)).toBeUndefined(); // the model's view: a token inside the base64
      const gzip = (s: typeof direct, data: string) =>
        s.client.callTool({ name: 'gzip-file-as-resource', arguments: { name: 'file.gz', data, outputType: 'resource' } }, undefined, CALL);
      const [d, w] = await Promise.all([gzip(direct, uri), gzip(wrapped, seen)]);
      const blob = (r: unknown) => (r as { content: { resource?: { blob?: string } }[] }).content[0]?.resource?.blob ?? '';
      expect(w.isError).toBeFalsy();
      expect(gunzipSync(Buffer.from(blob(d), 'base64')).equals(input)).toBe(true);
      expect(blob(w)).toBe(blob(d));
    },
    T,
  );
});

describe('URL elicitation: the page the host opens is protocol, not text for the model', () => {
  it(
    'wrap: server-everything asks the host to open the URL the model gave (as tokens); the host gets it exactly',
    async () => {
      const url = 'https://dashscope.aliyuncs.com/api-keys?from=qwen';
      const opened: string[] = [];
      const s = await connect([process.execPath, EVERYTHING, 'stdio'], 'wrap', (client) => {
        client.registerCapabilities({ elicitation: { url: {} } });
        client.setRequestHandler(ElicitRequestSchema, async (req) => {
          opened.push((req.params as { url?: string }).url ?? '');
          return { action: 'decline' as const };
        });
      });
      cleanup.push(() => s.close());
      const result = await s.client.callTool(
        { name: 'trigger-url-elicitation', arguments: { url: encodeText(url), message: encodeText('Open your Qwen keys') } },
        undefined,
        CALL,
      );
      expect(opened).toEqual([url]);
      expect(termLeaks(result)).toEqual([]);
      expect(s.errors).toEqual([]);
    },
    T,
  );
});
