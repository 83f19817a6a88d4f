// The upstream's answer as the proxy's handler gets it: a fetch Response, or the head and body
// source an openStream gives; read through Web streams where a path still needs them, and
// refused as it comes when its head cannot be written down (its body let go at once).
import { type ByteSource, sourceStream } from './event-relay.js';
import { isFieldText, toHeaders } from './proxy-headers.js';
import type { ResponseHead } from './response.js';

/** The upstream's answer: from fetch, or a head and its body's source from openStream (none for a status without a body). */
export type Upstream = Response | (ResponseHead & { source: ByteSource | undefined });

/** An upstream answer read through Web streams (the paths that still need them). */
export function asResponse(up: Upstream): Response {
  if (up instanceof Response) return up;
  return new Response(up.source && sourceStream(up.source), {
    status: up.status,
    statusText: up.statusText,
    headers: toHeaders(up.headers),
  });
}

/** An upstream answer whose status text no server will write (a control character): it fails the request (500). */
export class UnwritableHead extends TypeError {}

/**
 * `up` if its head can be written down; else its body is let go at once (fetch's would hold the
 * connection until undici's body timeout, an opened stream's for ever) and the request fails.
 */
export function writable(up: Upstream): Upstream {
  if (isFieldText(up.statusText)) return up;
  if (up instanceof Response) void up.body?.cancel().catch(() => {});
  else up.source?.cancel();
  throw new UnwritableHead('The upstream answered with a status text that cannot be written');
}
