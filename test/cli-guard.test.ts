// wrap --guard as a client sees it: blocks come back as tool results the model can read, every
// request of a batch is checked and the client gets one batch response, U+FFFD is stopped
// after decoding, and no reply carries a term.
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { CliSession, cliRunsOnce, fixture, type Reply } from './fixtures/cli-session.ts';
import { termsIn } from './mcp-guard-helpers.ts';

/** A JSON-RPC server that answers a batch with a batch (or, given "single", line by line). */
const BATCH_SERVER = `
const tools = [
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'write_file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } } },
];
const answer = (m) => {
  if (m.id === undefined) return undefined;
  if (m.method === 'tools/list') return { jsonrpc: '2.0', id: m.id, result: { tools } };
  process.stderr.write('server saw ' + m.id + '\\n');
  return { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params.name + ' got ' + JSON.stringify(m.params.arguments) }] } };
};
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  for (let nl; (nl = buf.indexOf('\\n')) >= 0; ) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    const msg = JSON.parse(line);
    if (!Array.isArray(msg)) { const a = answer(msg); if (a) process.stdout.write(JSON.stringify(a) + '\\n'); continue; }
    const answers = msg.map(answer).filter(Boolean);
    if (process.argv.includes('single')) for (const a of answers) process.stdout.write(JSON.stringify(a) + '\\n');
    else if (answers.length) process.stdout.write(JSON.stringify(answers) + '\\n');
  }
});
`;

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
const isBlocked = (m: Reply | undefined) => m?.result?.isError === true && typeof m.result.content[0]?.text === 'string';

async function listed(args: string[]) {
  const s = new CliSession(args);
  s.send(list(1));
  await s.response(1);
  return s;
}

describe('wrap --guard: batches', () => {
  it('checks every request of a batch; the client gets one batch response, the server only what passed', async () => {
    const s = await listed(['wrap', '--guard', process.execPath, '-e', BATCH_SERVER]);
    // Sent as soon as the list is in: the schema compiler may still be loading; nothing skips it.
    s.send([
      call(2, 'echo', { text: 5 }),
      call(3, 'echo', { text: 'hi' }),
      call(4, 'write_file', { path: 'p', content: 'x\uFFFD' }),
      { jsonrpc: '2.0', method: 'notifications/progress', params: {} },
    ]);
    await s.response(2);
    await s.response(3);
    const ended = await s.end();
    const lines = s.messages();
    const batches = lines.filter((m) => Array.isArray(m)) as Reply[][];
    expect(batches).toHaveLength(1);
    expect(lines).toHaveLength(2); // the list, and one batch response
    const byId = new Map(batches[0]!.map((m) => [m.id, m]));
    expect([...byId.keys()].sort()).toEqual([2, 3, 4]);
    expect(byId.get(3)!.result.content[0]!.text).toBe('echo got {"text":"hi"}');
    expect(isBlocked(byId.get(2))).toBe(true);
    expect(byId.get(2)!.result.content[0]!.text).toMatch(/"echo" was blocked .*\/text must be string \(rule "type"\)/);
    expect(isBlocked(byId.get(4))).toBe(true);
    expect(byId.get(4)!.result.content[0]!.text).toMatch(
      /argument "content" of tool "write_file" contains 1 invalid UTF-8 replacement character/,
    );
    expect(ended.stderr.match(/server saw \d+/g)).toEqual(['server saw 3']);
  }, 30_000);

  it('a server that answers a batch line by line: the proxy answers follow as a batch; a batch blocked whole is answered at once', async () => {
    const s = await listed(['wrap', '--guard', process.execPath, '-e', BATCH_SERVER, 'single']);
    s.send([call(2, 'echo', {}), call(3, 'echo', { text: 'a' }), call(4, 'echo', { text: 'b' })]);
    s.send([call(5, 'nope', {}), call(6, 'echo', { text: 7 })]);
    for (const id of [2, 3, 4, 5, 6]) await s.response(id);
    const ended = await s.end();
    const lines = s.messages().slice(1) as unknown[];
    expect(lines.map((l) => (Array.isArray(l) ? l.map((m) => m.id) : (l as { id: number }).id))).toEqual(
      expect.arrayContaining([3, 4, [2], [5, 6]]),
    );
    expect(lines).toHaveLength(4);
    expect(ended.stderr.match(/server saw \d+/g)).toEqual(['server saw 3', 'server saw 4']);
  }, 30_000);
});

describe('wrap --guard: a call it cannot judge makes it ask the server', () => {
  it('before any list, and after list_changed: unknown tools blocked, known ones pass; its own answer never reaches the client', async () => {
    // A server that sends list_changed after the first call and adds a tool (its answer to the
    // guard's own tools/list holds "delete_all" from then on).
    const changing = BATCH_SERVER.replace(
      "process.stderr.write('server saw ' + m.id + '\\n');",
      "process.stderr.write('server saw ' + m.id + '\\n'); if (m.id === 2) { tools.push({ name: 'delete_all', inputSchema: { type: 'object' } }); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }) + '\\n'); }",
    );
    expect(changing).not.toBe(BATCH_SERVER);
    const s = new CliSession(['wrap', '--guard-tools-only', process.execPath, '-e', changing]);
    s.send(call(2, 'echo', { text: 'hi' })); // no list yet: asked for
    expect((await s.response(2)).result.content[0]!.text).toBe('echo got {"text":"hi"}');
    s.send(call(3, 'teleport', {})); // the list changed: asked for again; not in it
    expect(isBlocked(await s.response(3))).toBe(true);
    s.send(call(4, 'delete_all', {})); // new in it: passes
    expect((await s.response(4)).result.content[0]!.text).toBe('delete_all got {}');
    const ended = await s.end();
    expect(s.messages().filter((m) => !Array.isArray(m) && (m as Reply).result?.tools)).toEqual([]);
    expect(ended.stderr.match(/server saw \d+/g)).toEqual(['server saw 2', 'server saw 4']);
  }, 30_000);
});

describe('wrap --guard: U+FFFD and terms', () => {
  const SERVER = fixture('cli-terms-server.py');
  const enc = createCodec().encodeText;

  it('a write whose decoded arguments hold U+FFFD never reaches the server; no byte the client gets holds a term', async () => {
    const s = await listed(['wrap', '--guard', 'python3', SERVER]);
    s.send(call(2, enc('qwen_tool'), { [enc('通义_path')]: `${enc('__mcp_ref_qwenabc')}\uFFFD` }));
    s.send(call(3, 'echo', { text: 'ok' }));
    s.send([call(4, enc('qwen_tool'), { [enc('通义_path')]: '\uFFFD\uFFFD' }), call(5, enc('alibaba_nope'), {})]); // blocked whole: one batch
    // Half a surrogate pair (a host that cut text in UTF-16 units): the server would store U+FFFD.
    s.send(call(6, 'echo', { text: 'half 😀'.slice(0, -1) }));
    for (const id of [2, 3, 4, 5, 6]) await s.response(id);
    const ended = await s.end();
    const stdout = ended.stdout.toString('utf8');
    expect(termsIn(stdout)).toEqual([]);
    const decoded = s
      .messages()
      .flat()
      .map((m) => createCodec().decodeMessage(m as Reply));
    const byId = new Map(decoded.map((m) => [m.id, m]));
    expect(isBlocked(byId.get(2))).toBe(true);
    expect(byId.get(2)!.result.content[0]!.text).toMatch(
      /^MCP tool argument "通义_path" of tool "qwen_tool" contains 1 invalid UTF-8 replacement character\(s\) \(U\+FFFD\); the call was blocked before it reached the MCP server\. First UTF-8 byte offset: \d+\.$/,
    );
    expect(byId.get(3)!.result.content[0]!.text).toBe('echo got {"text": "ok"}');
    expect(byId.get(5)!.result.content[0]!.text).toContain('tool "alibaba_nope" is not in');
    expect(isBlocked(byId.get(6))).toBe(true);
    expect(byId.get(6)!.result.content[0]!.text).toContain('1 of them lone UTF-16 surrogate(s)');
    expect(s.messages().filter((m) => Array.isArray(m))).toHaveLength(1);
    expect(ended.stderr.match(/server saw/g)).toHaveLength(1);
    expect(ended.stderr).toMatch(/blocked tools\/call "qwen_tool": MCP tool argument/);
  }, 30_000);

  it('--guard-tools-only does not check U+FFFD (the tool checks only)', async () => {
    const s = await listed(['wrap', '--guard-tools-only', 'python3', SERVER]);
    s.send(call(2, 'echo', { text: 'x\uFFFD' }));
    s.send(call(3, 'nope', {}));
    const passed = await s.response(2);
    const blocked = await s.response(3);
    const ended = await s.end();
    expect(passed.result.content[0]!.text).toBe('echo got {"text": "x\uFFFD"}');
    expect(isBlocked(blocked)).toBe(true);
    expect(ended.stderr.match(/server saw/g)).toHaveLength(1);
  }, 30_000);
});

describe('wrap guard options', () => {
  it('--guard and --guard-tools-only: one at a time, neither takes a value (exit code 2)', () => {
    const cases = [
      ['wrap', '--guard', '--guard-tools-only', 'cat'],
      ['wrap', '--guard-tools-only=yes', 'cat'],
      ['encode', '--guard-tools-only'],
    ];
    // (refused before anything starts: the first as a process of its own, the rest decided in one)
    const ran = cliRunsOnce(cases);
    for (const k of cases.keys()) {
      const r = ran(k);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^mcp-payload-codec: .*--guard-tools-only.*\n$/);
    }
  });
});
