// Byte arrays joined: one leaf module, so small modules need not import the stream stack for it.

/** The parts joined into one array (the part itself when there is only one: not a copy). */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
