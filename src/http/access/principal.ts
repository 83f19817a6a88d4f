// Who a request comes from, as an authorizer says: the one shape the access layer, the limits
// and the session binding go by. An authorizer returns a Principal, or a Response to send
// instead (401, 403, or a public document such as the protected resource metadata).

/** Who made a request: an id stable for one credential (a token's hash, a JWT's issuer and sub). */
export interface Principal {
  /** Stable per credential; may appear in logs, so never the credential itself. */
  readonly id: string;
  /** The scopes the credential grants, where it says. */
  readonly scopes?: readonly string[];
}

export type Authorize = (request: Request) => Promise<Principal | Response> | Principal | Response;

/** A JSON body with a status and headers (the access layer's own answers). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A JSON-RPC error with no id (nothing of the request was read), with the HTTP status that says it. */
export const refusal = (status: number, message: string, headers: Record<string, string> = {}): Response =>
  jsonResponse(status, { jsonrpc: '2.0', id: null, error: { code: -32001, message } }, headers);

/** The credential of `Authorization: Bearer <token>`, or undefined (no header, another scheme, not a b64token). */
export function bearerCredential(request: Request): string | undefined {
  const m = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(request.headers.get('authorization') ?? '');
  return m?.[1];
}
