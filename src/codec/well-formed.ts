// TextEncoder turns lone surrogates into U+FFFD, which would corrupt a round trip. No term or
// token contains a lone surrogate, so a string is cut at them, the well-formed pieces are
// transformed, and the surrogates are put back exactly where they were.

/** A high surrogate with no low one after it, or a low one with no high one before it. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Applies `f` to the well-formed stretches of `s`; returns `s` itself if nothing changed. */
export function mapWellFormed(s: string, f: (piece: string) => string): string {
  if (s.isWellFormed()) return f(s);
  let out = '';
  let from = 0;
  let changed = false;
  for (const m of s.matchAll(LONE_SURROGATE)) {
    const piece = s.slice(from, m.index);
    const mapped = piece.length > 0 ? f(piece) : piece;
    if (mapped !== piece) changed = true;
    out += mapped + m[0];
    from = m.index + 1;
  }
  const piece = s.slice(from);
  const mapped = piece.length > 0 ? f(piece) : piece;
  if (mapped !== piece) changed = true;
  return changed ? out + mapped : s;
}
