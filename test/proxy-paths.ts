// The CLI proxy's node:http paths held to the fetch path: one upstream script player, and the
// same upstream behind both (http-proxy-held-streams, http-proxy-node-posts).
import type { ServerResponse } from 'node:http';
import { listen } from '../src/cli/node-http.js';
import { runProxy } from '../src/cli/proxy.js';
import { createFilteringProxy } from '../src/http/index.js';
import { closer } from './http-helpers.ts';

/** What the upstream answers the next request with: its type, its chunks, then a clean end or a cut connection. */
export interface Script {
  type?: string;
  chunks: Uint8Array[];
  cut: boolean;
}

/** Writes the script's chunks one per turn of the event loop (so that they arrive apart), then ends or cuts. */
export async function play(res: ServerResponse, s: Script): Promise<void> {
  res.writeHead(200, { 'content-type': s.type ?? 'text/event-stream' });
  res.flushHeaders();
  for (const c of s.chunks) {
    res.write(c);
    await new Promise((r) => setImmediate(r));
  }
  if (s.cut) res.socket!.destroy();
  else res.end();
}

/** `bytes` cut at the given fractions of its length into chunks, maybe cut short at `cutAt`. */
export function chunked(bytes: Uint8Array, cuts: number[], cutAt: number | null): Uint8Array[] {
  const whole = cutAt === null ? bytes : bytes.subarray(0, Math.floor(cutAt * bytes.length));
  const at = [...new Set(cuts.map((c) => Math.floor(c * whole.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, whole.length]) {
    if (to > from) chunks.push(whole.slice(from, to));
    from = Math.max(from, to);
  }
  return chunks;
}

/**
 * `upstream` behind runProxy (node: openStream, relayed into the response) and behind the same
 * handler and server without openStream (fetched: fetch and Web streams); each one's log lines.
 */
export async function bothPaths(upstream: string, cleanup: (() => unknown)[]) {
  const logs = { node: [] as string[], fetched: [] as string[] };
  const a = await runProxy({ upstream, port: 0, log: (l) => void logs.node.push(l) });
  cleanup.push(closer(a.server));
  const b = await listen(createFilteringProxy({ upstream, onLog: (l) => void logs.fetched.push(l) }), '127.0.0.1', 0, () => {});
  cleanup.push(closer(b.server));
  return { node: a.url, fetched: `${b.url}/mcp`, logs };
}
