// The CLI as users run it: real child processes, the SDK's StdioClientTransport, a server in
// Python, exit codes and signals.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { encodeText } from '../src/index.ts';
import { joinedOnceIncludes } from './e2e-helpers.ts';
import { CLI, cli, cliRuns, fixture, ROOT } from './fixtures/cli-session.ts';

const SDK_SERVER = fixture('sdk-server.mjs');
const PY_SERVER = fixture('echo_server.py');
const Q = encodeText('Qwen');

async function wrapped(server: string[]) {
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'wrap', '--', ...server],
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr };
}

describe('wrap', () => {
  it('filters a Node SDK server: tokens decoded on the way in, results encoded on the way out', async () => {
    const { client, stderr } = await wrapped([process.execPath, SDK_SERVER]);
    const { tools } = await client.listTools();
    expect(tools[0]!.description).toBe(`Opens ${Q} and other apps`);
    const result = await client.callTool({ name: 'open_app', arguments: { app: Q } });
    expect(result.content).toEqual([{ type: 'text', text: encodeText('Opened Qwen (com.alibaba.Qwen)') }]);
    await client.close();
    expect(await joinedOnceIncludes(stderr, 'handler saw "Qwen"')).toContain('handler saw "Qwen"'); // stderr passes through untouched
  }, 30_000);

  it('filters a Python server the same way', async () => {
    const { client, stderr } = await wrapped(['python3', PY_SERVER]);
    const { tools } = await client.listTools();
    expect(tools[0]!.description).toBe(encodeText('Echoes its text (Qwen, 通义千问)'));
    const result = await client.callTool({ name: 'echo', arguments: { text: `${Q} ${encodeText('通义')}` } });
    expect(result.content).toEqual([{ type: 'text', text: encodeText('echo: Qwen 通义') }]);
    await client.close();
    const seen = 'python saw {"text": "Qwen \\u901a\\u4e49"}';
    expect(await joinedOnceIncludes(stderr, seen)).toContain(seen);
  }, 30_000);

  it('answers a colliding request with -32602 itself and never forwards it', async () => {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { Qwen: 'a', [Q]: 'b' } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: Q } } },
    ];
    const r = cli(['wrap', '--', 'python3', PY_SERVER], requests.map((m) => JSON.stringify(m) + '\n').join(''));
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.id === 1)).toMatchObject({ error: { code: -32602 } });
    expect(lines.find((l) => l.id === 2)).toMatchObject({ result: { content: [{ type: 'text', text: `echo: ${Q}` }] } });
    expect(r.stderr).not.toContain('"a"');
    expect(r.stderr.match(/python saw/g)).toHaveLength(1);
    expect(r.code).toBe(0);
  });

  it('answers every request of a batch that is dropped for a collision, in one batch response', () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { Qwen: 1, [Q]: 2 } } },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list', params: {} },
    ];
    const r = cli(['wrap', '--', 'python3', PY_SERVER], JSON.stringify(batch) + '\n');
    const replies = JSON.parse(r.stdout.trim());
    expect(replies.map((x: { id: string; error: { code: number } }) => [x.id, x.error.code])).toEqual([
      ['a', -32602],
      ['b', -32602],
    ]);
    expect(r.stderr).not.toContain('python saw');
  });

  it('passes on the exit code and the signal of the child', async () => {
    expect(cli(['wrap', '--', process.execPath, '-e', 'process.exit(3)']).code).toBe(3);
    const killed = cli(['wrap', '--', process.execPath, '-e', "process.kill(process.pid, 'SIGTERM')"]);
    expect(killed.signal).toBe('SIGTERM');
  });

  it('forwards SIGTERM to the child', async () => {
    const child =
      "process.on('SIGTERM', () => { console.error('child got SIGTERM'); process.exit(7) }); console.error('ready'); setInterval(() => {}, 1000)";
    const p = spawn(process.execPath, [CLI, 'wrap', '--', process.execPath, '-e', child], { cwd: ROOT });
    let err = '';
    const ready = new Promise<void>((resolve) =>
      p.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('ready')) resolve();
      }),
    );
    await ready; // both processes are up and listening (stderr passes through the proxy)
    p.kill('SIGTERM');
    const code = await new Promise((r) => p.on('close', (c) => r(c)));
    expect(err).toContain('child got SIGTERM');
    expect(code).toBe(7);
  });

  it('refuses a missing command with one line on stderr', () => {
    const r = cli(['wrap']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('encode, decode and scan', () => {
  it('encode and decode stdin to stdout, with the framing and format options', () => {
    const body = '{"jsonrpc":"2.0","id":1,"result":"Qwen 阿里"}';
    const enc = cli(['encode', '--prefix', '__cuaf_', '--hex-case', 'upper'], body + '\n');
    expect(enc.stdout).toBe(`{"jsonrpc":"2.0","id":1,"result":"__cuaf_5177656E__ __cuaf_E998BFE9878C__"}\n`);
    const framed = `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const cl = cli(['encode', '--framing', 'content-length'], framed);
    expect(cli(['decode', '--framing', 'content-length'], cl.stdout).stdout).toBe(framed);
  });

  it('takes --terms from a JSON file, and refuses options that do not apply', () => {
    const file = join(ROOT, 'test', 'fixtures', 'terms.json');
    const r = cli(['encode', '--terms', file], '{"result":"Acme and Qwen"}\n');
    expect(r.stdout).toBe('{"result":"__mcp_ref_41636d65__ and Qwen"}\n');
    // (refused before anything starts: decided in one process; 'refuses a missing command' spawns one)
    const [sse, guard, missing] = cliRuns([
      ['wrap', '--framing', 'sse', '--', 'true'],
      ['encode', '--guard'],
      ['encode', '--terms', join(ROOT, 'missing.json')],
    ]);
    expect(sse!.code).toBe(2);
    expect(guard!.stderr).toMatch(/--guard applies to wrap/);
    expect(missing!.stderr).toMatch(/^mcp-payload-codec: cannot read --terms/);
  });

  it('reports bad input in one line and a non-zero exit code', () => {
    const r = cli(['encode'], '{"result":"secret" oops}\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mcp-payload-codec: invalid JSON in message 1 at byte 19\n');
  });

  it('scan reports U+FFFD per message and parameter, never the content, and exits 1', () => {
    const damaged = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path: 'ok', content: 'SECRET ' + '汉'.repeat(2600) + '\uFFFD\uFFFD\uFFFD' } },
    };
    const r = cli(['scan'], JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }) + '\n' + JSON.stringify(damaged) + '\n');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('line 2 (id 9) tools/call: parameter "content": 3 x U+FFFD, first at character 2607, UTF-8 byte 7807\n');
    expect(r.stdout + r.stderr).not.toContain('SECRET');
    expect(cli(['scan'], JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'clean' }) + '\n').code).toBe(0);
  });
});

describe('wrap --guard', () => {
  it('blocks calls to unlisted tools and calls that fail the inputSchema, before the child sees them', async () => {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'teleport', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 5 } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: Q } } },
    ];
    // As a client would: the calls go out once the tool list has come back.
    const p = spawn(process.execPath, [CLI, 'wrap', '--guard', '--', 'python3', PY_SERVER], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const listed = new Promise<void>((resolve) =>
      p.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/"id": ?1[,}][^\n]*\n/.test(stdout)) resolve(); // the whole line: Python writes "id": 1
      }),
    );
    p.stdin.write(JSON.stringify(requests[0]) + '\n');
    await listed;
    p.stdin.end(
      requests
        .slice(1)
        .map((m) => JSON.stringify(m) + '\n')
        .join(''),
    );
    await new Promise((resolve) => p.on('close', resolve));
    const r = { stdout, stderr };
    const byId = new Map(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((m) => [m.id, m]),
    );
    expect(byId.get(2)).toMatchObject({
      result: { isError: true, content: [{ type: 'text', text: expect.stringContaining('"teleport" is not in the server') }] },
    });
    expect(byId.get(3)).toMatchObject({
      result: { isError: true, content: [{ type: 'text', text: expect.stringContaining('/text must be string') }] },
    });
    expect(byId.get(4)).toMatchObject({ result: { content: [{ type: 'text', text: `echo: ${Q}` }] } });
    expect(r.stderr.match(/python saw/g)).toHaveLength(1);
    expect(r.stderr).toContain('blocked tools/call "teleport"');
  });
});
