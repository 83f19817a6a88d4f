// RefusedLines (wrap's refused client lines): each refusal gets the bytes of its own line,
// however the input is cut, and a line holds memory near its size however small the chunks.
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RefusedLines } from '../src/cli/refused-lines.ts';
import { PayloadStreamError } from '../src/stream/stream-error.ts';
import { runs } from './arbitraries.ts';

const refusal = (n: number) => new PayloadStreamError('invalid-utf8', 'invalid UTF-8', n, 0);

describe('RefusedLines', () => {
  it('tells each refusal with its own line, whatever the chunks', () => {
    const line = fc.oneof(
      fc.constantFrom('', ' \t', '\r'),
      fc.string({ unit: fc.constantFrom('a', '{', ' ', '\r'), minLength: 1, maxLength: 40 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(line, fc.boolean()), { maxLength: 30 }), fc.array(fc.nat(50), { maxLength: 30 }), (lines, cuts) => {
        const input = Buffer.from(lines.map(([l]) => `${l}\n`).join(''));
        const messages = lines.filter(([l]) => l.replace(/[ \t\r]/g, '') !== '');
        const told: [number, string][] = [];
        const r = new RefusedLines(1 << 20, 1 << 20, (e, bytes) => told.push([e.messageNumber, Buffer.from(bytes!).toString()]));
        // The decoder, as a fake: refuses a chosen message as its line ends.
        let n = 0;
        let current = '';
        const decode = (b: Uint8Array) => {
          for (const c of Buffer.from(b).toString()) {
            if (c !== '\n') current += c;
            else {
              if (current.replace(/[ \t\r]/g, '') !== '' && messages[n++]![1]) r.refuse(refusal(n));
              current = '';
            }
          }
        };
        let at = 0;
        for (const cut of cuts) {
          r.push(input.subarray(at, Math.min(input.length, at + cut)), decode);
          at = Math.min(input.length, at + cut);
        }
        if (at < input.length) r.push(input.subarray(at), decode);
        r.end();
        expect(told).toEqual(messages.flatMap(([l, bad], i) => (bad ? [[i + 1, l]] : [])));
      }),
      runs(300),
    );
  });

  it('a line of 1 MiB in 1-byte chunks holds a few MB, not an object per chunk', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const n = 1 << 20;
    const pool = Buffer.alloc(n, 'x');
    let told: Uint8Array | undefined;
    const r = new RefusedLines(n, 1 << 29, (_, line) => (told = line));
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < n; i++) r.push(pool.subarray(i, i + 1), () => {});
    gc();
    const held = process.memoryUsage().heapUsed - before;
    r.refuse(refusal(1));
    r.push(Buffer.from('\n'), () => {});
    expect(Buffer.from(told!).equals(pool)).toBe(true);
    expect(held).toBeLessThan(16 * n); // (an object per chunk held about 110 MB)
  });
});
