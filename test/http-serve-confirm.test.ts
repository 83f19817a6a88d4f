// serve --guard --confirm and --root client: the guard asks the host itself over Streamable
// HTTP. The real SDK client (StreamableHTTPClientTransport) with an elicitation handler that
// accepts, declines or never answers, one without the capability, and one that lists roots,
// drive runServe around a real SDK server (fixtures/confirm-server.mjs) whose stdin is recorded
// (fixtures/stdin-spy.mjs): only a yes lets a call reach the child, the host's answers never do,
// a call waiting for its user holds up no other call, and the trail says what was decided.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runServe } from '../src/cli/serve.js';
import type { AuditEntry } from '../src/guard/audit.ts';
import { encodeText } from '../src/index.ts';
import { listening } from './http-cli-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });
const REQUEST = { timeout: 10_000 };
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mpc-serve-confirm-')));
const SPY = join('test', 'fixtures', 'stdin-spy.mjs');
const SERVER = join('test', 'fixtures', 'confirm-server.mjs');
const spyLog = join(dir, 'child-stdin.log');
const first = join(dir, 'first');
const second = join(dir, 'second');

type Answer = ElicitResult | 'never';
let answer: Answer = { action: 'accept', content: { allow: true } };
const asked: { message: string }[] = [];
const aborted: boolean[] = [];
const audit: AuditEntry[] = [];
const closing: (() => Promise<unknown>)[] = [];

async function serve(options: { confirm?: string[]; roots?: 'client'; confirmTimeoutMs?: number }, log = spyLog) {
  const served = await runServe({
    command: [process.execPath, SPY, log, process.execPath, SERVER],
    port: 0,
    guard: 'all',
    onAudit: (e) => void audit.push(e),
    log: () => {},
    ...options,
  });
  closing.push(() => served.close());
  return served.url;
}

async function host(url: string, setUp?: (client: Client) => void) {
  const client = new Client({ name: 'host', version: '1.0.0' });
  setUp?.(client);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport, REQUEST);
  closing.unshift(() => client.close());
  await client.listTools(undefined, REQUEST);
  return { client, session: transport.sessionId };
}

const asking = (client: Client) => {
  client.registerCapabilities({ elicitation: {} });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    asked.push(request.params as { message: string });
    if (answer !== 'never') return answer;
    return new Promise<ElicitResult>((_, reject) =>
      extra.signal.addEventListener('abort', () => {
        aborted.push(true);
        reject(new Error('aborted'));
      }),
    );
  });
};

type Call = Awaited<ReturnType<Client['callTool']>>;
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }, undefined, REQUEST);
const text = (r: Call) => (r.content as { text: string }[]).map((c) => c.text).join('\n');
const blocked = (reason: string) => `MCP tool call "delete_file" was blocked before it reached the server: ${reason}`;
const childSaw = (log = spyLog) => readFileSync(log, 'utf8');

let confirming: { client: Client; session: string | undefined };
let mute: { client: Client; session: string | undefined };

beforeAll(async () => {
  mkdirSync(first);
  mkdirSync(second);
  const url = await serve({ confirm: ['destructive'], confirmTimeoutMs: 1500 });
  [confirming, mute] = await Promise.all([host(url, asking), host(url)]);
});

afterAll(async () => {
  for (const close of closing) await close().catch(() => {});
});

describe('serve --confirm with an SDK client that can be asked', () => {
  it('asks on the call, naming the tool and argument names; yes lets it reach the child', async () => {
    answer = { action: 'accept', content: { allow: true } };
    const r = await call(confirming.client, 'delete_file', { path: '/tmp/SECRET-yes' });
    expect([r.isError ?? false, text(r)]).toEqual([false, 'delete_file done (path)']);
    expect(asked.at(-1)!.message).toBe('Allow the tool "delete_file" to run with the arguments "path"?');
    expect(JSON.stringify(asked)).not.toContain('SECRET');
    expect(childSaw()).toContain('/tmp/SECRET-yes');
  });

  it('decline and cancel answer the call isError; the child never sees it', async () => {
    for (const a of [{ action: 'decline' }, { action: 'cancel' }] as ElicitResult[]) {
      answer = a;
      const r = await call(confirming.client, 'delete_file', { path: `/tmp/declined-${a.action}` });
      expect([r.isError, text(r)]).toEqual([true, blocked('declined by the user')]);
    }
    expect(childSaw()).not.toContain('declined-');
  });

  it('no answer within the time limit: isError, the question withdrawn; other calls go on meanwhile', async () => {
    answer = 'never';
    const before = asked.length;
    const answered: string[] = [];
    const waiting = call(confirming.client, 'delete_file', { path: '/tmp/never-answered' }).finally(() => answered.push('asked'));
    await vi.waitFor(() => expect(asked.length).toBe(before + 1));
    // (held aside: a call after it passes the guard and is answered while the user is asked)
    expect(text(await call(confirming.client, 'echo', { text: 'meanwhile' }))).toBe('echo done (text)');
    answered.push('echo');
    const r = await waiting;
    expect(answered).toEqual(['echo', 'asked']);
    expect([r.isError, text(r)]).toEqual([true, blocked('no confirmation from the user within 1.5 s')]);
    await vi.waitFor(() => expect(aborted.length).toBe(1));
    expect(childSaw()).not.toContain('never-answered');
  });

  it("the host's answers never reach the child; the trail says confirmed, declined, timed-out, with the session", () => {
    const seen = childSaw();
    // (the guard's own tools/list went to the child; its questions to the host never did)
    expect(seen).not.toContain('elicitation-create');
    expect(seen).not.toContain('"action"');
    const mine = audit.filter((e) => e.session === confirming.session && e.tool === 'delete_file');
    expect(mine.map((e) => [e.decision, e.rule])).toEqual([
      ['confirmed', 'confirm'],
      ['declined', 'confirm'],
      ['declined', 'confirm'],
      ['timed-out', 'confirm'],
    ]);
    expect(JSON.stringify(audit)).not.toMatch(/SECRET|declined-|never-answered/);
  });
});

describe('serve --confirm on the wire', () => {
  it("asks on the call's own event stream; the answer's POST gets 202 and the call goes on there", async () => {
    const url = await serve({ confirm: ['echo'] }, join(dir, 'wire-child-stdin.log'));
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = (body: unknown, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: { ...headers, ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}) },
        body: JSON.stringify(body),
      });
    const capabilities = { elicitation: {} };
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'raw', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    const called = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, session);
    // The call's stream, message by message.
    const reader = called.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    const next = async (): Promise<{ id?: unknown; method?: string; result?: unknown }> => {
      for (;;) {
        const data = /^data: (.+)$/m.exec(buffered);
        if (data) {
          buffered = buffered.slice(data.index + data[0].length);
          return JSON.parse(data[1]!);
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffered += value;
      }
    };
    const question = await next();
    expect(question).toMatchObject({ method: 'elicitation/create', id: expect.stringMatching(/^mcp-payload-codec\/elicitation-create\//) });
    const yes = await post({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { allow: true } } }, session);
    expect(yes.status).toBe(202);
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'echo done (text)' }] } });
    // An answer whose keys collide once decoded: the question fails (202), the child never sees it.
    const again = await post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { text: 'y' } } }, session);
    const reader2 = again.body!.pipeThrough(new TextDecoderStream()).getReader();
    const read2 = async () => {
      for (;;) {
        const data = /^data: (.+)$/m.exec(buffered);
        if (data) {
          buffered = buffered.slice(data.index + data[0].length);
          return JSON.parse(data[1]!) as { id?: unknown; method?: string; result?: unknown };
        }
        const { value, done } = await reader2.read();
        if (done) throw new Error('the stream ended');
        buffered += value;
      }
    };
    buffered = '';
    const second = await read2();
    const colliding = { action: 'accept', content: { allow: true, Qwen: 1, [encodeText('Qwen')]: 2 } };
    expect((await post({ jsonrpc: '2.0', id: second.id, result: colliding }, session)).status).toBe(202);
    expect(await read2()).toMatchObject({ id: 8, result: { isError: true } });
    const seen = childSaw(join(dir, 'wire-child-stdin.log'));
    expect(seen).not.toContain('"action"');
    // (the guard's own tools/list went to the child; its questions to the host never did)
    expect(seen).not.toContain('elicitation-create');
  });
});

describe('serve --confirm with an SDK client that cannot be asked', () => {
  it('answers isError "needs a confirmation that this client cannot ask for"; other calls go on', async () => {
    const r = await call(mute.client, 'delete_file', { path: '/tmp/mute' });
    expect([r.isError, text(r)]).toEqual([true, blocked('needs a confirmation that this client cannot ask for')]);
    expect(text(await call(mute.client, 'echo', { text: 'hi' }))).toBe('echo done (text)');
    expect(childSaw()).not.toContain('/tmp/mute');
  });
});

describe('serve --root client', () => {
  it("asks roots/list, again on list_changed, and confines path arguments to the client's file: roots", async () => {
    const log = join(dir, 'roots-child-stdin.log');
    const url = await serve({ roots: 'client' }, log);
    let listed = first;
    let listings = 0;
    const { client } = await host(url, (c) => {
      c.registerCapabilities({ roots: { listChanged: true } });
      c.setRequestHandler(ListRootsRequestSchema, () => {
        listings++;
        return { roots: [{ uri: pathToFileURL(listed).href }] };
      });
    });
    expect((await call(client, 'peek', { path: join(first, 'a.txt') })).isError ?? false).toBe(false);
    const outside = await call(client, 'peek', { path: join(second, 'SECRET.txt') });
    expect([outside.isError, text(outside)]).toEqual([
      true,
      `MCP tool call "peek" was blocked before it reached the server: argument "/path" is a path outside the allowed roots (${JSON.stringify(first)})`,
    ]);
    listed = second;
    await client.sendRootsListChanged();
    await vi.waitFor(() => expect(listings).toBe(2));
    expect((await call(client, 'peek', { path: join(second, 'b.txt') })).isError ?? false).toBe(false);
    expect((await call(client, 'peek', { path: join(first, 'a.txt') })).isError).toBe(true);
    const seen = childSaw(log);
    expect(seen).toContain('notifications/roots/list_changed');
    expect(seen).not.toMatch(/roots-list|"roots":\[|SECRET/);
  });

  it('a client without the roots capability: path-bearing calls blocked with the reason, others go on', async () => {
    const url = await serve({ roots: 'client' });
    const { client } = await host(url);
    const r = await call(client, 'peek', { path: join(first, 'a.txt') });
    expect(text(r)).toMatch(/the client's roots are not known: the client declared no roots/);
    expect(text(await call(client, 'echo', { text: 'hi' }))).toBe('echo done (text)');
  });
});

describe('the serve command', () => {
  it('takes --confirm and --root client (with a guard): the client is asked, and its roots confine calls', async () => {
    const log = join(dir, 'cli-child-stdin.log');
    const audit = join(dir, 'cli-audit.ndjson');
    const args = ['--guard', '--confirm', 'destructive', '--root', 'client', '--audit', audit];
    const { url } = await listening(['serve', '--port', '0', ...args, '--', process.execPath, SPY, log, process.execPath, SERVER]);
    answer = { action: 'accept', content: { allow: true } };
    const { client } = await host(url, (c) => {
      asking(c);
      c.registerCapabilities({ roots: {} });
      c.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(first).href }] }));
    });
    const before = asked.length;
    expect(text(await call(client, 'delete_file', { path: join(first, 'yes.txt') }))).toBe('delete_file done (path)');
    expect(asked.length).toBe(before + 1);
    const outside = await call(client, 'delete_file', { path: join(second, 'SECRET.txt') });
    expect([outside.isError, asked.length]).toEqual([true, before + 1]); // (blocked by the roots before anyone is asked)
    expect(childSaw(log)).not.toMatch(/SECRET|"action"|"roots":\[/);
    const trail = readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { decision: string; rule: string });
    expect(trail.map((e) => [e.decision, e.rule])).toEqual([
      ['confirmed', 'confirm'],
      ['blocked', 'outside-roots'],
    ]);
  });
});
