// Buffers a stream needs only while it works (the output batch, the framed writer, the first
// chunk of held bytes, a streamed event's data block), lent for a push or a message and given
// back when it ends: between messages a stream holds none, so thousands of idle streams (an
// HTTP server's open event streams) hold no buffers, and a stream made per response takes warm
// ones instead of new ones (a new typed array costs more than a small message's work).
// Pushes are synchronous, so few buffers are lent at once (one per stream working on the call
// stack); a few of each size are kept.

/** Sizes are powers of two from 1 KiB to 1 MiB; a larger one is made and not kept. */
const MIN_BITS = 10;
const MAX_BITS = 20;
/** Buffers kept per size: 16 of the small ones, fewer as they grow (about 3 MiB at most in all). */
const KEEP = Array.from({ length: MAX_BITS + 1 }, (_, bits) => Math.max(1, Math.min(16, 2 ** (18 - bits))));
const free: Uint8Array<ArrayBuffer>[][] = Array.from({ length: MAX_BITS + 1 }, () => []);

let lent = 0;

/** A buffer of at least n bytes (a power of two up to 1 MiB), its bytes left as they were: write before reading. */
export function lendBuffer(n: number): Uint8Array<ArrayBuffer> {
  const bits = Math.max(MIN_BITS, 32 - Math.clz32(Math.max(1, n) - 1));
  if (bits > MAX_BITS) return new Uint8Array(n);
  lent++;
  return free[bits]!.pop() ?? new Uint8Array(1 << bits);
}

/** Gives a lent buffer back; nothing may read or write it afterwards (another stream may have it). */
export function returnBuffer(b: Uint8Array): void {
  const bits = 31 - Math.clz32(b.length);
  if (b.length !== 1 << bits || bits < MIN_BITS || bits > MAX_BITS) return; // (made for one use, not lent)
  const list = free[bits]!;
  // Given back twice (a caller's bug): kept twice, it would be lent to two streams at once.
  if (list.includes(b as Uint8Array<ArrayBuffer>)) return; // (at most 16 to look at)
  lent--;
  if (list.length < KEEP[bits]!) list.push(b as Uint8Array<ArrayBuffer>); // (every lent one is)
}

/** A lent buffer kept for good (handed out as a chunk): it counts as lent no more. */
export function keepBuffer(b: Uint8Array): void {
  const bits = 31 - Math.clz32(b.length);
  if (b.length === 1 << bits && bits >= MIN_BITS && bits <= MAX_BITS) lent--;
}

/** How many buffers are lent now (tests: an idle stream holds none). */
export function buffersLent(): number {
  return lent;
}
