// Adversarial checks of held NDJSON lines (src/stream/ndjson.ts: a line cut by a chunk's end,
// with no message in progress, is copied and held until its '\n' arrives). Against the
// per-message path (`lines: false`), as a receiver reads it (asReceived): lines whose sizes sit
// on every edge (maxMessageBytes, the lane's 16 KiB region, the 256 KiB hold; +/- 1 and 2, with
// and without a CR), cuts right at and around each CR and LF (CRLF split three ways), empty
// chunks, reused buffers, tiny, fractional and huge limits, a lone CR inside a line, a last line
// without '\n', callbacks that throw while a line is held, custom terms and folding.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { LARGE_LINE, LINES } from '../src/stream/core-regions.ts';
import { createByteTransformer, createDecodeStream, createEncodeStream, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { countCalls } from './core-calls.ts';
import { asReceived, broken, cat, colliding, describeError, logText, outputAppender, written } from './ndjson-scenarios.ts';
import { bytes, run as runStream } from './stream-helpers.ts';

const REGION = LINES - 2; // the lane's region less a CRLF (a longer line is taken on its own, as a large line)
const HELD = LARGE_LINE - 2; // the most a held line may hold (pipe.holdable with the lane on)

/** The same message with its string's first two bytes an escape (`\n`): as long, and valid. */
function escapedAtStart(b: Uint8Array): Uint8Array {
  const out = b.slice();
  out.set(bytes('\\n'), '{"jsonrpc":"2.0","id":1,"result":"'.length);
  return out;
}

/** A valid message of exactly n bytes (n >= 40): an ASCII string value holding terms, padded. */
function sized(n: number, fill: string): Uint8Array {
  const head = '{"jsonrpc":"2.0","id":1,"result":"';
  const tail = '"}';
  const room = Math.max(0, n - head.length - tail.length);
  return bytes(head + fill.repeat(Math.ceil(room / fill.length)).slice(0, room) + tail);
}

// Lines: exact sizes around the limits and the region, the random scenario lines, a lone CR
// in the middle (whitespace between tokens; inside a string, invalid), whitespace-only lines.
const edge = fc.constantFrom(-2, -1, 0, 1, 2);
const lineSpec = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      at: fc.constantFrom('limit' as const, 'region' as const),
      d: edge,
      fill: fc.constantFrom('x', 'Qwen ', 'a Qwen'),
    }),
  },
  { weight: 3, arbitrary: written.map((b) => ({ b })) },
  { weight: 1, arbitrary: broken.map((b) => ({ b })) },
  { weight: 1, arbitrary: colliding.map((b) => ({ b })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '{"jsonrpc":"2.0",\r"id":1,"result":"Qwen"}',
        '{"jsonrpc":"2.0","id":1,"result":"Qw\ren"}',
        '{"jsonrpc":"2.0","id":1,"result":"Qwen"}\r',
        '\r\r',
        '\r',
        ' ',
        '',
        '{"jsonrpc":"2.0","id":1,"result":"\uFFFD Qwen"}',
      )
      .map((t) => ({ b: bytes(t) })),
  },
);

const scenario = fc.record({
  mode: fc.constantFrom('encode' as const, 'decode' as const),
  specs: fc.array(lineSpec, { minLength: 1, maxLength: 6 }),
  crlf: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  lastEnded: fc.boolean(),
  // The limit: tiny, fractional, an exact line size (set below), the region's edge, huge.
  limit: fc.oneof(
    fc.constantFrom(0.5, 1, 2, 3, 40.5, REGION - 1, REGION, REGION + 1, REGION + 2, 1e12, Number.POSITIVE_INFINITY),
    fc.integer({ min: 40, max: 400 }),
  ),
  onInvalid: fc.constantFrom('off' as const, 'log' as const, 'throw' as const),
  onCollision: fc.constantFrom('off' as const, 'log' as const, 'throw' as const),
  // Cuts: random points, and points at and around each CR and LF (a CRLF split three ways).
  cuts: fc.array(fc.nat(40000), { maxLength: 8 }),
  aroundEndings: fc.array(fc.tuple(fc.nat(), fc.constantFrom(-1, 0, 1, 2)), { maxLength: 6 }),
  oneByte: fc.boolean(),
  empties: fc.array(fc.nat(), { maxLength: 3 }), // empty chunks at these chunk indexes
  reuse: fc.boolean(), // one buffer, overwritten for each chunk
  // Or pieces of one size pushed in the same buffer object each time (its owner overwrites it).
  same: fc.option(fc.oneof(fc.integer({ min: 1, max: 400 }), fc.constantFrom(REGION, REGION + 1, REGION + 2, REGION + 3)), { freq: 3 }),
  codec: fc.constantFrom<StreamOptions>({}, { terms: { exact: ['x', 'Qwen'] } }, { fold: 'nfkc' }, { terms: { ascii: ['en', 'a Q'] } }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

function render(s: Scenario): { input: Uint8Array; limit: number } {
  const limit = s.limit;
  const lines = s.specs.map((p) => {
    if ('b' in p) return p.b;
    const base = p.at === 'region' ? REGION : Number.isFinite(limit) && limit < 1e6 ? Math.floor(limit) : 200;
    return sized(Math.max(40, base + p.d), p.fill);
  });
  const parts = lines.map((l, i) => (i === lines.length - 1 && !s.lastEnded ? l : cat(l, bytes(s.crlf[i] ? '\r\n' : '\n'))));
  return { input: cat(...parts), limit };
}

function chunksOf(s: Scenario, input: Uint8Array): Uint8Array[] {
  if (s.oneByte && input.length < 3000) return Array.from(input, (b) => new Uint8Array([b]));
  const endings: number[] = [];
  input.forEach((b, i) => {
    if (b === 0x0a || b === 0x0d) endings.push(i);
  });
  const points = new Set(s.cuts.map((p) => Math.min(p, input.length)));
  for (const [k, d] of s.aroundEndings)
    if (endings.length > 0) points.add(Math.max(0, Math.min(input.length, endings[k % endings.length]! + d)));
  const sorted = [...points].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const p of [...sorted, input.length]) {
    if (p > from) chunks.push(input.slice(from, p));
    from = p;
  }
  for (const e of s.empties) chunks.splice(e % (chunks.length + 1), 0, new Uint8Array(0));
  return chunks;
}

/** What a stream did: output between callbacks (logText), callbacks, the error it threw. */
function trace(s: Scenario, lines: boolean): unknown[] {
  const { input, limit } = render(s);
  const log: unknown[] = [];
  const out = outputAppender(log);
  const callback = (how: 'off' | 'log' | 'throw', name: string) =>
    how === 'off'
      ? undefined
      : (e: unknown) => {
          log.push([name, ...describeError(e)]);
          if (how === 'throw') throw new Error(`${name} callback threw`);
        };
  const t = byteTransformer(
    s.mode,
    {
      ...s.codec,
      maxMessageBytes: limit,
      onInvalidMessage: callback(s.onInvalid, 'invalid'),
      onCollision: callback(s.onCollision, 'dropped'),
    },
    out,
    { lines },
  );
  const buffer = new Uint8Array(Math.max(1, ...chunksOf(s, input).map((c) => c.length)));
  try {
    if (s.same !== null) {
      const same = new Uint8Array(s.same);
      for (let at = 0; at < input.length; at += s.same) {
        const piece = input.subarray(at, at + s.same);
        if (piece.length < s.same) t.push(piece.slice());
        else {
          same.set(piece);
          t.push(same);
          same.fill(0x22);
        }
      }
      t.close();
      return log;
    }
    for (const c of chunksOf(s, input)) {
      if (s.reuse && c.length > 0) {
        buffer.set(c);
        t.push(buffer.subarray(0, c.length));
        buffer.fill(0x22); // its owner overwrites it (a quote: anything held uncopied breaks)
      } else t.push(c);
    }
    t.close();
  } catch (e) {
    log.push(['threw', ...describeError(e)]);
  }
  return log;
}

/** Exact when nothing was invalid: only what an invalid message writes before its error may differ. */
const anyInvalid = (log: unknown[]) => log.some((e) => Array.isArray(e) && (e[0] === 'invalid' || e[0] === 'threw'));

describe('held NDJSON lines, adversarially', () => {
  it('change nothing a receiver reads, on lines at every edge, however they are cut', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const on = trace(s, true);
        const off = trace(s, false);
        if (!anyInvalid(off) && !anyInvalid(on)) expect(on).toEqual(off);
        expect(asReceived(on)).toEqual(asReceived(off));
      }),
      runs(150),
    );
  });

  it('a line one byte over the limit held in pieces reports the same error at the same byte', () => {
    // Every cut into lines at, under and over the limit, ending LF, CRLF, or nothing (closed),
    // with a CR split from its LF: the same too-large error (message number, byte offset).
    for (const limit of [1, 2, 41, 64]) {
      for (const size of [limit - 1, limit, limit + 1, limit + 2]) {
        for (const ending of ['\n', '\r\n', '\r', '']) {
          const body = size >= 40 ? sized(size, 'Qwen ') : bytes('1'.repeat(Math.max(0, size)));
          const input = cat(bytes('{"jsonrpc":"2.0","method":"m"}\n'.slice(0, limit >= 31 ? 31 : 0)), body, bytes(ending), bytes('7\n'));
          for (let a = 0; a <= input.length; a++) {
            for (const b of [a + 1, a + 2]) {
              const chunks = [input.subarray(0, a), input.subarray(a, b), input.subarray(b)];
              const go = (lines: boolean) => {
                const log: unknown[] = [];
                const t = byteTransformer(
                  'encode',
                  { maxMessageBytes: limit, onInvalidMessage: (e) => void log.push(['invalid', ...describeError(e)]) },
                  (o) => void log.push(logText(o)),
                  { lines },
                );
                for (const c of chunks) t.push(c.slice());
                t.close();
                return log;
              };
              const on = go(true);
              const off = go(false);
              expect(on.filter((e) => Array.isArray(e))).toEqual(off.filter((e) => Array.isArray(e)));
              expect(asReceived(on)).toEqual(asReceived(off));
            }
          }
        }
      }
    }
  });

  it('takes a line of exactly the bound through the lane whole, its CRLF split anywhere', () => {
    for (const [limit, size] of [
      [100, 100],
      [REGION + 50, REGION],
      [REGION, REGION],
      [HELD + 50, HELD],
      [HELD, HELD],
    ]) {
      // (Past the lane's region a line is held only with an escape in it: one at its start.)
      const line = cat(escapedAtStart(sized(size!, 'a Qwen')), bytes('\r\n'));
      const input = cat(line, line, line);
      for (const cut of [size! - 1, size!, size! + 1, size! + 2]) {
        for (const second of [0, 1]) {
          const { perMessage } = countCalls(() => {
            const t = createByteTransformer('encode', { maxMessageBytes: limit }, () => {});
            let from = 0;
            for (const p of [cut, cut + second, input.length]) {
              t.push(input.slice(from, p));
              from = p;
            }
            t.close();
          });
          expect(perMessage).toBe(0);
        }
      }
    }
  });

  it('reads a reused chunk buffer that ends at a line end as it is now, not as the lane copied it last time', () => {
    // A chunk cut mid-line is held and the rest of the next push is a new view, so only a push
    // that starts on a line boundary hands the lane the very buffer object it read last time
    // (stream-ndjson-lane's reuse case no longer reaches this since lines are held).
    for (const mode of ['encode', 'decode'] as const) {
      const out: Uint8Array[] = [];
      const t = createByteTransformer(mode, {}, (b) => void out.push(b.slice()));
      const buffer = new Uint8Array(22);
      const lines = ['{"id":1,"result":"a"}\n', '{"id":2,"result":"b"}\n', '{"id":3,"result":"c"}\n'];
      for (const l of lines) {
        buffer.set(bytes(l));
        t.push(buffer);
      }
      t.close();
      expect(Buffer.concat(out).toString()).toBe(lines.join(''));
    }
  });

  it('holds no more than its bound: a line with no end, pushed a byte at a time, goes out as it would without holding', () => {
    // 64 KiB past the bound without '\n', in 7-byte pieces and pieces around the bound: the held
    // copy never grows past it (add() would throw past its capacity) and the output equals the
    // per-message path's.
    const line = sized(HELD + 64 * 1024, 'Qwen ');
    for (const size of [7, 1000, HELD - 1, HELD, HELD + 1, HELD + 2]) {
      const go = (lines: boolean) => {
        const out: Buffer[] = [];
        const t = byteTransformer('encode', {}, (o) => void out.push(Buffer.from(o)), { lines });
        for (let at = 0; at < line.length; at += size) t.push(line.slice(at, at + size));
        t.close();
        return Buffer.concat(out);
      };
      expect(go(true).equals(go(false))).toBe(true);
    }
  });

  it('the TransformStream API agrees with the per-message path, chunks cut around line ends', async () => {
    const input = cat(
      sized(REGION, 'Qwen '),
      bytes('\r\n'),
      sized(100, 'a Qwen'),
      bytes('\n\r\n \n'),
      sized(REGION + 1, 'x'),
      bytes('\r\n'),
      bytes('{"jsonrpc":"2.0","id":2,"result":"__mcp_ref_5177656e__"}'),
    );
    const cutsAt = [REGION - 1, REGION, REGION + 1, REGION + 2, REGION + 3, REGION + 110, 2 * REGION + 120, 2 * REGION + 121];
    const pieces: Uint8Array[] = [];
    let from = 0;
    for (const p of [...cutsAt, input.length]) {
      pieces.push(input.slice(from, p));
      from = p;
    }
    for (const [mode, make] of [
      ['encode', createEncodeStream],
      ['decode', createDecodeStream],
    ] as const) {
      const got = await runStream(
        make({}),
        pieces.map((p) => p.slice()),
      );
      const out: Uint8Array[] = [];
      const t = byteTransformer(mode, {}, (o) => void out.push(o.slice()), { lines: false });
      t.push(input);
      t.close();
      expect(Buffer.from(got).equals(Buffer.concat(out))).toBe(true);
    }
  });
});
