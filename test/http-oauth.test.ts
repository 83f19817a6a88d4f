// `proxy` as an OAuth 2.1 resource server, beyond what test/http-oauth-commands.test.ts shows on
// both commands: more refused tokens (no sub, a tampered signature, no scope), a fresh token of
// the same subject keeping its session, key rotation through createFilteringProxy, and which
// audiences count (the given id, the configured resource URL, never one made from Host).
import { describe, expect, it, vi } from 'vitest';
import { listen } from '../src/cli/node-http.js';
import { createFilteringProxy, oauthResource } from '../src/http/index.js';
import { type AuthServer, startAuthServer } from './fixtures/auth-server.ts';
import { startUpstream, type Upstream } from './fixtures/http-upstream.js';
import { cleanup, listening } from './http-cli-helpers.ts';
import { RAW_INITIALIZE_PARAMS } from './http-helpers.ts';

vi.setConfig({ testTimeout: 30_000 });

const AUDIENCE = 'urn:test:mcp';
const SCOPE = 'mcp:tools';

async function setup(): Promise<{ up: Upstream; as: AuthServer }> {
  const up = await startUpstream('stateful');
  cleanup.push(() => up.close());
  const as = await startAuthServer({ audience: AUDIENCE, scope: SCOPE });
  cleanup.push(() => as.close());
  return { up, as };
}

const proxy = (args: string[]) => listening(['proxy', '--port', '0', ...args]);

const oauthArgs = (up: Upstream, as: AuthServer) => [
  '--upstream',
  up.url,
  '--oauth-issuer',
  as.issuer,
  '--oauth-audience',
  AUDIENCE,
  '--oauth-scope',
  SCOPE,
];

const initialize = (url: string, token?: string, session?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(
      session
        ? { jsonrpc: '2.0', id: 2, method: 'tools/list' }
        : {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: RAW_INITIALIZE_PARAMS,
          },
    ),
  });

describe('proxy as an OAuth resource server', () => {
  it('refuses tokens meant for someone else, expired, forged or without the scope; the upstream sees none', async () => {
    const { up, as } = await setup();
    const { url, stderr } = await proxy(oauthArgs(up, as));
    const refused: [string, number, string][] = [
      [await as.mint({ aud: 'urn:another:resource' }), 401, 'invalid_token'],
      [await as.mint({ iss: 'http://127.0.0.1:1' }), 401, 'invalid_token'],
      [await as.mint({}, { expiresIn: -600 }), 401, 'invalid_token'],
      [await as.mint({}, { key: 'stranger' }), 401, 'invalid_token'],
      [await as.mint({ nbf: Math.floor(Date.now() / 1000) + 3600 }), 401, 'invalid_token'],
      [await as.mint({ sub: undefined }), 401, 'invalid_token'],
      [`${(await as.mint({})).slice(0, -4)}AAAA`, 401, 'invalid_token'],
      [await as.mint({ scope: 'other' }), 403, 'insufficient_scope'],
      [await as.mint({ scope: undefined }), 403, 'insufficient_scope'],
    ];
    for (const [token, status, error] of refused) {
      const r = await initialize(url, token);
      expect(r.status).toBe(status);
      expect(r.headers.get('www-authenticate')).toContain(`error="${error}"`);
    }
    // Within the skew: still good.
    expect((await initialize(url, await as.mint({}, { expiresIn: -10 }))).status).toBe(200);
    expect((await initialize(url, await as.mint({ scope: `other ${SCOPE}` }))).status).toBe(200);
    expect(up.hits.length).toBe(2);
    expect(stderr()).not.toMatch(/eyJ/);
  });

  it("binds sessions to the token's subject: another valid subject gets 404", async () => {
    const { up, as } = await setup();
    const { url } = await proxy(oauthArgs(up, as));
    const mine = await initialize(url, await as.mint({ sub: 'alice' }));
    const session = mine.headers.get('mcp-session-id')!;
    await mine.text();
    const hits = up.hits.length;
    expect((await initialize(url, await as.mint({ sub: 'mallory' }), session)).status).toBe(404);
    expect(up.hits.length).toBe(hits);
    const again = await initialize(url, await as.mint({ sub: 'alice' }), session); // (a fresh token, the same subject)
    expect(again.status).toBe(200);
    await again.text();
  });

  it('fetches the keys again for an unknown key id (rotation), at most once per cooldown', async () => {
    const { up, as } = await setup();
    const handler = createFilteringProxy({
      upstream: up.url,
      authorize: oauthResource({ issuer: as.issuer, audience: AUDIENCE, keyRefreshCooldownMs: 0 }),
    });
    const { server, url: origin } = await listen(handler, '127.0.0.1', 0, () => {});
    cleanup.push(async () => {
      server.closeAllConnections();
      server.close();
    });
    const url = `${origin}/mcp`;
    expect((await initialize(url, await as.mint({}))).status).toBe(200);
    await as.rotate();
    expect((await initialize(url, await as.mint({}))).status).toBe(200);
    expect(as.counts.jwks).toBe(2);
  });
});

describe("the token's audience: the given id, or the resource's own URL when it is given", () => {
  it('accepts aud = --oauth-resource; never a URL named by the Host header, even with every Host allowed', async () => {
    const as = await startAuthServer({ audience: AUDIENCE, scope: SCOPE });
    cleanup.push(() => as.close());
    const RESOURCE = 'https://mcp.example.com/mcp';
    const check = async (options: { resource?: string }, aud: string, host = 'mcp.example.com') => {
      const authorize = oauthResource({ issuer: as.issuer, audience: AUDIENCE, ...options });
      const r = await authorize(
        new Request(`http://${host}/mcp`, { method: 'POST', headers: { host, authorization: `Bearer ${await as.mint({ aud })}` } }),
      );
      return r instanceof Response ? r.status : 200;
    };
    expect(await check({ resource: RESOURCE }, RESOURCE)).toBe(200);
    expect(await check({ resource: RESOURCE }, AUDIENCE)).toBe(200);
    expect(await check({ resource: RESOURCE }, 'https://other.example/mcp')).toBe(401);
    // Without --oauth-resource the URL comes from Host, which the client chooses: not an audience.
    expect(await check({}, RESOURCE)).toBe(401);
    expect(await check({}, 'https://other.example/mcp', 'other.example')).toBe(401);
  });
});
