// proxy, connect and serve as processes: argument parsing, the URL on stderr, signals, and a
// real stdio host (the SDK's StdioClientTransport) for connect.
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, vi } from 'vitest';
import { createCodec, encodeText } from '../src/index.js';
import { cliRunsOnce } from './fixtures/cli-session.ts';
import { startUpstream, type Upstream } from './fixtures/http-upstream.js';
import { cleanup, listening, MAIN, ROOT } from './http-cli-helpers.ts';
import { TIMEOUT } from './http-helpers.ts';
import { until } from './until.ts';

vi.setConfig({ testTimeout: 30_000 });

async function upstream(): Promise<Upstream> {
  const up = await startUpstream('stateful');
  cleanup.push(() => up.close());
  return up;
}

describe('HTTP commands as processes', () => {
  it('proxy prints its URL, filters, and exits 0 on SIGTERM', async () => {
    const up = await upstream();
    const { p, url } = await listening(['proxy', '--upstream', up.url, '--port', '0']);
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), TIMEOUT);
    const { tools } = await client.listTools(undefined, TIMEOUT);
    expect(tools.find((t) => t.name === 'echo')!.description).toBe(encodeText('Echoes text, for Qwen and 通义千问 users'));
    await client.close();
    p.kill('SIGTERM');
    const [code] = await once(p, 'exit');
    expect(code).toBe(0);
  });

  it('proxy takes the codec options of the other commands (the cua-driver format here)', async () => {
    const up = await upstream();
    const { p, url } = await listening(['proxy', '--prefix', '__cuaf_', '--upstream', up.url, '--hex-case=upper', '--port', '0']);
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), TIMEOUT);
    const { tools } = await client.listTools(undefined, TIMEOUT);
    const cua = createCodec({ prefix: '__cuaf_', hexCase: 'upper' });
    expect(tools.find((t) => t.name === 'echo')!.description).toBe(cua.encodeText('Echoes text, for Qwen and 通义千问 users'));
    await client.close();
    p.kill('SIGTERM');
    await once(p, 'exit');
  });

  it('connect is a stdio server for a stdio host, and ends the session when the host leaves', async () => {
    const up = await upstream();
    const client = new Client({ name: 'host', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'connect', up.url, '--header', 'Authorization: Bearer t0ken'],
      cwd: ROOT,
      stderr: 'ignore',
    });
    await client.connect(transport, TIMEOUT);
    const result = await client.callTool({ name: 'echo', arguments: { text: encodeText('Qwen') } }, undefined, TIMEOUT);
    expect((result.content as { text: string }[])[0]!.text).toBe(encodeText('echo: Qwen'));
    expect(up.calls).toEqual([{ tool: 'echo', args: { text: 'Qwen' } }]);
    expect(up.authorizations.every((a) => a === 'Bearer t0ken')).toBe(true);
    await client.close();
    await until(() => up.deleted.length > 0);
  });

  it('serve prints its URL, serves a stdio server, and exits 0 on SIGINT', async () => {
    const { p, url } = await listening([
      'serve',
      '--port',
      '0',
      '--session-idle',
      '5m',
      '--',
      process.execPath,
      'test/fixtures/http-stdio-server.mjs',
    ]);
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), TIMEOUT);
    const { tools } = await client.listTools(undefined, TIMEOUT);
    expect(tools.find((t) => t.name === 'echo')!.description).toBe(encodeText('Echoes text, for Qwen and 通义千问 users'));
    await client.close();
    p.kill('SIGINT');
    const [code] = await once(p, 'exit');
    expect(code).toBe(0);
  });

  const usage: [string[], RegExp][] = [
    [['proxy'], /needs --upstream/],
    [['proxy', '--upstream', 'not a url'], /--upstream must be/],
    [['proxy', '--upstream', 'http://x', '--port', '99999'], /--port/],
    [['connect'], /needs one URL/],
    [['connect', 'http://x', '--header', 'no colon'], /Name: value/],
    [['serve', '--port', '0'], /serve needs the server command/],
    [['serve', '--session-idle', 'soon', '--', 'x'], /--session-idle/],
    [['serve', '--max-sessions', '0', '--', 'x'], /--max-sessions/],
    [['proxy', '--nope'], /unknown option/],
    [['proxy', '--upstream', 'http://x', '--hex-case', 'middle'], /--hex-case must be/],
    [['connect', 'http://x', '--prefix'], /--prefix needs a value/],
  ];
  const ran = cliRunsOnce(usage.map(([args]) => args));
  it.each(usage.map(([args, message], k) => [args, message, k] as const))('%j is a usage error (exit 2, one line)', (_, message, k) => {
    const r = ran(k);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
