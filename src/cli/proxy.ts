// `mcp-payload-codec proxy --upstream URL [--port N] [--host H]`: the filtering proxy on a
// local port, in front of a remote Streamable HTTP server.
import type { Server } from 'node:http';
import { createFilteringProxy } from '../http/proxy.js';
import type { CodecOptions } from '../options.js';
import { listen } from './node-http.js';

export interface ProxyCommandOptions extends CodecOptions {
  upstream: string;
  /** Default 127.0.0.1: the MCP spec asks local servers to bind to localhost only. */
  host?: string;
  /** Default 0 (a free port, printed). */
  port?: number;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  maxMessageBytes?: number;
  /** Where the URL and log lines go; default stderr. */
  log?: (line: string) => void;
}

/** Starts the proxy; resolves with the server and the URL of its MCP endpoint once listening. */
export async function runProxy(options: ProxyCommandOptions): Promise<{ server: Server; url: string }> {
  const { upstream, host = '127.0.0.1', port = 0, log = (line) => process.stderr.write(`mcp-payload-codec: ${line}\n`), ...rest } = options;
  const handler = createFilteringProxy({ ...rest, upstream, onLog: log });
  const { server, url } = await listen(handler, host, port, log);
  log(`proxy listening on ${url}/mcp (upstream ${new URL(upstream).origin})`);
  return { server, url: `${url}/mcp` };
}
