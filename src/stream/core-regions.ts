// The sizes of what one core call reads, as the framers see them: they gather messages for the
// batch entries up to these, and hold a cut message only while one of these could take it.

/** Most input bytes handed to the core per call. */
export const SLICE = 16 * 1024;
/** The NDJSON lines region (`lines`): longer lines go the per-message way. At most SLICE (the output is sized for it). */
export const LINES = SLICE;
/** Most bodies per `framed` call (its frame table). */
export const FRAMES = 1024;
/** The framed bodies' region (`framed`): at most SLICE, as for `lines`. */
export const FRAMED = SLICE;
/**
 * Whole messages longer than the batch regions, up to this (an NDJSON line with its '\n', a
 * Content-Length body), are each taken on their own by the indexed path, in regions made for
 * the call and given back after it (large-message.ts).
 */
export const LARGE_LINE = 256 * 1024;
