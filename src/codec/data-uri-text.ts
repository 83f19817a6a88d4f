// The object API's data: URIs: a base64 payload passes as it is, its header is text.
import { isBase64DataUri } from './protocol-fields.js';
import { anyCasePrefix } from './token-decode.js';

/**
 * Encoding: a whole base64 `data:` URI keeps its payload as it is (from the first comma on)
 * and its header is text, unless it holds the token prefix (in any ASCII case: the media type
 * or the URL-safe alphabet can spell it), when it is all text. Decoding restores a token
 * anywhere in one: a URI taken out of prose (where encoding put tokens in it) comes back
 * whole; one that holds the prefix is encoded like text (its prefix escaped), so the round
 * trip holds for every URI. Returns where the kept part begins (the length: none).
 */
export function dataUriPayload(prefix: string): (s: string) => number {
  // Searched in place (a lowered copy of megabytes of base64 per URI cost more).
  const holdsPrefix = anyCasePrefix(prefix);
  return (s) => (isBase64DataUri(s) && !holdsPrefix.test(s) ? s.indexOf(',') + 1 : s.length);
}

/** A string encoded by `map` up to `keptFrom(s)` and kept as it is after (see dataUriPayload). */
export function keptText(s: string, map: (s: string) => string, keptFrom: (s: string) => number): string {
  const k = keptFrom(s);
  return k === s.length ? map(s) : map(s.slice(0, k)) + s.slice(k);
}
