// Static bearer tokens (`--auth-token-file`): a request passes with `Authorization: Bearer <t>`
// for one of them. The presented token is compared with every configured one, every character
// of each, whatever it holds: the loops' lengths are the configured tokens', so the time taken
// says nothing of how close a wrong token came or how long the right one is (and it is
// synchronous: about a microsecond, where a WebCrypto digest costs a thread-pool round trip).
import { type Authorize, bearerCredential, type Principal, refusal } from './principal.js';

const encoder = new TextEncoder();
const sha256 = async (text: string) => new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** RFC 6750's b64token: what a bearer token may be made of. */
export const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Shorter tokens are refused: a guessable token on a public port is no authentication. */
export const MIN_TOKEN_LENGTH = 16;

/** Why `token` cannot be used, or undefined (never echoes it). */
export function tokenProblem(token: string): string | undefined {
  if (!TOKEN_SYNTAX.test(token)) return 'is not a bearer token (RFC 6750: letters, digits, -._~+/ then any =)';
  if (token.length < MIN_TOKEN_LENGTH) return `is shorter than ${MIN_TOKEN_LENGTH} characters`;
  return undefined;
}

/**
 * The index of `token` among `known` (the last match), or -1: every character of every known
 * token is compared, whatever `token` holds, so the time depends on the known tokens only, not
 * on how close a wrong token came or how long it is.
 */
export function tokenIndex(known: readonly { readonly token: string }[], token: string): number {
  let found = -1;
  const n = token.length;
  for (let i = 0; i < known.length; i++) {
    const k = known[i]!.token;
    let diff = k.length ^ n;
    // (read in bounds, `j % n`: reading past the end of a shorter token takes another, slower
    // path in V8, 5-8% more for a 16-character token than for one of the right length)
    for (let j = 0; j < k.length; j++) diff |= k.charCodeAt(j) ^ (token.charCodeAt(j % n) | 0);
    found = diff === 0 ? i : found;
  }
  return found;
}

export interface BearerTokens {
  /** The authorizer: a Principal `bearer:<first 8 bytes of the token's SHA-256, hex>`, or a 401. */
  readonly authorize: Authorize;
  /** Replaces the accepted tokens (a rotation); resolves once in force. */
  replace(tokens: readonly string[]): Promise<void>;
}

/** Accepts the given tokens; `next`, when set, decides for a request whose token is none of them. */
export async function bearerTokens(tokens: readonly string[], next?: Authorize): Promise<BearerTokens> {
  let known: { token: string; id: string }[] = [];
  // Rotations in the order they were asked for: one that finishes after a later one (its digests
  // took longer) must not put back tokens the later one took out.
  let asked = 0;
  const replace = async (list: readonly string[]) => {
    for (const [i, t] of list.entries()) {
      const problem = tokenProblem(t);
      if (problem) throw new TypeError(`token ${i + 1} ${problem}`);
    }
    const mine = ++asked;
    // The id of a token's holder: the start of its digest (stable across rotations, never the token).
    const next = await Promise.all(list.map(async (token) => ({ token, id: `bearer:${hex((await sha256(token)).subarray(0, 8))}` })));
    if (mine === asked) known = next;
  };
  await replace(tokens);
  const authorize: Authorize = async (request) => {
    const token = bearerCredential(request);
    if (token !== undefined) {
      const found = tokenIndex(known, token);
      if (found >= 0) return { id: known[found]!.id } satisfies Principal;
    }
    if (next) return next(request);
    return refusal(401, token === undefined ? 'Unauthorized: a bearer token is required' : 'Unauthorized: invalid token', {
      'www-authenticate': token === undefined ? 'Bearer' : 'Bearer error="invalid_token"',
    });
  };
  return { authorize, replace };
}
