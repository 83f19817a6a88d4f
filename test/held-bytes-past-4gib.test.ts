// HeldBytes addresses its 64 KiB chunks by offset. It holds a whole message's output where its
// length must be known first (a Content-Length body), a decoded message, or all that follows a
// deferred `data` value until its `type`: encoding grows each term to __mcp_ref_<hex>__, so 820
// MiB of default terms (or 512 MiB of a user's two-letter ones) hold more than 4 GiB. A chunk number made with `>>> 16` wraps there: the bytes
// past 4 GiB overwrote the first chunk, silently. Reached by moving the length to just below 4
// GiB (the chunks before it are never read here).
import { describe, expect, it } from 'vitest';
import { HeldBytes } from '../src/stream/held-bytes.ts';

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('HeldBytes past 4 GiB', () => {
  for (const at of [2 ** 32 - 5, 2 ** 32 + 2, 2 ** 33 + 1]) {
    it(`keeps bytes written across offset ${at} apart from the first chunk`, () => {
      const held = new HeldBytes();
      held.push(new TextEncoder().encode('first'));
      const internals = held as unknown as { chunks: (Uint8Array | null)[] };
      held.length = at;
      internals.chunks[Math.floor(at / 2 ** 16)] = new Uint8Array(2 ** 16); // (the chunk `at` is in, as a full one)
      held.push(new TextEncoder().encode('0123456789'));
      expect(held.length).toBe(at + 10);
      expect(text(held.read(0, 5))).toBe('first');
      expect(text(held.read(at, at + 10))).toBe('0123456789');
      expect(
        held
          .range(at, at + 10)
          .map(text)
          .join(''),
      ).toBe('0123456789');
      const out: string[] = [];
      held.forEach(at + 3, at + 10, (b) => void out.push(text(b)));
      expect(out.join('')).toBe('3456789');
      // Letting go of the chunks inside a range past 4 GiB keeps the first.
      const from = Math.ceil(at / 2 ** 16) * 2 ** 16;
      held.drop(from, from + 2 ** 16);
      expect(text(held.read(0, 5))).toBe('first');
    });
  }
});
