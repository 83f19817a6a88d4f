// wrap as a client sees it: every byte it receives, including the answers the proxy writes
// itself (guard blocks, key collisions), is encoded, so no vendor term reaches the client; lines
// that are not JSON, in either direction, are dropped with a note and the session goes on.
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { CliSession, fixture, type Reply } from './fixtures/cli-session.ts';
import { termsIn } from './mcp-guard-helpers.ts';

const SERVER = fixture('cli-terms-server.py');

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** One session through `wrap --guard` with a server that misbehaves and clients that do too. */
async function guardedSession(codecArgs: string[]) {
  const codec = createCodec({
    prefix: codecArgs.includes('--prefix') ? codecArgs[codecArgs.indexOf('--prefix') + 1] : undefined,
    suffix: codecArgs.includes('--suffix') ? codecArgs[codecArgs.indexOf('--suffix') + 1] : undefined,
  });
  const enc = codec.encodeText;
  // The command right after our options, without "--" (as MCP Inspector passes it).
  const s = new CliSession(['wrap', '--guard', ...codecArgs, 'python3', SERVER, '--banner']);
  s.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await s.response(1);
  s.send('hello qwen 通义, a stray line from the client\n');
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  const list = codec.decodeMessage(await s.response(2));
  expect(list.result.tools.map((t: { name: string }) => t.name)).toEqual(['qwen_tool', 'echo']);
  // Calls as the model makes them: names and values it saw (encoded), or raw text.
  s.send(call(3, enc('qwen_missing'), {}));
  s.send(call(4, 'Qwen_Raw', {}));
  s.send(call(5, enc('qwen_tool'), {}));
  s.send(call(6, enc('qwen_tool'), { [enc('通义_path')]: 'nope' }));
  s.send(call(7, enc('qwen_tool'), { [enc('通义_path')]: enc('__mcp_ref_qwenabc'), [enc('alibaba_mode')]: 'other' }));
  s.send(call(8, enc('qwen_tool'), { [enc('通义_path')]: enc('__mcp_ref_qwenabc') }));
  s.send(call(9, 'echo', { Qwen: 1, [enc('Qwen')]: 2 }));
  s.send(JSON.stringify([call(10, enc('qwen_missing'), {}), call(11, 'Qwen_Raw', {})]) + '\n'); // all blocked: one batch answer
  for (const id of [3, 4, 5, 6, 7, 8, 9, 10, 11]) await s.response(id);
  const ended = await s.end();
  const byId = new Map(
    s
      .messages()
      .flat()
      .map((m) => [(m as { id: number }).id, codec.decodeMessage(m as Reply)]),
  );
  return { ended, byId, s };
}

describe('wrap --guard: nothing the proxy writes carries a term', () => {
  for (const codecArgs of [[], ['--prefix', '__cuaf_', '--suffix', '_x', '--hex-case', 'upper']]) {
    it(`every byte the client receives is free of terms ${codecArgs.join(' ') || '(default codec)'}`, async () => {
      const { ended, byId, s } = await guardedSession(codecArgs);
      expect(termsIn(ended.stdout.toString('utf8'))).toEqual([]);
      expect(
        ended.stdout
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== '')
          .every((l) => JSON.parse(l)),
      ).toBe(true); // no cut line either
      expect(ended.code).toBe(0);
      // Decoded with the same codec options, the answers say what happened.
      // A block is a tool result the model can read (isError: true).
      const message = (id: number) => {
        expect(byId.get(id)?.result.isError).toBe(true);
        return byId.get(id)?.result.content[0]?.text as string;
      };
      expect(message(3)).toContain('tool "qwen_missing" is not in the server\'s current tool list');
      expect(message(4)).toContain('tool "Qwen_Raw" is not in');
      expect(message(5)).toContain("/通义_path must have required property '通义_path'");
      expect(message(6)).toContain('/通义_path must match pattern "^__mcp_ref_qwen[a-z]+$"');
      expect(message(7)).toContain('/alibaba_mode must be equal to one of the allowed values');
      expect(byId.get(8)?.result.content[0]?.text).toBe('qwen_tool got {"通义_path": "__mcp_ref_qwenabc"}');
      expect(byId.get(9)?.error.code).toBe(-32602);
      expect(message(10)).toContain('tool "qwen_missing" is not in');
      expect(message(11)).toContain('tool "Qwen_Raw" is not in');
      expect(s.messages().find((m) => Array.isArray(m))).toHaveLength(2);
      // The server saw one call, and neither stray line.
      expect(ended.stderr.match(/server saw/g)).toHaveLength(1);
      expect(ended.stderr).not.toContain('not JSON\n'); // (the server's own complaint)
      expect(ended.stderr).toMatch(/from the server: skipped message 1 \(invalid JSON at byte 0[^\n]*not forwarded/);
      expect(ended.stderr).toMatch(/from the server: skipped message 2 \(invalid JSON at byte 22[^\n]*not forwarded/);
      expect(ended.stderr).toMatch(/from the client: skipped message 2 \(invalid JSON at byte 0[^\n]*not forwarded/);
      expect(ended.stderr).not.toMatch(/Starting|hello/); // notes never hold the line
    }, 30_000);
  }

  it('the -32602 answer to a key collision is encoded too (its text names the id)', async () => {
    const s = new CliSession(['wrap', 'python3', SERVER]);
    s.send(call(1, 'echo', { a: 1 }));
    await s.response(1);
    s.send({ ...call(0, 'echo', { Qwen: 1, __mcp_ref_5177656e__: 2 }), id: 'qwen-7' });
    const reply = await s.response('qwen-7');
    await s.end();
    expect(reply.error.code).toBe(-32602);
    expect(termsIn(reply.error.message)).toEqual([]); // (the id itself is never encoded, as everywhere)
    expect(createCodec().decodeText(reply.error.message)).toContain('(id "qwen-7")');
  }, 30_000);
});

describe('wrap --guard learns tools only from what the client is shown', () => {
  it('a tool list the encoder drops (invalid UTF-8) teaches the guard nothing', async () => {
    const s = new CliSession(['wrap', '--guard', 'python3', SERVER, '--bad-list']);
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    // The bad list is answered as an error (the client is not left waiting for it); this server
    // then sends the real one under the same id.
    const ones = () => s.messages().filter((m) => (m as { id?: number }).id === 1) as Reply[];
    await s.until(() => ones().length === 2);
    expect(ones().map((m) => (m.error ? m.error.code : m.result.tools.length))).toEqual([-32700, 2]);
    s.send(call(2, 'echo', { text: 'hi' }));
    const reply = await s.response(2);
    const ended = await s.end();
    expect(reply.result.content[0]!.text).toBe('echo got {"text": "hi"}');
    expect(ended.stderr).toMatch(/from the server: skipped message 1 \(invalid UTF-8/);
  }, 30_000);
});

describe('wrap: server lines that turn out bad', () => {
  const server = (code: string) => [
    'python3',
    '-c',
    `import sys\n${code}\nsys.stdout.write('{"jsonrpc":"2.0","id":1,"result":"Qwen"}\\n')`,
  ];

  it('a line over --max-message-bytes is skipped with a note; the session goes on', async () => {
    const s = new CliSession(['wrap', '--max-message-bytes', '100', ...server(`sys.stdout.write('{"result":"' + 'x' * 200 + '"}\\n')`)]);
    const ended = await s.end();
    expect(ended.stdout.toString()).toBe('{"jsonrpc":"2.0","id":1,"result":"__mcp_ref_5177656e__"}\n');
    expect(ended.stderr).toMatch(
      /from the server: skipped message 1 \(message larger than maxMessageBytes \(100\) at byte 100[^\n]*not forwarded/,
    );
    expect(ended.code).toBe(0);
  }, 30_000);

  it('a line found bad after its first MiB went out reaches the client cut short and unparseable', async () => {
    const s = new CliSession(['wrap', ...server(`sys.stdout.write('{"result":"Qwen ' + 'x' * 2000000 + '"} trailing\\n')`)]);
    const ended = await s.end();
    const lines = ended.stdout.toString().split('\n');
    expect(lines).toHaveLength(3);
    expect(() => JSON.parse(lines[0]!)).toThrow();
    expect(lines[0]!.startsWith('{"result":"__mcp_ref_5177656e__ xxx')).toBe(true);
    expect(lines[1]).toBe('{"jsonrpc":"2.0","id":1,"result":"__mcp_ref_5177656e__"}');
    expect(ended.stderr).toMatch(/from the server: skipped message 1 \(invalid JSON at byte 2000019[^\n]*cut short/);
  }, 30_000);
});
