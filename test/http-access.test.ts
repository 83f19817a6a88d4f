// Who may use `proxy` and `serve` (the CLI, a real process, in front of a real SDK server),
// beyond the cases test/http-access-commands.test.ts runs on both: tokens from the environment,
// the upstream's own header, a bad or emptied token file on SIGHUP, the rate limit, a DELETE
// freeing a session's place, and the configurations refused as unsafe.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, vi } from 'vitest';
import { encodeText } from '../src/index.js';
import { cliRunsOnce } from './fixtures/cli-session.ts';
import { startUpstream, type Upstream } from './fixtures/http-upstream.js';
import { cleanup, listening } from './http-cli-helpers.ts';
import { postInitialize, TIMEOUT } from './http-helpers.ts';

vi.setConfig({ testTimeout: 30_000 });

const TOKEN_A = 'tokenA-0123456789abcdef';
const TOKEN_B = 'tokenB-0123456789abcdef';
const TOKEN_C = 'tokenC-0123456789abcdef';
const UPSTREAM_CREDENTIAL = 'Bearer upstream-credential-42';
const dir = mkdtempSync(join(tmpdir(), 'mcp-access-'));
let files = 0;
const tokenFile = (text: string) => {
  const f = join(dir, `tokens-${files++}`);
  writeFileSync(f, text);
  return f;
};

async function upstream(): Promise<Upstream> {
  const up = await startUpstream('stateful');
  cleanup.push(() => up.close());
  return up;
}

/** Starts `proxy` with `args`; resolves with its MCP URL and its stderr so far. */
const proxy = (args: string[], env: Record<string, string> = {}) => listening(['proxy', '--port', '0', ...args], env);

async function client(url: string, token?: string): Promise<Client> {
  const c = new Client({ name: 'host', version: '1.0.0' });
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }), TIMEOUT);
  cleanup.push(() => c.close());
  return c;
}

const initialize = postInitialize;

describe('proxy with bearer tokens', () => {
  it('lets the right token in, never forwards it, and sends the upstream its own header', async () => {
    const up = await upstream();
    const { url, stderr } = await proxy([
      '--upstream',
      up.url,
      '--auth-token-file',
      tokenFile(`# the team's tokens\n${TOKEN_A}\n\n${TOKEN_B}\n`),
      '--upstream-header',
      `Authorization: ${UPSTREAM_CREDENTIAL}`,
    ]);
    for (const token of [TOKEN_A, TOKEN_B]) {
      const c = await client(url, token);
      const { tools } = await c.listTools(undefined, TIMEOUT);
      expect(tools.find((t) => t.name === 'echo')!.description).toBe(encodeText('Echoes text, for Qwen and 通义千问 users'));
    }
    expect(up.authorizations.length).toBeGreaterThan(0);
    expect(new Set(up.authorizations)).toEqual(new Set([UPSTREAM_CREDENTIAL]));
    expect(stderr()).not.toMatch(/tokenA|tokenB|upstream-credential/);
  });

  it('takes tokens from MCP_PAYLOAD_CODEC_AUTH_TOKENS', async () => {
    const up = await upstream();
    const { url } = await proxy(['--upstream', up.url], { MCP_PAYLOAD_CODEC_AUTH_TOKENS: `${TOKEN_A},${TOKEN_B}` });
    expect((await initialize(url)).status).toBe(401);
    await client(url, TOKEN_B);
  });

  it('re-reads the token file on SIGHUP and keeps running; a bad file keeps the tokens in force', async () => {
    const up = await upstream();
    const file = tokenFile(`${TOKEN_A}\n`);
    const { p, url, stderr } = await proxy(['--upstream', up.url, '--auth-token-file', file]);
    expect((await initialize(url, { authorization: `Bearer ${TOKEN_A}` })).status).toBe(200);
    writeFileSync(file, `${TOKEN_C}\n`);
    p.kill('SIGHUP');
    await vi.waitFor(() => expect(stderr()).toMatch(/1 token in force/), { timeout: 5_000 });
    expect((await initialize(url, { authorization: `Bearer ${TOKEN_A}` })).status).toBe(401);
    expect((await initialize(url, { authorization: `Bearer ${TOKEN_C}` })).status).toBe(200);
    writeFileSync(file, 'too-short\n');
    p.kill('SIGHUP');
    await vi.waitFor(() => expect(stderr()).toMatch(/not re-read.*line 1|token 1 is shorter/), { timeout: 5_000 });
    expect((await initialize(url, { authorization: `Bearer ${TOKEN_C}` })).status).toBe(200);
    expect(stderr()).not.toContain('too-short');
    writeFileSync(file, '# emptied by mistake\n');
    p.kill('SIGHUP');
    await vi.waitFor(() => expect(stderr()).toMatch(/holds no token/), { timeout: 5_000 });
    expect((await initialize(url, { authorization: `Bearer ${TOKEN_C}` })).status).toBe(200);
    expect(p.exitCode).toBe(null);
  });

  it('limits requests per second and sessions per credential with 429 and Retry-After', async () => {
    const up = await upstream();
    const { url } = await proxy([
      '--upstream',
      up.url,
      '--auth-token-file',
      tokenFile(`${TOKEN_A}\n${TOKEN_B}\n`),
      '--rate',
      '3',
      '--max-sessions-per-client',
      '1',
    ]);
    const first = await initialize(url, { authorization: `Bearer ${TOKEN_A}` });
    expect(first.status).toBe(200);
    await first.text();
    const second = await initialize(url, { authorization: `Bearer ${TOKEN_A}` });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another credential has its own count and its own bucket.
    expect((await initialize(url, { authorization: `Bearer ${TOKEN_B}` })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await initialize(url, { authorization: `Bearer ${TOKEN_A}` })).status);
    expect(statuses).toContain(429);
    const limited = await initialize(url, { authorization: `Bearer ${TOKEN_A}` });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('serve with bearer tokens', () => {
  const CHILD = ['node', 'test/fixtures/env-child.mjs'];
  const serve = (args: string[], env: Record<string, string> = {}) => listening(['serve', '--port', '0', ...args, '--', ...CHILD], env);

  it('binds sessions: another valid token cannot use one, and no child hears it', async () => {
    const { url } = await serve(['--auth-token-file', tokenFile(`${TOKEN_A}\n${TOKEN_B}\n`), '--max-sessions-per-client', '1']);
    const a = await initialize(url, { authorization: `Bearer ${TOKEN_A}` });
    expect(a.status).toBe(200);
    const session = a.headers.get('mcp-session-id')!;
    await a.text();
    const hijack = await fetch(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', authorization: `Bearer ${TOKEN_B}`, 'mcp-session-id': session },
    });
    expect(hijack.status).toBe(404);
    expect((await initialize(url, { authorization: `Bearer ${TOKEN_A}` })).status).toBe(429);
    const del = await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN_A}`, 'mcp-session-id': session } });
    expect(del.status).toBe(200);
    expect((await initialize(url, { authorization: `Bearer ${TOKEN_A}` })).status).toBe(200);
  });
});

describe('the safe default', () => {
  const proxy = (args: string[]) => ['proxy', '--upstream', 'http://127.0.0.1:9/mcp', '--port', '0', ...args];

  it('refuses what cannot be a safe configuration, never echoing a token', () => {
    const cases: [string[], RegExp][] = [
      [['--auth-token-file', tokenFile('short-secret\n')], /token 1 is shorter than 16/],
      [['--auth-token-file', tokenFile(`${TOKEN_A} ${TOKEN_B}\n`)], /line 1: one token per line/],
      [['--auth-token-file', tokenFile(`${TOKEN_A}\nbad"token-with-quote\n`)], /token 2 is not a bearer token/],
      [['--auth-token-file', join(dir, 'missing')], /cannot read it \(ENOENT\)/],
      [['--auth-token-file', tokenFile('\n# none\n')], /no bearer tokens/],
      [['--no-auth', '--auth-token-file', tokenFile(`${TOKEN_A}\n`)], /--no-auth contradicts/],
      [['--rate', '5'], /need authentication/],
      [['--oauth-issuer', 'http://127.0.0.1:9'], /needs --oauth-audience/],
      [['--oauth-audience', 'x'], /need --oauth-issuer/],
      [['--upstream-header', 'no colon'], /--upstream-header 1 must be/],
      // (a value no request could carry: refused at start, its name given, never its value)
      [
        ['--upstream-header', 'X-Ok: fine', '--upstream-header', 'X-Key: short-secret\x01'],
        /--upstream-header 2 \(X-Key\): its value holds/,
      ],
      [['--upstream-header', 'X-Key: short-secret\r\nx-more: 1'], /--upstream-header 1 \(X-Key\): its value holds/],
    ];
    // (refused before anything starts: the first as a process of its own, the rest decided in one)
    const ran = cliRunsOnce(cases.map(([args]) => proxy(args)));
    for (const [k, [args, why]] of cases.entries()) {
      const r = ran(k);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).not.toMatch(/short-secret|tokenA|tokenB|bad"token/);
    }
  });
});
