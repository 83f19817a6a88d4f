// mcp-payload-codec/http: filtering for MCP's Streamable HTTP transport, on Web-standard
// Request, Response, fetch and streams only (Node 20+, browsers, Deno, Bun, edge workers).

export type { AskUser, ConfirmRequest } from '../guard/confirm.js';
export {
  type AccessOptions,
  type Authorize,
  type BearerTokens,
  bearerTokens,
  type OAuthResourceOptions,
  oauthResource,
  type Principal,
  withAccess,
} from './access/index.js';
export { createFilteringFetch, type FetchLike, type FilteringFetchOptions } from './fetch.js';
export { LOCAL_HOSTS, type OriginPolicy } from './guard.js';
export { createJsonBodyStream } from './json-body.js';
export { createFilteringProxy, type FilteringProxyOptions } from './proxy.js';
