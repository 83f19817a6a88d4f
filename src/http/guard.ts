// DNS-rebinding protection for a local server (MCP spec, Streamable HTTP "Security Warning"):
// the Host header must name this machine, and a browser's Origin must be an allowed one.

export const LOCAL_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export interface OriginPolicy {
  /** Host header values allowed: a name (any port) or name:port; '*' allows any. Default LOCAL_HOSTS. */
  allowedHosts?: readonly string[];
  /**
   * Origin header values allowed (scheme://host[:port]); '*' allows any. Default: origins whose
   * host is a LOCAL_HOSTS name, any scheme and port. Requests without Origin (not from a
   * browser) pass.
   */
  allowedOrigins?: readonly string[];
}

function parseHost(value: string): URL | undefined {
  try {
    return new URL(`http://${value}`);
  } catch {
    return undefined;
  }
}

export function hostAllowed(host: string | null, allowed: readonly string[] = LOCAL_HOSTS): boolean {
  if (allowed.includes('*')) return true;
  if (!host) return false;
  const url = parseHost(host);
  if (!url || url.username || url.password || url.pathname !== '/' || host.includes('/')) return false;
  const name = url.hostname.toLowerCase();
  return allowed.some((a) => {
    const entry = a.toLowerCase();
    return entry === name || entry === url.host.toLowerCase();
  });
}

export function originAllowed(origin: string | null, allowed?: readonly string[]): boolean {
  if (origin === null) return true;
  if (allowed) return allowed.includes('*') || allowed.includes(origin);
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed pages, file:) included
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOCAL_HOSTS.includes(url.hostname.toLowerCase());
}

/**
 * Which of a request's names a server refuses, its Host or its Origin, for `serve` and the proxy.
 * The last Host's verdict is kept: a client sends the same one on every call (a URL parse each).
 */
export class NameCheck {
  private host: string | undefined;
  private hostOk = false;
  constructor(private readonly policy: OriginPolicy) {}

  refused(host: string, origin: string | null): 'Host header' | 'Origin' | undefined {
    if (host !== this.host) {
      this.hostOk = hostAllowed(host, this.policy.allowedHosts);
      this.host = host;
    }
    if (!this.hostOk) return 'Host header';
    return originAllowed(origin, this.policy.allowedOrigins) ? undefined : 'Origin';
  }
}
