// `serve` and `proxy` as OAuth 2.1 resource servers, with the same lines for both: the real SDK
// client's OAuth flows (client credentials; authorization code with PKCE) end to end against an
// authorization server made at test time (keys
// generated here), the RFC 9728 metadata at both places the SDK looks, the exact RFC 6750
// challenges, the JWTs a hostile client makes up (refused before the server sees anything), a
// flood of unknown key ids costing one key fetch at most, and sessions bound to the subject.
import { createHmac } from 'node:crypto';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type Behind, behind, COMMANDS, type Command, sdkClient, TOOL_OF } from './access-commands.ts';
import { type AuthServer, CLIENT, PUBLIC_CLIENT, startAuthServer } from './fixtures/auth-server.ts';
import type { Closer } from './http-cli-helpers.ts';
import { postInitialize, TIMEOUT, textOf } from './http-helpers.ts';

vi.setConfig({ testTimeout: 30_000 });

const AUDIENCE = 'urn:test:mcp';
const SCOPE = 'mcp:tools';
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function resourceServer(command: Command, close: Closer): Promise<{ run: Behind; as: AuthServer }> {
  const as = await startAuthServer({ audience: AUDIENCE, scope: SCOPE });
  close(() => as.close());
  const run = await behind(command, ['--oauth-issuer', as.issuer, '--oauth-audience', AUDIENCE, '--oauth-scope', SCOPE], {}, close);
  return { run, as };
}

/** The challenge RFC 6750 and RFC 9728 ask for, written out by hand. */
const challenge = (url: string, error?: string) =>
  [
    `Bearer resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource/mcp"`,
    ...(error ? [`error="${error}"`] : []),
    `scope="${SCOPE}"`,
  ].join(', ');

for (const command of COMMANDS)
  describe(`${command} as an OAuth resource server`, () => {
    // One resource server (and authorization server) for the cases below, started by the first:
    // they start it with the same flags, and each reads what it changed (counts, what reached
    // the server) as a difference. Those that show nothing reached the server come first, before
    // any session, and read it from zero. (A process a case each cost 12 starts of the CLI.)
    const closes: (() => unknown)[] = [];
    let started: Promise<{ run: Behind; as: AuthServer }> | undefined;
    const resourceServerOf = () => (started ??= resourceServer(command, (c) => void closes.push(c)));
    afterAll(async () => {
      for (const c of closes.reverse()) await c();
    });

    it('serves RFC 9728 metadata at both places; 401 and 403 carry the exact challenges', async () => {
      const { run, as } = await resourceServerOf();
      const origin = new URL(run.url).origin;
      for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
        const r = await fetch(`${origin}${path}`);
        expect(r.status).toBe(200);
        expect(await r.json()).toEqual({
          resource: run.url,
          authorization_servers: [as.issuer],
          bearer_methods_supported: ['header'],
          scopes_supported: [SCOPE],
        });
      }
      expect((await fetch(`${origin}/.well-known/oauth-protected-resource`, { method: 'POST', body: '{}' })).status).toBe(405);
      const none = await postInitialize(run.url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe(challenge(run.url));
      const wrong = await postInitialize(run.url, bearer(await as.mint({ aud: 'urn:another:resource' })));
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toBe(challenge(run.url, 'invalid_token'));
      const scopeless = await postInitialize(run.url, bearer(await as.mint({ scope: 'other' })));
      expect(scopeless.status).toBe(403);
      expect(scopeless.headers.get('www-authenticate')).toBe(challenge(run.url, 'insufficient_scope'));
      expect(run.reached()).toBe(0);
    });

    it('refuses made-up, expired, early, foreign and misdirected JWTs before the server sees any; honours the skew', async () => {
      const { run, as } = await resourceServerOf();
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: as.issuer, aud: AUDIENCE, sub: 'mallory', scope: SCOPE, exp: now + 300 };
      const jwks = (await (await fetch(`${as.issuer}/jwks`)).json()) as { keys: object[] };
      const hsInput = `${b64({ alg: 'HS256', kid: 'k1' })}.${b64(claims)}`;
      const refused: [string, string][] = [
        ['alg none', `${b64({ alg: 'none' })}.${b64(claims)}.`],
        [
          'HS256 keyed with the public key',
          `${hsInput}.${createHmac('sha256', JSON.stringify(jwks.keys[0])).update(hsInput).digest('base64url')}`,
        ],
        ['a kid not in the set', await as.mint({}, { key: 'stranger', kid: 'k-unknown' })],
        ['the right kid, another key', await as.mint({}, { key: 'stranger' })],
        ['another issuer', await as.mint({ iss: 'https://issuer.example' })],
        ['another audience', await as.mint({ aud: 'urn:another:resource' })],
        ['audiences, none ours', await as.mint({ aud: ['urn:a', 'urn:b'] })],
        [`a token for the resource behind (${command})`, await as.mint({ aud: run.upstream ?? `${run.url}/child` })],
        ['expired past the skew', await as.mint({}, { expiresIn: -120 })],
        ['not yet valid past the skew', await as.mint({ nbf: now + 120 })],
        ['no exp', `${b64({ alg: 'ES256', kid: 'k1' })}.${b64({ ...claims, exp: undefined })}.AAAA`],
      ];
      for (const [what, token] of refused) {
        const r = await postInitialize(run.url, bearer(token));
        expect(r.status, what).toBe(401);
        expect(r.headers.get('www-authenticate'), what).toBe(challenge(run.url, 'invalid_token'));
      }
      expect(run.reached()).toBe(0);
      // Within the skew (60 s), or ours among several audiences: let in. (A GET without a
      // session: past the access layer, it is answered at once without starting anything.)
      for (const token of [
        await as.mint({}, { expiresIn: -30 }),
        await as.mint({ nbf: now + 30 }),
        await as.mint({ aud: ['urn:a', AUDIENCE] }),
      ]) {
        const r = await fetch(run.url, { headers: { ...bearer(token), accept: 'text/event-stream' } });
        await r.body?.cancel();
        expect([401, 403]).not.toContain(r.status);
      }
    });

    it('a flood of unknown key ids: all refused, the key set fetched once at most', async () => {
      const { run, as } = await resourceServerOf();
      const reached = run.reached(); // (proxy: the GETs let in before reached the server)
      expect((await postInitialize(run.url, bearer(await as.mint({ scope: 'other' })))).status).toBe(403); // (the keys, fetched)
      const fetched = as.counts.jwks;
      const flood = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const r = await postInitialize(run.url, bearer(await as.mint({}, { key: 'stranger', kid: `k-${i}` })));
          await r.body?.cancel();
          return r.status;
        }),
      );
      expect(new Set(flood)).toEqual(new Set([401]));
      expect(as.counts.jwks - fetched).toBeLessThanOrEqual(1);
      expect(run.reached()).toBe(reached);
    });

    it("binds sessions to the token's subject: another subject's valid token gets 404, the owner goes on", async () => {
      const { run, as } = await resourceServerOf();
      const alice = await sdkClient(run.url, await as.mint({ sub: 'alice' }));
      const session = (alice as unknown as { transport: { sessionId?: string } }).transport.sessionId!;
      await run.settled();
      const before = run.reached();
      const hijack = await fetch(run.url, {
        method: 'POST',
        headers: {
          ...bearer(await as.mint({ sub: 'mallory' })),
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: TOOL_OF[command] }),
      });
      expect(hijack.status).toBe(404);
      expect(await hijack.text()).not.toContain(session.slice(0, session.indexOf('.')));
      expect(run.reached()).toBe(before);
      expect(textOf(await alice.callTool(TOOL_OF[command], undefined, TIMEOUT))).toBeTruthy();
    });

    it("the SDK client's OAuth flow works end to end; no JWT reaches a log or the server", async () => {
      const { run, as } = await resourceServerOf();
      const tokens = as.counts.tokens;
      const provider = new ClientCredentialsProvider({
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
        scope: SCOPE,
        expectedIssuer: as.issuer,
      });
      const client = await sdkClient(run.url, { authProvider: provider });
      expect((await client.listTools(undefined, TIMEOUT)).tools.map((t) => t.name)).toContain(TOOL_OF[command].name);
      expect(textOf(await client.callTool(TOOL_OF[command], undefined, TIMEOUT))).toBeTruthy();
      expect(as.counts.tokens - tokens).toBe(1);
      expect(run.stderr()).not.toMatch(/eyJ/);
      expect(run.received()).not.toMatch(/eyJ/);
    });

    it("the SDK client's authorization code flow (PKCE) works end to end, asking for this resource", async () => {
      const { run, as } = await resourceServerOf();
      const [tokenCount, resourceCount] = [as.counts.tokens, as.resources.length];
      let verifier = '';
      let tokens: OAuthTokens | undefined;
      let code: string | null = null;
      const provider: OAuthClientProvider = {
        redirectUrl: PUBLIC_CLIENT.redirect,
        clientMetadata: {
          redirect_uris: [PUBLIC_CLIENT.redirect],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
        clientInformation: () => ({ client_id: PUBLIC_CLIENT.id }),
        tokens: () => tokens,
        saveTokens: (t) => {
          tokens = t;
        },
        // (the user's browser: the server approves at once and sends it back with a code)
        redirectToAuthorization: async (url) => {
          const r = await fetch(url, { redirect: 'manual' });
          code = new URL(r.headers.get('location')!).searchParams.get('code');
        },
        saveCodeVerifier: (v) => {
          verifier = v;
        },
        codeVerifier: () => verifier,
      };
      const first = new StreamableHTTPClientTransport(new URL(run.url), { authProvider: provider });
      await expect(new Client({ name: 'host', version: '1.0.0' }).connect(first, TIMEOUT)).rejects.toThrow(UnauthorizedError);
      expect(code).toBeTruthy();
      await first.finishAuth(code!);
      const client = await sdkClient(run.url, { authProvider: provider });
      expect(textOf(await client.callTool(TOOL_OF[command], undefined, TIMEOUT))).toBeTruthy();
      // RFC 8707: the authorization and the exchange both named this server, from its metadata.
      expect(as.resources.slice(resourceCount)).toEqual([run.url, run.url]);
      expect(as.counts.tokens - tokenCount).toBe(1);
      expect(run.stderr()).not.toMatch(/eyJ/);
      expect(run.received()).not.toMatch(/eyJ/);
    });
  });
