// What issue #34 asks of `serve` and `proxy`, shown on both with the same lines, each in front
// of a real MCP server and driven by the real SDK client: bearer tokens (the exact RFC 6750
// challenges), a session hijack with another valid token, limits decided from the headers
// alone, no credential in any log, audit trail, child or upstream, rotation under load, and
// the safe default (no authentication beyond loopback) with its hosts, IPv6 included.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type Behind, behind, COMMANDS, ENV_CHILD, scratchPath, sdkClient, TOOL_OF, unfinishedPost } from './access-commands.ts';
import { cliRuns } from './fixtures/cli-session.ts';
import { type Closer, listening, MAIN, ROOT } from './http-cli-helpers.ts';
import { postInitialize, TIMEOUT, textOf } from './http-helpers.ts';

vi.setConfig({ testTimeout: 30_000 });

const TOKEN_A = 'tokenA-0123456789abcdef';
const TOKEN_B = 'tokenB-0123456789abcdef';
const TOKEN_C = 'tokenC-0123456789abcdef';
const tokenFile = (text: string) => {
  const f = scratchPath('tokens');
  writeFileSync(f, text);
  return f;
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** Nothing of any token in `text`. */
const noToken = (text: string) => expect(text).not.toMatch(/token[ABC]-0123456789abcdef/);

for (const command of COMMANDS)
  describe(`${command} with bearer tokens`, () => {
    // One process, started by the first case, for the three that take the tokens A and B from a
    // file: the first sees nothing reach the server before its own session, the hijack counts
    // from its own start, and the rotation (it rewrites the file) comes last.
    const closes: (() => unknown)[] = [];
    const file = tokenFile(`${TOKEN_A}\n${TOKEN_B}\n`);
    let started: Promise<Behind> | undefined;
    const withAB = () => (started ??= behind(command, ['--auth-token-file', file], {}, (c) => void closes.push(c)));
    afterAll(async () => {
      for (const c of closes.reverse()) await c();
    });

    it('no token: 401 Bearer; a wrong one of the right length or another: 401 invalid_token; the server sees none', async () => {
      const run = await withAB();
      const none = await postInitialize(run.url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      for (const wrong of [TOKEN_C, `${TOKEN_A.slice(0, -1)}x`, TOKEN_A.slice(0, -1), `${TOKEN_A}x`, 'x'.repeat(1000)]) {
        const r = await postInitialize(run.url, bearer(wrong));
        expect(r.status).toBe(401);
        expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
        expect(await r.text()).not.toContain(wrong.slice(0, 16));
      }
      expect(run.reached()).toBe(0);
      const client = await sdkClient(run.url, TOKEN_A);
      expect((await client.listTools(undefined, TIMEOUT)).tools.map((t) => t.name)).toContain(TOOL_OF[command].name);
      expect(run.reached()).toBeGreaterThan(0);
    });

    it('a session hijack with another valid token: 404 as for no session, nothing reaches the server, the owner goes on', async () => {
      const run = await withAB();
      const owner = await sdkClient(run.url, TOKEN_A);
      const transport = (owner as unknown as { transport: { sessionId?: string } }).transport;
      const session = transport.sessionId!;
      expect(session).toBeTruthy();
      await run.settled();
      const before = run.reached();
      const as = (token: string, sid: string, method: 'POST' | 'GET' | 'DELETE') =>
        fetch(run.url, {
          method,
          headers: {
            ...bearer(token),
            'mcp-session-id': sid,
            'mcp-protocol-version': '2025-06-18',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: TOOL_OF[command] }) : null,
        });
      const answer = async (r: Response) => ({
        status: r.status,
        body: await r.text(),
        headers: [...r.headers].filter(([name]) => name !== 'date'),
      });
      for (const method of ['POST', 'GET', 'DELETE'] as const) {
        const hijack = await answer(await as(TOKEN_B, session, method));
        expect(hijack.status).toBe(404);
        // The same answer as for a session that never was: nothing says this one exists.
        expect(hijack).toEqual(await answer(await as(TOKEN_B, `${session.slice(0, -3)}xyz`, method)));
        expect(hijack.body).not.toContain(session.slice(0, session.indexOf('.')));
        // The server's own id, without the binding, is no way in either.
        expect((await as(TOKEN_B, session.slice(0, session.lastIndexOf('.')), method)).status).toBe(404);
      }
      expect(run.reached()).toBe(before);
      // The session is still its owner's, whole.
      const r = await owner.callTool(TOOL_OF[command], undefined, TIMEOUT);
      expect(textOf(r)).toBeTruthy();
      expect(transport.sessionId).toBe(session);
      expect(run.reached()).toBeGreaterThan(before);
    });

    it('limits are decided from the headers: 401 and 429 with Retry-After before the body, nothing started or forwarded', async () => {
      const run = await behind(command, [
        '--auth-token-file',
        tokenFile(`${TOKEN_A}\n`),
        '--rate',
        '2/s',
        '--max-sessions-per-client',
        '1',
      ]);
      // (each request below sends its headers and a piece of its body, and never the rest)
      const none = await unfinishedPost(run.url, {});
      expect(none.status).toBe(401);
      // (and the connection closed: the rest of a refused body is not read either)
      expect(none.closed).toBe(true);
      const first = await postInitialize(run.url, bearer(TOKEN_A)); // (the one session, and one of two requests this second)
      expect(first.status).toBe(200);
      await first.text();
      const reached = run.reached();
      const started = run.stderr().match(/session started/g)?.length ?? 0;
      const sessions = await unfinishedPost(run.url, bearer(TOKEN_A));
      expect(sessions.status).toBe(429);
      expect(Number(sessions.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(sessions.closed).toBe(true);
      const rate = await unfinishedPost(run.url, bearer(TOKEN_A));
      expect(rate.status).toBe(429);
      expect(Number(rate.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(rate.closed).toBe(true);
      expect(run.reached()).toBe(reached);
      expect(run.stderr().match(/session started/g)?.length ?? 0).toBe(started);
      noToken(run.stderr());
    });

    it('no token in stderr, the audit trail or what the server gets', async () => {
      const audit = scratchPath('audit');
      const run = await behind(command, ['--guard', '--audit', audit, '--audit-all'], {
        MCP_PAYLOAD_CODEC_AUTH_TOKENS: `${TOKEN_A},${TOKEN_B}`,
      });
      const client = await sdkClient(run.url, TOKEN_A);
      await client.callTool(TOOL_OF[command], undefined, TIMEOUT);
      await postInitialize(run.url, bearer(TOKEN_C));
      await vi.waitFor(() => expect(readFileSync(audit, 'utf8')).toContain(TOOL_OF[command].name), { timeout: 5_000 });
      noToken(readFileSync(audit, 'utf8'));
      noToken(run.stderr());
      noToken(run.received());
    });

    it('SIGHUP under concurrent requests: a token kept by the rotation is never refused, a dropped one is at once', async () => {
      const run = await withAB();
      // (a GET without a session: past the access layer, answered at once; 401 only from it)
      const status = async (token: string) => {
        const r = await fetch(run.url, { headers: { ...bearer(token), accept: 'text/event-stream' } });
        await r.body?.cancel();
        return r.status;
      };
      let rotating = true;
      const keptRefused: number[] = [];
      const load = async () => {
        let n = 0;
        while (rotating) {
          if ((await status(TOKEN_B)) === 401) keptRefused.push(n);
          n++;
        }
        return n;
      };
      const workers = [load(), load(), load(), load()];
      try {
        for (let i = 1; i <= 6; i++) {
          const gone = i % 2 ? TOKEN_A : TOKEN_C;
          const comes = i % 2 ? TOKEN_C : TOKEN_A;
          writeFileSync(file, `${comes}\n${TOKEN_B}\n`);
          run.p.kill('SIGHUP');
          await vi.waitFor(
            () =>
              expect(
                run.stderr().match(/2 tokens in force/g)?.length,
                `${run.p.exitCode} ${run.p.signalCode} ${run.stderr().slice(-600)}`,
              ).toBe(i),
            { timeout: 5_000 },
          );
          expect(await status(gone)).toBe(401);
          expect(await status(comes)).not.toBe(401);
        }
      } finally {
        rotating = false;
        await Promise.allSettled(workers); // (none left running into the next test's cleanup)
      }
      const done = await Promise.all(workers);
      expect(done.every((n) => n > 0)).toBe(true);
      expect(keptRefused).toEqual([]);
      expect(run.p.exitCode).toBe(null);
      noToken(run.stderr());
    });
  });

// The cases below each start processes of their own and wait on them: they run at once
// (consecutive concurrent suites run together), each closing what it opened when it ends.
describe.concurrent('serve starts its child with no credential', () => {
  it('neither in its environment nor its argv, from the variable or the file', async ({ expect, onTestFinished }) => {
    const close = (c: () => unknown) => onTestFinished(async () => void (await c()));
    const { url } = await listening(
      ['serve', '--port', '0', '--auth-token-file', tokenFile(`${TOKEN_C}\n`), '--', ...ENV_CHILD],
      { MCP_PAYLOAD_CODEC_AUTH_TOKENS: TOKEN_A },
      close,
    );
    for (const token of [TOKEN_A, TOKEN_C]) {
      const client = await sdkClient(url, token, close);
      const seen = JSON.parse(textOf(await client.callTool({ name: 'process', arguments: {} }, undefined, TIMEOUT))) as {
        argv: string[];
        env: Record<string, string>;
      };
      expect(seen.argv.length).toBeGreaterThan(1);
      expect(seen.env.MCP_PAYLOAD_CODEC_AUTH_TOKENS).toBeUndefined();
      noToken(JSON.stringify(seen));
    }
  });
});

describe.concurrent('the safe default, on both commands', () => {
  /** The command line `run` starts, after the CLI's path. */
  const argv = (command: string, args: string[]) => {
    const tail = command === 'serve' ? ['--', ...ENV_CHILD] : [];
    const head = command === 'proxy' ? ['--upstream', 'http://127.0.0.1:9/mcp'] : [];
    return [command, ...head, '--port', '0', ...args, ...tail];
  };
  /** Starts `command` with `args`; resolves with its exit status (null: still running, then ended) and its stderr; `close` takes its end. */
  const run = (command: string, args: string[], close: Closer) =>
    new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, [MAIN, ...argv(command, args)], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, MCP_PAYLOAD_CODEC_AUTH_TOKENS: '' },
      });
      close(() => void p.kill('SIGKILL'));
      let stderr = '';
      let started = false;
      p.stderr!.setEncoding('utf8');
      p.stderr!.on('data', (c: string) => {
        stderr += c;
        if (!started && /listening on|serving .* on/.test(stderr)) {
          started = true;
          p.kill('SIGTERM');
        }
      });
      p.on('exit', (code) => resolve({ status: started ? null : code, stderr }));
    });

  const beyond = ['0.0.0.0', '::', '192.0.2.1', '::ffff:192.0.2.1', 'example.com', '127.0.0.1.nip.io', '0', ''];

  for (const command of COMMANDS) {
    it(`${command}: any host beyond loopback without authentication exits 2 and says why`, async ({ expect, onTestFinished }) => {
      // (the first as a process of its own, for the real exit code; the rest decided in one)
      const spawned = await run(command, ['--host', beyond[0]!], (c) => onTestFinished(() => void c()));
      const others = cliRuns(
        beyond.slice(1).map((host) => argv(command, ['--host', host])),
        { MCP_PAYLOAD_CODEC_AUTH_TOKENS: '' },
      );
      const answers = [spawned, ...others.map((r) => ({ status: r.code, stderr: r.stderr }))];
      for (const [i, r] of answers.entries()) {
        expect(r.status, beyond[i]).toBe(2);
        expect(r.stderr).toMatch(/refusing to listen on .* without authentication/);
      }
    });

    it(`${command}: --no-auth starts on 0.0.0.0 and :: and says so on stderr`, async ({ expect, onTestFinished }) => {
      const hosts = ['0.0.0.0', '::'];
      const runs = await Promise.all(
        hosts.map((host) => run(command, ['--host', host, '--no-auth'], (c) => onTestFinished(() => void c()))),
      );
      for (const [i, r] of runs.entries()) {
        const host = hosts[i]!;
        expect(r.status, host).toBe(null);
        expect(r.stderr).toContain(`--no-auth: anyone who reaches ${host} can use this server`);
      }
    });
  }
});

describe.concurrent('serve: a session it ended no longer counts toward --max-sessions-per-client', () => {
  it('after the session idles out, its credential opens another at once', async ({ expect, onTestFinished }) => {
    const run = await behind(
      'serve',
      ['--auth-token-file', tokenFile(`${TOKEN_A}\n`), '--max-sessions-per-client', '1', '--session-idle', '1s'],
      {},
      (c) => onTestFinished(async () => void (await c())),
    );
    const first = await postInitialize(run.url, bearer(TOKEN_A));
    expect(first.status).toBe(200);
    await first.text();
    await vi.waitFor(() => expect(run.stderr()).toMatch(/session ended \(idle/), { timeout: 10_000 });
    const next = await postInitialize(run.url, bearer(TOKEN_A));
    expect(next.status).toBe(200);
    await next.text();
  });
});
