// createFilteringProxy's options, and how a caller may open the upstream's streams itself.
import type { AccessOptions } from './access/index.js';
import type { ByteSource } from './event-relay.js';
import type { FilteringFetchOptions } from './fetch.js';
import type { OriginPolicy } from './guard.js';
import type { HeadFields } from './proxy-headers.js';
import type { AbortSignalLike } from './proxy-request.js';

export interface FilteringProxyOptions extends FilteringFetchOptions, OriginPolicy, Partial<AccessOptions> {
  /** The upstream MCP endpoint, e.g. https://example.com/mcp. */
  upstream: string | URL;
  /**
   * The path that maps to the upstream endpoint; default '/mcp'. The upstream endpoint's own
   * path maps to it too; any other path goes to the same path at the upstream's origin (OAuth
   * metadata lives there).
   */
  path?: string;
  /** One line per event worth knowing (never payload text); default: none. */
  onLog?: (line: string) => void;
  /**
   * Headers set on every request sent upstream (what the upstream itself needs, such as its own
   * credential). With `authorize`, the client's Authorization header is never forwarded.
   */
  upstreamHeaders?: Readonly<Record<string, string>>;
  /**
   * How the MCP endpoint's requests are sent upstream instead of `fetch` (the Node CLI: node:http
   * over keep-alive connections). Event streams (a GET's, a POST's) are then relayed without Web
   * streams (event-relay.ts), which a server that knows them pipes straight into its response: an
   * idle stream holds a few objects, not fetch's, and a small call makes no stream at all.
   */
  openStream?: OpenStream;
}

/** An upstream response opened by an OpenStream: its head, and its body as a source. */
export interface OpenedStream {
  status: number;
  statusText: string;
  headers: HeadFields;
  source: ByteSource;
}

/**
 * Sends `method` to `url` with `headers` and `body` (none for a GET); resolves with the response's head.
 * `headers` are the fields to send (the client's, less its connection's, and `upstreamHeaders`),
 * on either server path not Web Headers but the proxy's own Fields: read them with `get` and
 * `forEach`, or iterate them ([name, value] pairs in a Headers' order), so that
 * `new Headers(headers)` or fetch's `headers` option takes them as they are.
 */
export type OpenStream = OpenStreamWith<AbortSignal>;

/**
 * An OpenStream as the handler calls it: `signal` may be an AbortSignalLike (the Node CLI's
 * ClientLeft, cli/node-request.ts, on its direct path). Not public: createFilteringProxy's
 * requests are Web Requests, so a caller's OpenStream is only ever given their AbortSignal.
 */
export type OpenStreamLike = OpenStreamWith<AbortSignalLike>;

/** OpenStream's shape, by the signal it is given. */
type OpenStreamWith<Signal> = (
  url: URL,
  headers: HeadFields & Iterable<[string, string]>,
  signal: Signal,
  method: string,
  body?: Uint8Array,
) => Promise<OpenedStream>;

/** The options filteringProxy takes: createFilteringProxy's, with an openStream that takes the lighter signal. */
export interface ProxyOptions extends Omit<FilteringProxyOptions, 'openStream'> {
  openStream?: OpenStreamLike;
}
