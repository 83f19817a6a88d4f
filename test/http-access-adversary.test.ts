// The access layer attacked the way a hostile client would. Each test here failed before its fix.
import { request as httpRequest } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { bearerTokens, withAccess } from '../src/http/access/index.js';
import { RateLimiter, SessionCounter } from '../src/http/access/limits.js';
import { createFilteringProxy, oauthResource } from '../src/http/index.js';
import { startAuthServer } from './fixtures/auth-server.ts';
import { listening } from './http-cli-helpers.ts';
import { postInitialize } from './http-helpers.ts';

vi.setConfig({ testTimeout: 30_000 });

const TOKEN_A = 'tokenA-0123456789abcdef';
const TOKEN_B = 'tokenB-0123456789abcdef';

const post = (url: string, headers: Record<string, string> = {}) =>
  new Request(url, {
    method: 'POST',
    headers: { host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

describe('proxy paths never leave the upstream origin', () => {
  for (const path of ['//evil.example/steal', '/.//evil.example/steal', '//evil.example:8443/x?y=1']) {
    it(`${path} goes to the upstream's host, with the upstream header`, async () => {
      const seen: URL[] = [];
      const handler = createFilteringProxy({
        upstream: 'https://upstream.example/mcp',
        upstreamHeaders: { authorization: 'Bearer upstream-secret' },
        fetch: async (input) => {
          seen.push(new URL(input instanceof Request ? input.url : input));
          return new Response('{}', { status: 404, headers: { 'content-type': 'application/json' } });
        },
      });
      await handler(post(`http://localhost${path}`));
      expect(seen[0]?.pathname).toBe(new URL(`http://localhost${path}`).pathname);
      expect(seen.length).toBe(1);
      expect(seen[0]!.host).toBe('upstream.example');
    });
  }
});

describe('sessions per credential', () => {
  it('holds under concurrent initializations (no more sessions than the limit)', async () => {
    let n = 0;
    const handler = async () => {
      await new Promise((r) => setTimeout(r, 20));
      return new Response('{}', { status: 200, headers: { 'mcp-session-id': `s${++n}` } });
    };
    const tokens = await bearerTokens([TOKEN_A]);
    const access = withAccess(handler, { authorize: tokens.authorize, maxSessionsPerClient: 1 });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => access(post('http://localhost/mcp', { authorization: `Bearer ${TOKEN_A}` }))),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 429, 429, 429, 429]);
    expect(n).toBe(1);
  });

  it('a slot taken by a refused initialization is given back', async () => {
    let ok = false;
    const handler = async () =>
      ok ? new Response('{}', { status: 200, headers: { 'mcp-session-id': 'sX' } }) : new Response('{}', { status: 400 });
    const tokens = await bearerTokens([TOKEN_A]);
    const access = withAccess(handler, { authorize: tokens.authorize, maxSessionsPerClient: 1 });
    expect((await access(post('http://localhost/mcp', { authorization: `Bearer ${TOKEN_A}` }))).status).toBe(400);
    ok = true;
    expect((await access(post('http://localhost/mcp', { authorization: `Bearer ${TOKEN_A}` }))).status).toBe(200);
  });

  it('a Connection header cannot take the session id off the request the server sees', async () => {
    const seen: (string | null)[] = [];
    const hosts: (string | null)[] = [];
    let n = 0;
    const handler = async (request: Request) => {
      seen.push(request.headers.get('connection'));
      hosts.push(request.headers.get('host'));
      return new Response('{}', { status: 200, headers: { 'mcp-session-id': request.headers.get('mcp-session-id') ?? `s${++n}` } });
    };
    const tokens = await bearerTokens([TOKEN_A]);
    const access = withAccess(handler, { authorize: tokens.authorize, maxSessionsPerClient: 1 });
    const first = await access(post('http://localhost/mcp', { authorization: `Bearer ${TOKEN_A}` }));
    const session = first.headers.get('mcp-session-id')!;
    await access(
      post('http://localhost/mcp', { authorization: `Bearer ${TOKEN_A}`, 'mcp-session-id': session, connection: 'mcp-session-id' }),
    );
    expect(seen[1]).toBeNull();
    expect(n).toBe(1);
    // (other names stay for the handler, which checks Host and Origin before it drops them)
    await access(
      post('http://localhost/mcp', { authorization: `Bearer ${TOKEN_A}`, 'mcp-session-id': session, connection: 'Mcp-Session-Id, host' }),
    );
    expect(seen[2]).toBe('host');
    expect(hosts[2]).toBe('localhost');
    expect(n).toBe(1);
  });
});

describe('OAuth discovery', () => {
  it('does not fetch the metadata again for every request while the issuer is down', async () => {
    let fetches = 0;
    const authorize = oauthResource({
      issuer: 'https://as.example',
      audience: 'urn:x',
      fetch: async () => {
        fetches++;
        throw new TypeError('fetch failed');
      },
    });
    for (let i = 0; i < 20; i++) {
      const r = await authorize(post('http://localhost/mcp', { authorization: 'Bearer garbage-token-0123456789' }));
      expect((r as Response).status).toBe(503);
    }
    expect(fetches).toBeLessThanOrEqual(2);
  });

  it('gives up on a metadata fetch that never answers', async () => {
    const authorize = oauthResource({
      issuer: 'https://as.example',
      audience: 'urn:x',
      discoveryTimeoutMs: 200,
      fetch: (_input, init) =>
        new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason))),
    });
    const started = Date.now();
    const r = await authorize(post('http://localhost/mcp', { authorization: 'Bearer garbage-token-0123456789' }));
    expect((r as Response).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a token with only a client_id is not the user whose sub is that id', async () => {
    const as = await startAuthServer({ audience: 'urn:x', scope: 's' });
    try {
      const authorize = oauthResource({ issuer: as.issuer, audience: 'urn:x' });
      const user = await authorize(post('http://localhost/mcp', { authorization: `Bearer ${await as.mint({ sub: 'alice' })}` }));
      const client = await authorize(
        post('http://localhost/mcp', { authorization: `Bearer ${await as.mint({ sub: undefined, client_id: 'alice' })}` }),
      );
      expect(user).not.toBeInstanceOf(Response);
      expect(client).not.toBeInstanceOf(Response);
      expect((user as { id: string }).id).not.toBe((client as { id: string }).id);
    } finally {
      await as.close();
    }
  });
});

describe('token rotation', () => {
  it('the last replace wins, even when an earlier one finishes later', async () => {
    const tokens = await bearerTokens([TOKEN_A]);
    // (a long token takes the earlier replace's digest longer than the later one's)
    await Promise.all([tokens.replace(['h'.repeat(20_000_000), TOKEN_A]), tokens.replace([TOKEN_B])]);
    const as = (t: string) => tokens.authorize(post('http://localhost/mcp', { authorization: `Bearer ${t}` }));
    expect(await as(TOKEN_B)).not.toBeInstanceOf(Response);
    expect(await as(TOKEN_A)).toBeInstanceOf(Response);
  });
});

describe('memory under many credentials', () => {
  it('the session count forgets credentials whose sessions went idle, without their coming back', () => {
    let t = 0;
    const counter = new SessionCounter(1, 1_000, () => t);
    for (let i = 0; i < 50_000; i++) {
      counter.seen(`oauth-client:c${i}`, `s${i}`);
      t += 1; // (each session idle 1 s after it was seen: 1000 steps later)
    }
    expect(counter.credentials).toBeLessThan(25_000);
  });
});

describe('Host and Origin before the access layer', () => {
  it('a Host not allowed gets 403, not metadata naming it as the resource', async () => {
    const handler = createFilteringProxy({
      upstream: 'https://upstream.example/mcp',
      authorize: oauthResource({ issuer: 'https://as.example', audience: 'urn:x', fetch: async () => new Response(null, { status: 500 }) }),
      fetch: async () => new Response('{}', { status: 500 }),
    });
    const r = await handler(new Request('http://localhost/.well-known/oauth-protected-resource', { headers: { host: 'evil.example' } }));
    expect(r.status).toBe(403);
    const fromPage = await handler(
      new Request('http://localhost/mcp', { method: 'POST', headers: { host: 'localhost', origin: 'https://evil.example' }, body: '{}' }),
    );
    expect(fromPage.status).toBe(403);
  });
});

describe('serve, end to end', () => {
  const CHILD = ['node', 'test/fixtures/env-child.mjs'];
  const serve = (args: string[]) =>
    listening(['serve', '--port', '0', ...args, '--', ...CHILD], { MCP_PAYLOAD_CODEC_AUTH_TOKENS: TOKEN_A });
  const init = postInitialize;

  it('five initializations at once with --max-sessions-per-client 1 start one child', async () => {
    const { url, stderr } = await serve(['--max-sessions-per-client', '1']);
    const answers = await Promise.all(Array.from({ length: 5 }, () => init(url, { authorization: `Bearer ${TOKEN_A}` })));
    await Promise.all(answers.map((r) => r.body?.cancel()));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 429, 429, 429, 429]);
    expect(stderr().match(/session started/g)?.length).toBe(1);
  });

  it('a Host not allowed gets 403 before the access layer answers', async () => {
    const { url } = await serve([]);
    const u = new URL(url);
    const r = await new Promise<number>((resolve, reject) => {
      // (fetch will not send another Host)
      const req = httpRequest(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(r).toBe(403);
  });
});

describe('JWTs a hostile client makes up (checked: refused already)', () => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  it('alg none, HS256 with the public key, no exp, another issuer, unknown kids: 401, one key fetch', async () => {
    const as = await startAuthServer({ audience: 'urn:x', scope: 's' });
    try {
      const authorize = oauthResource({ issuer: as.issuer, audience: 'urn:x' });
      const status = async (token: string) => {
        const r = await authorize(post('http://localhost/mcp', { authorization: `Bearer ${token}` }));
        return r instanceof Response ? r.status : 200;
      };
      expect(await status(await as.mint({}))).toBe(200);
      const claims = { iss: as.issuer, aud: 'urn:x', sub: 'mallory', exp: Math.floor(Date.now() / 1000) + 300 };
      expect(await status(`${b64({ alg: 'none' })}.${b64(claims)}.`)).toBe(401);
      const jwk = (await (await fetch(`${as.issuer}/jwks`)).json()) as { keys: { x: string }[] };
      const { createHmac } = await import('node:crypto');
      const unsigned = `${b64({ alg: 'HS256', kid: 'k1' })}.${b64(claims)}`;
      const hs = createHmac('sha256', JSON.stringify(jwk.keys[0])).update(unsigned).digest('base64url');
      expect(await status(`${unsigned}.${hs}`)).toBe(401);
      expect(await status(await as.mint({ iss: 'https://other.example' }))).toBe(401);
      expect(await status(await as.mint({ aud: ['urn:other', 'urn:x'] }))).toBe(200);
      const before = as.counts.jwks;
      for (let i = 0; i < 20; i++) expect(await status(`${b64({ alg: 'ES256', kid: `k${i + 100}` })}.${b64(claims)}.AAAA`)).toBe(401);
      expect(as.counts.jwks - before).toBeLessThanOrEqual(1);
    } finally {
      await as.close();
    }
  });

  it('a well-signed token without exp: 401', async () => {
    const { SignJWT, exportJWK, generateKeyPair } = await import('jose');
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] };
    const issuer = 'https://as.example';
    const authorize = oauthResource({
      issuer,
      audience: 'urn:x',
      fetch: async (input) => Response.json(String(input).endsWith('/jwks') ? jwks : { issuer, jwks_uri: `${issuer}/jwks` }),
    });
    const sign = (exp: boolean) => {
      const jwt = new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'ES256', kid: 'k' }).setIssuer(issuer).setAudience('urn:x');
      return (exp ? jwt.setExpirationTime('5m') : jwt).sign(privateKey);
    };
    const status = async (token: string) => {
      const r = await authorize(post('http://localhost/mcp', { authorization: `Bearer ${token}` }));
      return r instanceof Response ? r.status : 200;
    };
    expect(await status(await sign(true))).toBe(200);
    expect(await status(await sign(false))).toBe(401);
  });
});

describe('odd credentials and paths (checked: refused already)', () => {
  it('a second Authorization header, tabs, other schemes, paths around the metadata: 401, nothing passes', async () => {
    const passed: string[] = [];
    const tokens = await bearerTokens([TOKEN_A]);
    const handler = withAccess(
      async (r) => {
        passed.push(`${r.method} ${new URL(r.url).pathname}`);
        return new Response('ok');
      },
      { authorize: tokens.authorize },
    );
    const { server, url } = await listen(handler, '127.0.0.1', 0, () => {});
    try {
      const u = new URL(url);
      const raw = (method: string, path: string, headers: Record<string, string | string[]>) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await raw('POST', '/mcp', { authorization: [`Bearer ${TOKEN_A}`, 'Bearer nope-0123456789abcdef'] })).toBe(401);
      expect(await raw('POST', '/mcp', { authorization: [`Bearer ${TOKEN_A}`, `Bearer ${TOKEN_A}`] })).toBe(401);
      expect(await raw('POST', '/mcp', { authorization: `Bearer\t${TOKEN_A}` })).toBe(401);
      expect(await raw('POST', '/mcp', { authorization: `Basic ${TOKEN_A}` })).toBe(401);
      expect(await raw('POST', '/mcp', { authorization: `Bearer ${TOKEN_A.slice(0, -1)}` })).toBe(401);
      expect(await raw('POST', '/mcp', { authorization: `Bearer ${TOKEN_A}x` })).toBe(401);
      for (const method of ['GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT', 'PATCH']) expect(await raw(method, '/mcp', {})).toBe(401);
      expect(await raw('TRACE', '/mcp', {})).toBe(400); // (no Request can have it: refused before any handler)
      for (const path of [
        '/.well-known/oauth-protected-resource/../mcp',
        '/.well-known/oauth-protected-resource/%2e%2e/mcp',
        '/.well-known/oauth-protected-resource%2f..%2fmcp',
        '//mcp',
        '/mcp?x=/.well-known/oauth-protected-resource',
      ])
        expect(await raw('POST', path, {})).toBe(401);
      expect(passed).toEqual([]);
      expect(await raw('POST', '/mcp', { authorization: `bearer   ${TOKEN_A}` })).toBe(200);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('OAuth keys in clear', () => {
  it("an https issuer's metadata naming an http jwks_uri is not used", async () => {
    const fetched: string[] = [];
    const issuer = 'https://as.example';
    const authorize = oauthResource({
      issuer,
      audience: 'urn:x',
      fetch: async (input) => {
        fetched.push(String(input));
        return Response.json(String(input).endsWith('/jwks') ? { keys: [] } : { issuer, jwks_uri: 'http://as.example/jwks' });
      },
    });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const token = `${b64({ alg: 'ES256', kid: 'k' })}.${b64({ iss: issuer, aud: 'urn:x', sub: 'u', exp: 2e9 })}.AAAA`;
    const r = await authorize(post('http://localhost/mcp', { authorization: `Bearer ${token}` }));
    expect((r as Response).status).toBe(503);
    expect(fetched.filter((u) => u.endsWith('/jwks'))).toEqual([]);
  });
});

describe('rate limit under many credentials', () => {
  it('does not sweep every bucket on every request once over 10 000 credentials', () => {
    const limiter = new RateLimiter(10, () => 0); // (a frozen clock: no bucket fills up again)
    const sweep = vi.spyOn(limiter as unknown as { forgetFull: (t: number) => void }, 'forgetFull');
    for (let i = 0; i < 30_000; i++) limiter.take(`c${i}`);
    expect(sweep.mock.calls.length).toBeLessThan(10);
  });
});

describe('an authorize hook that answers nothing usable', () => {
  for (const [what, answer] of [
    ['{ id: undefined }', { id: undefined }],
    ['{ id: "" }', { id: '' }],
    ['{}', {}],
    ['null', null],
    ['a Response of another fetch implementation', { status: 401, headers: new Headers(), body: null }],
  ] as const)
    it(`${what}: nothing reaches the handler`, async () => {
      let reached = 0;
      const access = withAccess(
        async () => {
          reached++;
          return new Response('ok');
        },
        { authorize: () => answer as never },
      );
      const r = await access(post('http://localhost/mcp')).catch(() => new Response(null, { status: 500 }));
      expect(reached).toBe(0);
      expect(r.status).toBeGreaterThanOrEqual(400);
    });
});
