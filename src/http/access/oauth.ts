// An OAuth 2.1 resource server, as the MCP authorization spec asks of an HTTP server: access
// tokens are JWTs checked against the authorization server's published keys (found from its
// metadata, RFC 8414 or OpenID discovery; cached, fetched again for an unknown key id, by jose),
// for signature, issuer, audience, time (with a small skew) and required scopes. The protected
// resource metadata (RFC 9728) is served to anyone, and a 401 points to it.
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { type Authorize, bearerCredential, jsonResponse, type Principal, refusal } from './principal.js';

export interface OAuthResourceOptions {
  /** The authorization server's issuer identifier (its metadata must say the same). */
  issuer: string;
  /**
   * Accepted `aud` values: this resource's identifier (a token for another resource is refused).
   * `resource`, when given, is accepted too (RFC 8707: the SDK asks for tokens for it).
   */
  audience: string | readonly string[];
  /** Scopes a token must grant; a token without them gets 403 insufficient_scope. */
  scopes?: readonly string[];
  /** This resource's URL, as clients reach it; default: the request's Host and the endpoint path. */
  resource?: string;
  /** The MCP endpoint's path (the metadata is also served under it); default '/mcp'. */
  endpointPath?: string;
  /** Leeway for `exp`, `nbf` and `iat`, in seconds; default 60. */
  clockToleranceSeconds?: number;
  /** Told why a token was refused (never the token) and when discovery fails. */
  onLog?: (line: string) => void;
  /**
   * Least time between two fetches of the key set for a key id it does not hold (a rotation, or
   * a token made up to make us fetch); default 30 s.
   */
  keyRefreshCooldownMs?: number;
  /** The fetch used for discovery; default globalThis.fetch. */
  fetch?: typeof fetch;
  /** How long one metadata fetch may take; default 10 s. */
  discoveryTimeoutMs?: number;
  /**
   * After discovery fails, how long requests are answered 503 without trying again (so that
   * every request, a made-up token's too, cannot make this server fetch); default 5 s.
   */
  discoveryRetryMs?: number;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
/** Asymmetric algorithms only: a key set never verifies an HMAC made with a public key. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** The metadata URLs to try for `issuer`: RFC 8414 (path after the well-known part), then OpenID. */
function discoveryUrls(issuer: URL): URL[] {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

const scopesOf = (payload: JWTPayload): string[] => {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
};

const quoted = (s: string) => `"${s.replace(/["\\]/g, '')}"`;

export function oauthResource(options: OAuthResourceOptions): Authorize {
  const issuer = new URL(options.issuer);
  const audience = typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  if (!audience.length) throw new TypeError('oauthResource: audience is required (the identifier tokens must be issued for)');
  // The resource's own URL is an audience only when configured: one made from the Host header
  // would let a client name any audience it likes where every Host is allowed.
  if (options.resource) audience.push(options.resource);
  const scopes = options.scopes ?? [];
  const endpointPath = options.endpointPath ?? '/mcp';
  const log = (line: string) => options.onLog?.(line);
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  const timeoutMs = options.discoveryTimeoutMs ?? 10_000;
  const retryMs = options.discoveryRetryMs ?? 5_000;
  // The key set, from the issuer's metadata; found once, again after a failure (not before
  // retryMs: until then the failure is the answer, without a fetch).
  let keys: Promise<JWTVerifyGetKey> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  const keySet = (): Promise<JWTVerifyGetKey> => {
    if (!keys && performance.now() - failedAt < retryMs) return Promise.reject(new Error(`discovery failed less than ${retryMs} ms ago`));
    keys ??= (async () => {
      const jose = await import('jose');
      for (const url of discoveryUrls(issuer)) {
        // (one deadline for the answer and its body: a server that never ends it is given up on)
        const signal = AbortSignal.timeout(timeoutMs);
        const res = await fetchFn(url, { headers: { accept: 'application/json' }, signal }).catch(() => undefined);
        if (!res?.ok) {
          await res?.body?.cancel().catch(() => {});
          continue;
        }
        const meta = (await res.json().catch(() => ({}))) as { issuer?: unknown; jwks_uri?: unknown };
        // RFC 8414 3.3: metadata that names another issuer is not this issuer's.
        if (meta.issuer !== options.issuer || typeof meta.jwks_uri !== 'string') continue;
        // An https issuer's keys come over https only (metadata redirected to http: included):
        // keys fetched in clear let whoever is on the path sign tokens.
        const jwksUri = URL.canParse(meta.jwks_uri) ? new URL(meta.jwks_uri) : undefined;
        const clear = (u: string | URL | undefined) => !!u && new URL(u).protocol !== 'https:';
        if (!jwksUri || (issuer.protocol === 'https:' && (clear(jwksUri) || clear(res.url || undefined)))) {
          log(`oauth: the metadata at ${url.origin} names no https key set for an https issuer`);
          continue;
        }
        return jose.createRemoteJWKSet(jwksUri, {
          cooldownDuration: options.keyRefreshCooldownMs ?? 30_000,
          [jose.customFetch]: fetchFn,
        } as never);
      }
      throw new Error(`no authorization server metadata with a jwks_uri for issuer ${issuer.origin}`);
    })();
    keys.catch(() => {
      keys = undefined;
      failedAt = performance.now();
    });
    return keys;
  };

  const resourceOf = (request: Request): string => {
    if (options.resource) return options.resource;
    const url = new URL(request.url);
    return `${url.protocol}//${request.headers.get('host') ?? url.host}${endpointPath}`;
  };
  const metadataUrl = (request: Request) => {
    const r = new URL(resourceOf(request));
    return `${r.origin}${WELL_KNOWN}${r.pathname === '/' ? '' : r.pathname}`;
  };
  const challenge = (request: Request, error?: string) =>
    [
      `Bearer resource_metadata=${quoted(metadataUrl(request))}`,
      ...(error ? [`error=${quoted(error)}`] : []),
      ...(scopes.length ? [`scope=${quoted(scopes.join(' '))}`] : []),
    ].join(', ');

  return async (request): Promise<Principal | Response> => {
    const url = new URL(request.url);
    if (url.pathname === WELL_KNOWN || url.pathname.startsWith(`${WELL_KNOWN}/`)) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return refusal(405, 'Method not allowed', { allow: 'GET, HEAD' });
      return jsonResponse(
        200,
        {
          resource: resourceOf(request),
          authorization_servers: [options.issuer],
          bearer_methods_supported: ['header'],
          ...(scopes.length ? { scopes_supported: scopes } : {}),
        },
        { 'cache-control': 'max-age=3600' },
      );
    }
    const token = bearerCredential(request);
    if (token === undefined) return refusal(401, 'Unauthorized: a bearer token is required', { 'www-authenticate': challenge(request) });
    let payload: JWTPayload;
    try {
      const jose = await import('jose');
      const key = await keySet();
      ({ payload } = await jose.jwtVerify(token, key, {
        issuer: options.issuer,
        audience,
        clockTolerance: options.clockToleranceSeconds ?? 60,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
      }));
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('ERR_J')) {
        // Discovery or key fetch failed: the server's trouble, not the client's token.
        log(`oauth: cannot check tokens now: ${(e as Error).message}`);
        return refusal(503, 'Service unavailable: the authorization server cannot be reached', { 'retry-after': '5' });
      }
      log(`oauth: token refused (${code})`);
      return refusal(401, 'Unauthorized: invalid token', { 'www-authenticate': challenge(request, 'invalid_token') });
    }
    // A token with no sub (client credentials at some servers) is its client's: a name of
    // another kind, so that a client_id can never be taken for a user whose sub is the same.
    const subject =
      typeof payload.sub === 'string'
        ? `oauth:${payload.sub}`
        : typeof payload.client_id === 'string'
          ? `oauth-client:${payload.client_id}`
          : undefined;
    if (subject === undefined) {
      log('oauth: token refused (no sub or client_id to bind sessions to)');
      return refusal(401, 'Unauthorized: invalid token', { 'www-authenticate': challenge(request, 'invalid_token') });
    }
    const granted = scopesOf(payload);
    const missing = scopes.filter((s) => !granted.includes(s));
    if (missing.length) {
      log(`oauth: token refused (missing ${missing.length} required scope${missing.length > 1 ? 's' : ''})`);
      return refusal(403, 'Forbidden: insufficient scope', { 'www-authenticate': challenge(request, 'insufficient_scope') });
    }
    return { id: subject, scopes: granted };
  };
}
