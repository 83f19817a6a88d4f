// The access layer in front of an MCP endpoint (createFilteringProxy, `serve`, `proxy`): who
// the request comes from, whether they may make it now, and which sessions are theirs. It runs
// before anything else reads the request (no body read, no child started, nothing forwarded),
// and takes the credential out of the request once checked, so the handler behind it (an
// upstream, a child) never sees it.

import { refusedUnread, withHeaders } from './body-follows.js';
import { RateLimiter, SessionCounter } from './limits.js';
import { type Authorize, type Principal, refusal } from './principal.js';
import { type SessionBinding, sessionBinding } from './session-binding.js';

export { type BearerTokens, bearerTokens, MIN_TOKEN_LENGTH, tokenProblem } from './bearer.js';
export { type OAuthResourceOptions, oauthResource } from './oauth.js';
export type { Authorize, Principal } from './principal.js';

export interface AccessOptions {
  /** Who the request is from, or the Response to send instead (401, 403, public metadata). */
  authorize: Authorize;
  /** Requests per second per credential (a burst of as many); over it: 429. Default: no limit. */
  ratePerSecond?: number;
  /** Live sessions per credential; a new one over it: 429. Default: no limit. */
  maxSessionsPerClient?: number;
  /** How long an unused session still counts toward that limit; default 30 minutes. */
  sessionIdleMs?: number;
  /** Key for binding session ids to credentials (32+ bytes, shared by instances behind one name); default random. */
  sessionSecret?: Uint8Array;
  /** One line per refusal worth knowing (never a credential). */
  onLog?: (line: string) => void;
}

/** For a handler that holds its sessions itself (serve): what it can tell the access layer. */
export interface LocalSessions {
  /** Whether the server still holds a session (by its own id): one it ended (idle, its child gone) stops counting at once. */
  sessionLive?: (id: string) => boolean;
}

type Handler = (request: Request) => Promise<Response>;

/**
 * Without the credential: the handler behind gets no Authorization header, and the session id
 * checked here, to keep: a Connection header naming Mcp-Session-Id would have a proxy behind drop
 * it, and the server open a session this layer never counted. (Other names stay listed: the
 * handler checks Host and Origin itself, before it drops what the client named.)
 */
function withoutCredential(request: Request, session: string | undefined): Request {
  const headers = new Headers(request.headers);
  const connection = (request.headers.get('connection') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name && name.toLowerCase() !== 'mcp-session-id');
  if (connection.length) headers.set('connection', connection.join(', '));
  else headers.delete('connection');
  headers.delete('authorization');
  if (session !== undefined) headers.set('mcp-session-id', session);
  return new Request(request, { headers });
}

export function withAccess(handler: Handler, options: AccessOptions & LocalSessions): Handler {
  const log = (line: string) => options.onLog?.(line);
  if (options.sessionSecret && options.sessionSecret.length < 32) throw new TypeError('sessionSecret must be at least 32 bytes');
  // (made at the first request: WebCrypto's key import is asynchronous)
  let binding: Promise<SessionBinding> | undefined;
  const bound = () => (binding ??= sessionBinding(options.sessionSecret));
  const rate = options.ratePerSecond ? new RateLimiter(options.ratePerSecond) : undefined;
  const sessions = options.maxSessionsPerClient
    ? new SessionCounter(options.maxSessionsPerClient, options.sessionIdleMs ?? 30 * 60_000, undefined, options.sessionLive)
    : undefined;

  return async (request) => {
    const who = await options.authorize(request);
    if (who instanceof Response) return refusedUnread(request, who);
    // Anything but a Principal with an id (undefined, null, `{ id: user?.id }`, a Response of
    // another fetch implementation) is the authorizer's fault, never a way in.
    if (typeof (who as Principal | null)?.id !== 'string' || !(who as Principal).id) {
      log(`${request.method} refused: the authorizer returned neither a Response nor a principal with an id (500)`);
      return refusedUnread(request, refusal(500, 'Internal error: cannot tell who the request is from'));
    }
    const principal: Principal = who;
    const tooMany = (message: string, seconds: number) => {
      log(`${request.method} refused: ${message} for ${principal.id} (429)`);
      return refusedUnread(
        request,
        refusal(429, `Too many requests: ${message}`, { 'retry-after': String(Math.max(1, Math.ceil(seconds))) }),
      );
    };
    const wait = rate?.take(principal.id) ?? 0;
    if (wait > 0) return tooMany(`over ${options.ratePerSecond} requests per second`, wait);
    const presented = request.headers.get('mcp-session-id');
    let session: string | undefined;
    let release: (() => void) | undefined;
    if (presented !== null) {
      session = await (await bound()).unbind(principal.id, presented);
      if (session === undefined) {
        // Another credential's session, or none: the same answer as for an unknown session.
        log(`${request.method} refused: a session id not issued to ${principal.id} (404)`);
        return refusedUnread(request, refusal(404, 'Session not found'));
      }
      sessions?.seen(principal.id, session);
    } else if (request.method === 'POST' && sessions) {
      // (a place held until the server answers: concurrent initializations count at once)
      release = sessions.reserve(principal.id);
      if (!release) return tooMany(`${sessions.max} sessions open`, 5);
    }
    let response: Response;
    try {
      response = await handler(withoutCredential(request, session));
    } catch (e) {
      release?.();
      throw e;
    }
    const issued = response.headers.get('mcp-session-id');
    if (issued !== null && response.ok) sessions?.seen(principal.id, issued);
    release?.();
    if (session !== undefined && (response.status === 404 || (request.method === 'DELETE' && response.ok)))
      sessions?.ended(principal.id, session);
    if (issued === null) return response;
    // The server's session id goes out bound to this credential.
    const headers = new Headers(response.headers);
    headers.set('mcp-session-id', await (await bound()).bind(principal.id, issued));
    return withHeaders(response, headers);
  };
}
