// HeldLines (wrap's server-to-client side): whole lines out, in order, bytes unchanged; a line
// longer than the limit streams; a line taken back never reaches the client.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeldLines } from '../src/cli/held-lines.ts';
import { runs } from './arbitraries.ts';

// Writes of bytes drawn mostly from 'a' and '\n', so that writes end a line, hold a part of
// one, or hold several.
const writes = fc.array(
  fc.uint8Array({ maxLength: 40 }).map((b) => b.map((x) => (x % 3 === 0 ? 0x0a : 0x61))),
  { maxLength: 20 },
);

function run(input: Uint8Array[], limit: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const held = new HeldLines((b) => void out.push(b.slice()), limit);
  for (const w of input) held.write(w);
  held.end();
  return out;
}

describe('HeldLines', () => {
  it('passes every byte on in order, each write out ending a line, but for the last and a line over the limit', () => {
    fc.assert(
      fc.property(writes, fc.integer({ min: 1, max: 64 }), (input, limit) => {
        const out = run(input, limit);
        expect(Buffer.concat(out)).toEqual(Buffer.concat(input));
        // A line within the limit goes out whole: a write out that does not end a line is the
        // input's unfinished last line, or the start of a line that outgrew the limit.
        const lines = Buffer.concat(input).toString('latin1').split('\n');
        const longest = Math.max(...lines.map((l) => l.length));
        out.slice(0, -1).forEach((b) => {
          if (b[b.length - 1] !== 0x0a) expect(longest).toBeGreaterThan(limit);
        });
      }),
      runs(200),
    );
  });

  it('lets each line go as soon as it ends', () => {
    fc.assert(
      fc.property(writes, (input) => {
        let sent = 0;
        const held = new HeldLines((b) => {
          sent += b.length;
        }, 1 << 20);
        let seen = 0;
        let lineEnd = 0; // input bytes up to the last '\n' so far
        for (const w of input) {
          held.write(w);
          const nl = w.lastIndexOf(0x0a);
          if (nl >= 0) lineEnd = seen + nl + 1;
          seen += w.length;
          expect(sent).toBe(lineEnd);
        }
      }),
      runs(200),
    );
  });

  it('holds a line until it ends, so a line taken back never goes out', () => {
    const out: string[] = [];
    const held = new HeldLines((b) => void out.push(Buffer.from(b).toString()), 1024);
    held.write(Buffer.from('{"ok":1}\n{"bad'));
    expect(held.takeBack()).toBe('held');
    held.write(Buffer.from('":x}\n{"ok":2}\n'));
    held.end();
    expect(out.join('')).toBe('{"ok":1}\n{"ok":2}\n');
  });
});
