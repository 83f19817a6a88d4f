// Strings dense with escapes through the indexed path, against the byte path
// (hooks.indexedPath(0)): stage 1's escaped quotes (structural.ts escapedBytes, a subtraction
// per block rather than a loop per backslash), the decoder's runs between escapes (indexed-text.ts
// copyToBackslash, whose last bytes are loaded as the 16 before the closing quote and shifted)
// and the cursor's jumps over the escape map (windows.ts advance).
// Backslash runs of every length across block edges, every escape kind, a string's end at every
// offset of a vector, and matches after any number of escapes.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { B } from './hostile-lines.ts';
import { indexedTrace } from './indexed-trace.ts';
import { outputAppender } from './ndjson-scenarios.ts';

vi.mock('../src/core/wasm-bytes.ts', () => import('./wasm-bytes-with-hooks.ts')); // (the core with test hooks)

afterEach(() => {
  hooks.indexedPath(1);
});

type Mode = 'encode' | 'decode';
/** Holds that the line's output, callbacks and errors are the same with the indexed path on and off; returns whether it took it. */
function agree(mode: Mode, text: string): boolean {
  const input = B(`${text}\n`);
  const on = indexedTrace(mode, input, {}, true, outputAppender);
  expect(indexedTrace(mode, input, {}, false, outputAppender).log).toEqual(on.log);
  return on.taken > 0;
}
const message = (pad: number, body: string) => `{"jsonrpc":"2.0","id":1,"result":{"p":"${'q'.repeat(pad)}","text":"${body}"}}`;

// Pieces of a string's JSON text: escapes of every kind (a surrogate pair, lone halves, one
// that is not valid), runs of backslashes (an even run is escaped backslashes; an odd one
// escapes the quote after it), JSON quoted in text, terms and tokens, CJK, plain runs.
const piece = fc.oneof(
  fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u0041', '\\u00e9', '\\u4E2D', '\\uD83D\\uDE00'),
  fc.constantFrom('\\ud800', '\\udc00', '\\uD800\\n', '\\x', '\\u12'),
  fc.integer({ min: 1, max: 70 }).map((n) => `${'\\\\'.repeat(n)}${n % 3 ? '\\"' : ''}`),
  fc.constantFrom('{\\"name\\":\\"Qwen\\",\\"pid\\":42}', 'Qwen', '阿里', '__mcp_ref_5177656e__', '通义千问', '\\u0051wen'),
  fc.integer({ min: 0, max: 40 }).map((n) => 'abcdefghij klmnopqrstuvwxyz 0123456789 AB'.slice(0, n)),
);

describe('strings dense with escapes agree with the byte path', () => {
  for (const mode of ['encode', 'decode'] as const)
    it(`${mode}: pieces with escapes across 64-byte blocks and 16-byte vectors, at every pad`, () => {
      let taken = 0;
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 130 }), fc.array(piece, { minLength: 1, maxLength: 60 }), (pad, pieces) => {
          if (agree(mode, message(pad, pieces.join('')))) taken++;
        }),
        runs(200),
      );
      expect(taken).toBeGreaterThan(50); // (most lines hold only valid escapes: the indexed path takes them)
    });

  it("a string's end at every offset of a vector after an escape, in keys and values", () => {
    for (const esc of ['\\"', '\\n', '\\\\', '\\u00e9', '\\uD83D\\uDE00'])
      for (let before = 0; before < 20; before++)
        for (let after = 0; after < 34; after++) {
          const body = `${'x'.repeat(before)}${esc}${'Qwen abcdefghijklmnopqrstuvwxyz'.repeat(2).slice(0, after)}`;
          for (const mode of ['encode', 'decode'] as const) {
            expect(agree(mode, message(before, body))).toBe(true);
            if (after % 5 === 0) agree(mode, `{"jsonrpc":"2.0","id":1,"result":{"${body}":1}}`);
          }
        }
  });

  it('matches after any number of escapes, near and far apart, past the map of 1,024 entries', () => {
    const counts = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100, 255, 256, 257, 1000];
    for (const mode of ['encode', 'decode'] as const) {
      const term = mode === 'encode' ? 'Qwen' : '__mcp_ref_5177656e__';
      let body = '';
      for (const n of counts) body += `${'a\\"'.repeat(n)}${term}${n % 2 ? '\\n' : 'b'}`;
      expect(agree(mode, message(3, body))).toBe(true);
      const past = `${'\\"'.repeat(1030)}${term}${'\\n'.repeat(7)}${term}`; // (1,030 escapes: no map, the raw bytes searched)
      agree(mode, message(0, past));
    }
  });
});
