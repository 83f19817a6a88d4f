// Where a request to the proxy goes upstream: its endpoint (the MCP path, here or upstream) to
// the upstream URL with the request's query, any other path onto the upstream's origin.
export class UpstreamTargets {
  constructor(
    private readonly upstream: URL,
    private readonly path: string,
  ) {}

  /** The last URL asked about and its verdict: a client sends the same target on every call, and the server hands the same URL object (a pathname read costs a few µs). */
  private last: URL | undefined;
  private lastIs = false;

  isEndpoint(url: URL): boolean {
    if (url !== this.last) {
      this.lastIs = url.pathname === this.path || url.pathname === this.upstream.pathname;
      this.last = url;
    }
    return this.lastIs;
  }

  // (what it returns is only read: fetch and openStream take it as it is)
  target(url: URL): URL {
    if (this.isEndpoint(url)) {
      if (!url.search) return this.upstream;
      const t = new URL(this.upstream);
      t.search = url.search;
      return t;
    }
    // The path set on a copy of the origin, never parsed as a reference: `//evil.example/x`
    // (or `/.//evil.example/x`, which a URL parser turns into it) would name another host.
    const t = new URL(this.upstream.origin);
    t.pathname = url.pathname;
    t.search = url.search;
    return t;
  }
}
