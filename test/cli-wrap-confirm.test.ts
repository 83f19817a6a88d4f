// wrap --guard --confirm: the real SDK client, with an elicitation handler (accepting, declining,
// cancelling, never answering) or without the capability, drives wrap around a real SDK server
// whose tools are annotated. A call the rule names is asked about with an elicitation/create of
// the proxy's own (naming the tool and the argument names, never their values); only a yes lets
// it reach the server; the client's answer never does (test/fixtures/stdin-spy.mjs records what
// the server read); the trail says confirmed / declined / timed-out with rule confirm.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, REQUEST, ROOT, type Session } from './e2e-helpers.ts';
import { cliRunsOnce } from './fixtures/cli-session.ts';

const T = 30_000;
const dir = mkdtempSync(join(tmpdir(), 'mpc-confirm-'));
const SPY = join(ROOT, 'test', 'fixtures', 'stdin-spy.mjs');
const SERVER = join(ROOT, 'test', 'fixtures', 'confirm-server.mjs');

type Answer = ElicitResult | 'never';
/** What the asking client's user answers next, and what it was asked. */
let answer: Answer = { action: 'accept', content: { allow: true } };
const asked: ElicitRequest['params'][] = [];
const askedIds: (string | number)[] = [];
const aborted: boolean[] = [];

let asking: Session;
let mute: Session;
const spyLog = join(dir, 'server-stdin.log');
const audit = join(dir, 'audit.ndjson');

beforeAll(async () => {
  [asking, mute] = await Promise.all([
    connect(
      [process.execPath, SPY, spyLog, process.execPath, SERVER],
      'wrap',
      (client) => {
        client.registerCapabilities({ elicitation: {} });
        client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
          asked.push(request.params);
          askedIds.push(extra.requestId);
          if (answer !== 'never') return answer;
          return new Promise<ElicitResult>((_, reject) =>
            extra.signal.addEventListener('abort', () => {
              aborted.push(true);
              reject(new Error('aborted'));
            }),
          );
        });
      },
      ['--guard', '--confirm', 'destructive', '--confirm', 'echo', '--call-timeout', '4s', '--audit', audit],
    ),
    connect([process.execPath, SERVER], 'wrap', undefined, ['--guard', '--confirm', 'destructive']),
  ]);
  await Promise.all([asking.client.listTools(undefined, REQUEST), mute.client.listTools(undefined, REQUEST)]);
}, T);

afterAll(async () => {
  await Promise.all([asking?.close(), mute?.close()]);
});

const call = (s: Session, name: string, args: Record<string, unknown>) => s.client.callTool({ name, arguments: args }, undefined, REQUEST);
const text = (r: Awaited<ReturnType<typeof call>>) => (r.content as { text: string }[]).map((c) => c.text).join('\n');

describe('wrap --confirm with an SDK client that can be asked', () => {
  it(
    'asks with a one-boolean form naming the tool and the argument names; yes lets the call reach the server',
    async () => {
      answer = { action: 'accept', content: { allow: true } };
      const before = asked.length;
      const r = await call(asking, 'delete_file', { path: '/tmp/SECRET-PATH', recursive: true });
      expect(r.isError ?? false).toBe(false);
      expect(text(r)).toBe('delete_file done (path,recursive)');
      expect(asked.length).toBe(before + 1);
      const params = asked.at(-1)! as { message: string; requestedSchema: { properties: Record<string, { type: string }> } };
      expect(params.message).toContain('"delete_file"');
      expect(params.message).toContain('"path"');
      expect(params.message).toContain('"recursive"');
      expect(JSON.stringify(params)).not.toContain('SECRET');
      const props = Object.values(params.requestedSchema.properties);
      expect(props.map((p) => p.type)).toEqual(['boolean']);
      expect(await asking.stderrWith('ran delete_file')).toContain('ran delete_file');
    },
    T,
  );

  it(
    'asks about tools named by the rule, not about a read-only one',
    async () => {
      answer = { action: 'accept', content: { allow: true } };
      const before = asked.length;
      expect((await call(asking, 'peek', { path: 'x' })).isError ?? false).toBe(false); // destructive but read-only
      expect(asked.length).toBe(before);
      expect((await call(asking, 'echo', { text: 'hi' })).isError ?? false).toBe(false); // --confirm echo
      expect(asked.length).toBe(before + 1);
    },
    T,
  );

  it(
    'decline, cancel and an accept without yes answer the call isError "declined by the user"; the server never runs it',
    async () => {
      for (const a of [{ action: 'decline' }, { action: 'cancel' }, { action: 'accept', content: { allow: false } }] as ElicitResult[]) {
        answer = a;
        const r = await call(asking, 'delete_file', { path: `/tmp/declined-${a.action}` });
        expect(r.isError).toBe(true);
        expect(text(r)).toBe('MCP tool call "delete_file" was blocked before it reached the server: declined by the user');
      }
      expect(readFileSync(spyLog, 'utf8')).not.toContain('declined-');
    },
    T,
  );

  it(
    'no answer within the call time limit: isError, and the client is told to stop asking',
    async () => {
      answer = 'never';
      const r = await call(asking, 'delete_file', { path: '/tmp/never-answered' });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/: no confirmation from the user within 4 s$/);
      await expect.poll(() => aborted.length, { timeout: 5_000 }).toBe(1);
      // A yes that comes late is the proxy's still, and dropped (then a call to see it was read).
      const late = { jsonrpc: '2.0', id: askedIds.at(-1), result: { action: 'accept', content: { allow: true } } };
      asking.writeRaw(`${JSON.stringify(late)}\n`);
      answer = { action: 'accept', content: { allow: true } };
      expect((await call(asking, 'echo', { text: 'after' })).isError ?? false).toBe(false);
      expect(readFileSync(spyLog, 'utf8')).not.toContain('never-answered');
    },
    T,
  );

  it(
    'the client cancels the call while its user is asked: the question is withdrawn, the call never runs',
    async () => {
      answer = 'never';
      const before = asked.length;
      const cancel = new AbortController();
      const pending = asking.client.callTool({ name: 'delete_file', arguments: { path: '/tmp/cancelled-call' } }, undefined, {
        ...REQUEST,
        signal: cancel.signal,
      });
      await expect.poll(() => asked.length, { timeout: 5_000 }).toBe(before + 1);
      cancel.abort();
      await expect(pending).rejects.toThrow();
      await expect.poll(() => aborted.length, { timeout: 5_000 }).toBe(2);
      answer = { action: 'accept', content: { allow: true } };
      expect((await call(asking, 'echo', { text: 'after' })).isError ?? false).toBe(false);
      expect(readFileSync(spyLog, 'utf8')).not.toContain('cancelled-call');
      // (withdrawn at the cancellation, not left to time out)
      const trail = readFileSync(audit, 'utf8').trim().split('\n');
      const entries = trail.map((l) => JSON.parse(l) as { tool: string; decision: string });
      expect(entries.filter((e) => e.tool === 'delete_file').at(-1)!.decision).toBe('blocked');
    },
    T,
  );

  it("the client's answers never reach the server; the trail says confirmed, declined, timed-out", () => {
    const seen = readFileSync(spyLog, 'utf8');
    expect(seen).not.toContain('mcp-payload-codec/');
    expect(seen).not.toContain('"action"');
    const trail = readFileSync(audit, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(trail.map(({ time, request, ...e }) => e)).toEqual([
      { tool: 'delete_file', decision: 'confirmed', rule: 'confirm' },
      { tool: 'echo', decision: 'confirmed', rule: 'confirm' },
      { tool: 'delete_file', decision: 'declined', rule: 'confirm' },
      { tool: 'delete_file', decision: 'declined', rule: 'confirm' },
      { tool: 'delete_file', decision: 'declined', rule: 'confirm' },
      { tool: 'delete_file', decision: 'timed-out', rule: 'confirm' },
      { tool: 'echo', decision: 'confirmed', rule: 'confirm' },
      { tool: 'delete_file', decision: 'blocked', rule: 'confirm' },
      { tool: 'echo', decision: 'confirmed', rule: 'confirm' },
    ]);
    expect(JSON.stringify(trail)).not.toMatch(/SECRET|declined-|never-answered|cancelled-call/);
  });
});

describe('wrap --confirm with an SDK client that cannot be asked', () => {
  it(
    'answers isError "needs a confirmation that this client cannot ask for"; other calls go on',
    async () => {
      const r = await call(mute, 'delete_file', { path: '/tmp/x' });
      expect(r.isError).toBe(true);
      expect(text(r)).toBe(
        'MCP tool call "delete_file" was blocked before it reached the server: needs a confirmation that this client cannot ask for',
      );
      expect((await call(mute, 'echo', { text: 'hi' })).isError ?? false).toBe(false);
      expect(mute.stderr.join('')).not.toContain('ran delete_file');
    },
    T,
  );
});

describe('--confirm and --root client on the command line', () => {
  it('need a guard; --confirm takes a name; --root client stands alone; wrap and serve only (exit code 2)', () => {
    const cases = [
      [['wrap', '--confirm', 'destructive', '--', 'true'], /--confirm needs --guard or --guard-tools-only/],
      [['wrap', '--guard', '--confirm=', '--', 'true'], /--confirm 1 is empty/],
      [['wrap', '--guard', '--root', 'client', '--root', dir, '--', 'true'], /--root client takes the roots the client lists/],
      [['serve', '--confirm', 'x', '--', 'true'], /--confirm needs --guard or --guard-tools-only/],
      [['proxy', '--guard', '--confirm', 'x', '--upstream', 'http://127.0.0.1:9/mcp'], /--confirm applies to wrap, serve, not proxy/],
      [['proxy', '--guard', '--root', 'client', '--upstream', 'http://127.0.0.1:9/mcp'], /--root client applies to wrap and serve only/],
    ] as const;
    // (the first as a process of its own, for the real exit code; the rest decided in one)
    const ran = cliRunsOnce(cases.map(([args]) => [...args]));
    for (const [i, [args, error]] of cases.entries()) {
      const r = ran(i);
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, expect.stringMatching(error)]);
    }
  });
});
