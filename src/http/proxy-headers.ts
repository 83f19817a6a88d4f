// What createFilteringProxy does to headers on the way through: a connection's own headers stay
// with it (RFC 9110 7.6.1), and a decompressed body loses its coding and length.

/** Headers that belong to one connection, not to the message (RFC 9110 7.6.1). */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
];

export function withoutHopByHop(source: Headers): Headers {
  const headers = new Headers(source);
  for (const name of (source.get('connection') ?? '').split(',')) if (name.trim()) headers.delete(name.trim());
  for (const name of HOP_BY_HOP) headers.delete(name);
  return headers;
}

/** A response's headers as they go to the client: the upstream's body was decompressed, and the server frames the length. */
export function downstream(source: Headers): Headers {
  const headers = withoutHopByHop(source);
  headers.delete('content-encoding');
  headers.delete('content-length');
  return headers;
}
