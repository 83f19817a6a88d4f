// `mcp-payload-codec proxy --upstream URL [--port N] [--host H]`: the filtering proxy on a
// local port, in front of a remote Streamable HTTP server.
import type { Server } from 'node:http';
import { createFilteringProxy } from '../http/proxy.js';
import type { CodecOptions } from '../options.js';
import { parseCommandArgs, port as portFlag, positiveInt, untilSignal } from './http-args.js';
import { listen } from './node-http.js';
import { UsageError } from './usage-error.js';

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

export const PROXY_HELP = `  proxy --upstream URL [options]        Listen on HTTP in front of a remote Streamable HTTP MCP
                                         server: requests decoded on their way up, responses
                                         (JSON and event streams) encoded on their way down.
                                         Clients use http://HOST:PORT/mcp.
    --upstream URL                       the remote MCP endpoint (required)
    --port N                             default 8080 (0: any free port)
    --host ADDRESS                       default 127.0.0.1 (only this machine)
    --allowed-host NAME[:PORT]           Host headers accepted (repeatable; default localhost,
                                         127.0.0.1, [::1]); others get 403
    --allowed-origin ORIGIN              browser Origins accepted (repeatable; default: origins
                                         on localhost, 127.0.0.1, [::1]); others get 403
    --max-message-bytes N                bigger request bodies get 413 (default 536870912)
`;

/** `proxy` from its arguments; runs until SIGINT/SIGTERM/SIGHUP, then resolves 0. */
export async function proxyCommand(args: string[], codec: CodecOptions): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    upstream: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'allowed-host': { type: 'string', multiple: true },
    'allowed-origin': { type: 'string', multiple: true },
    'max-message-bytes': { type: 'string' },
  });
  if (positionals.length) throw new UsageError('proxy takes no positional arguments (use --upstream URL)');
  if (typeof values.upstream !== 'string') throw new UsageError('proxy needs --upstream URL');
  try {
    new URL(values.upstream);
  } catch {
    throw new UsageError('--upstream must be an http: or https: URL');
  }
  const { server } = await runProxy({
    ...codec,
    upstream: values.upstream,
    port: portFlag(values.port as string | undefined, 8080),
    host: (values.host as string | undefined) ?? '127.0.0.1',
    allowedHosts: values['allowed-host'] as string[] | undefined,
    allowedOrigins: values['allowed-origin'] as string[] | undefined,
    maxMessageBytes: positiveInt(values['max-message-bytes'] as string | undefined, '--max-message-bytes', 512 * 1024 * 1024),
  });
  await untilSignal();
  server.closeAllConnections();
  server.close();
  return 0;
}
