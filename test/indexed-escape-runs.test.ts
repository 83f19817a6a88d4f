// Strings dense with escapes through the indexed path, against the byte path
// (hooks.indexedPath(0)): stage 1's escaped quotes (structural.ts escapedBytes, a subtraction
// per block rather than a loop per backslash), the decoder's runs between escapes (indexed-text.ts
// copyToBackslash, whose last bytes are loaded as the 16 before the closing quote and shifted)
// and the cursor's jumps over the escape map (windows.ts advance).
// Backslash runs of every length across block edges, every escape kind, a string's end at every
// offset of a vector, and matches after any number of escapes. Where stage 1 takes a quote
// wrongly, the line most often falls to the per-message path, which writes the same: what
// shows it is that the indexed path did not take a valid line (`taken`).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { LINES } from '../src/stream/core-regions.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { B } from './hostile-lines.ts';
import { indexedGrowth, indexedTrace } from './indexed-trace.ts';
import { outputAppender } from './ndjson-scenarios.ts';
import { withoutStacks } from './no-stacks.ts';
import { expectBe, expectEqual } from './quick-expect.ts';
import { LINEAR_BOUND } from './scaling.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

type Mode = 'encode' | 'decode';
/** indexedTrace of `input` with no options, its errors without stacks (test/no-stacks.ts). */
const trace = (mode: Mode, input: Uint8Array, indexed: boolean) =>
  withoutStacks(() => indexedTrace(mode, input, {}, indexed, outputAppender));
/** Holds that the line's output, callbacks and errors are the same with the indexed path on and off; returns whether it took it. */
function agree(mode: Mode, text: string): boolean {
  const input = B(`${text}\n`);
  const on = trace(mode, input, true);
  expectEqual(trace(mode, input, false).log, on.log);
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
          const line = message(pad, pieces.join(''));
          const took = agree(mode, line);
          expectBe(took, rejected([line]).length === 0); // (each valid line taken)
          if (took) taken++;
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
            expectBe(agree(mode, message(before, body)), true);
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

// Backslash runs of every length (0-130) ending at every byte of a 64-byte block (so at every
// byte of a 16-byte vector), before a quote or not, through the lines region and the large
// path, whole and cut into pieces; each line's output and error (its message and byte) the
// same with the indexed path on and off, and the lines reported invalid exactly those
// JSON.parse rejects. (stage 1's carry, escapedBytes, on every parity and place.)
const TEXT_AT = message(0, '').length - 3; // where a string's text starts in message(0, ...)
/** A line whose string holds `run` backslashes, the last at byte `end` of a 64-byte block, then `next`. */
const runLine = (run: number, end: number, next: string) =>
  message((((end - TEXT_AT - run + 1) % 64) + 64) % 64, `${'\\'.repeat(run)}${next}`);
const NEXT = ['"', '', 'x', 'n', 'u0041', 'uD83D\\uDE00', '\\"', 'é"'];

/** The stream's trace (indexedTrace) with `input` pushed in pieces cut at `cuts`. */
const cutIndexedTrace = (mode: Mode, input: Uint8Array, cuts: number[], indexed: boolean) =>
  withoutStacks(() => indexedTrace(mode, input, {}, indexed, outputAppender, true, cuts));
/** The message numbers JSON.parse rejects, as the stream numbers them (from 1). */
const rejected = (lines: string[]) =>
  withoutStacks(() =>
    lines.flatMap((line, k) => {
      try {
        JSON.parse(line);
        return [];
      } catch {
        return [k + 1];
      }
    }),
  );
const invalidNumbers = (log: unknown[]) => log.filter((e) => Array.isArray(e) && e[0] === 'invalid').map((e) => (e as unknown[])[4]);

/**
 * For each run length, its lines (each of NEXT's pieces after it, ending at each byte of a block)
 * in two groups: those JSON.parse takes and those it rejects. Worked out once for both modes.
 */
let runGroups: { run: number; valid: string[]; invalid: string[] }[] | undefined;
const groupsOfRuns = () =>
  (runGroups ??= Array.from({ length: 131 }, (_, run) => {
    const lines = NEXT.flatMap((next) => Array.from({ length: 64 }, (_, end) => runLine(run, end, next)));
    const bad = new Set(rejected(lines));
    return { run, valid: lines.filter((_, k) => !bad.has(k + 1)), invalid: lines.filter((_, k) => bad.has(k + 1)) };
  }));

describe('backslash runs of every length ending at every byte of a block', () => {
  for (const mode of ['encode', 'decode'] as const)
    it(`${mode}: runs of 0-130 before a quote or not agree with the byte path and JSON.parse, each valid line taken`, () => {
      for (const { run, valid, invalid } of groupsOfRuns()) {
        // (Stage 1 taking a quote wrongly, the line is most often left to the per-message path,
        // which writes the same: the indexed path must take each valid line.)
        // (What JSON.parse rejects in each group, by how the groups were made: none of the
        // valid lines, every one of the invalid.)
        for (const [group, taken, rejects] of [
          [valid, valid.length, []],
          [invalid, 0, invalid.map((_, k) => k + 1)],
        ] as const) {
          const input = B(`${group.join('\n')}\n`);
          const on = trace(mode, input, true);
          expectEqual(trace(mode, input, false).log, on.log);
          expectEqual({ run, taken: on.taken, invalid: invalidNumbers(on.log) }, { run, taken, invalid: rejects });
        }
      }
    });

  it('a string whose text spans many blocks, every run length in turn, whole and cut (the large path)', () => {
    // Runs of 0-130, each before one of NEXT's pieces (those an odd run makes an invalid
    // escape left out): about 12 KB a time, twice at different places of a block (> LINES).
    const body = (shift: number) =>
      'q'.repeat(shift) +
      Array.from(
        { length: 131 },
        (_, run) => `${'\\'.repeat(run)}${run % 2 ? ['"', 'n', 'u0041', 'uD83D\\uDE00'][run % 4] : ['a', 'é', '\\"', 'Qwen'][run % 4]}`,
      ).join('');
    for (const mode of ['encode', 'decode'] as const) {
      const line = message(5, body(0) + body(37) + body(64 + 5));
      expect(() => JSON.parse(line)).not.toThrow();
      const input = B(`${line}\n${runLine(65, 63, '"')}\n`);
      expect(input.length).toBeGreaterThan(LINES);
      const off = trace(mode, input, false).log;
      const on = trace(mode, input, true);
      expect(on.log).toEqual(off);
      expect(on.taken).toBe(2);
      for (let c = 1; c < input.length; c += c < 300 ? 1 : 997)
        expectEqual(cutIndexedTrace(mode, input, [c], true), { log: off, taken: 2 });
    }
  });

  it('lines of runs cut at every byte and in pieces of every size up to 70, each valid line taken', () => {
    const all = [0, 1, 2, 15, 16, 17, 63, 64, 65, 128].flatMap((run) => [
      runLine(run, 62, '"'),
      runLine(run, 63, 'n'),
      runLine(run, 0, '\\"'),
    ]);
    const bad = new Set(rejected(all));
    // (The valid lines on their own too: the line after an invalid one goes the per-message way.)
    for (const lines of [all.filter((_, k) => !bad.has(k + 1)), all])
      for (const mode of ['encode', 'decode'] as const) {
        const input = B(`${lines.join('\n')}\n`);
        const off = trace(mode, input, false).log;
        expect(invalidNumbers(off)).toEqual(rejected(lines));
        const cutsOf = (size: number) => Array.from({ length: Math.ceil(input.length / size) - 1 }, (_, k) => (k + 1) * size);
        const cuts1 = lines === all ? [] : Array.from({ length: input.length - 1 }, (_, c) => [c + 1]);
        for (const cuts of [...cuts1, ...Array.from({ length: 70 }, (_, s) => cutsOf(s + 1))]) {
          const on = cutIndexedTrace(mode, input, cuts, true);
          expectEqual(on.log, off);
          if (lines !== all) expectBe(on.taken, lines.length);
        }
      }
  });
});

describe('hostile strings on the large path take linear time', () => {
  const head = '{"jsonrpc":"2.0","id":1,"result":';
  const fill = (unit: string, n: number) => unit.repeat(Math.floor(n / unit.length));
  const kinds: [string, string][] = [
    ['all backslashes', '\\\\'],
    ['escaped quotes', '\\"'],
    ['odd runs before a quote', '\\\\\\"'],
    ['a quote and a backslash in turn', '\\"\\\\'],
    ['lone high surrogates', '\\ud800'],
  ];
  for (const [name, unit] of kinds)
    for (const mode of ['encode', 'decode'] as const)
      it(`${name}, ${mode}: 8 lines of 200 KB cost about 4x 8 lines of 50 KB`, () => {
        const input = (n: number) => B(`${head}"${fill(unit, n)}"}\n`.repeat(8));
        const { growth, taken } = indexedGrowth(mode, input(50_000), input(200_000));
        expect(growth).toBeLessThan(LINEAR_BOUND);
        expect(taken).toBe(8); // (each line taken whole by the large path)
      });
});
