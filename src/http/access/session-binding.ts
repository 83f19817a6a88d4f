// Sessions bound to the credential that made them, with no table to evict: the id a client
// sees is the server's id, a dot and an HMAC of (principal, id) under a key of this process
// (or one the deployment shares between instances). A request is let through only when the
// MAC is its own principal's; another credential presenting the id gets 404, as for a session
// that does not exist, and the server never sees it. A restart with a new key ends every
// session the same way: clients initialise again.
const encoder = new TextEncoder();

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

export interface SessionBinding {
  /** The id to hand to `principal` for the server's session `id`. */
  bind(principal: string, id: string): Promise<string>;
  /** The server's id inside `presented`, when it was handed to `principal`; else undefined. */
  unbind(principal: string, presented: string): Promise<string | undefined>;
}

/** `secret`: at least 32 bytes shared by instances that must accept each other's ids; default random. */
export async function sessionBinding(secret?: Uint8Array): Promise<SessionBinding> {
  if (secret && secret.length < 32) throw new TypeError('the session secret must be at least 32 bytes');
  const raw = secret ?? crypto.getRandomValues(new Uint8Array(32));
  const key = await crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
  // The principal's length goes first, so no (principal, id) pair can spell another's input.
  const input = (principal: string, id: string) => encoder.encode(`${principal.length}:${principal}\n${id}`);
  const mac = async (principal: string, id: string) =>
    base64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, input(principal, id))));
  return {
    bind: async (principal, id) => `${id}.${await mac(principal, id)}`,
    unbind: async (principal, presented) => {
      const dot = presented.lastIndexOf('.');
      if (dot <= 0) return undefined;
      const id = presented.slice(0, dot);
      const given = presented.slice(dot + 1);
      const expected = await mac(principal, id);
      // Compared whole, without an early exit.
      let diff = given.length ^ expected.length;
      for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ (given.charCodeAt(i) | 0);
      return diff === 0 ? id : undefined;
    },
  };
}
