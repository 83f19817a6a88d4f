// Whole messages longer than the batch regions (16 KiB) and shorter than LARGE_LINE (256 KiB),
// NDJSON lines and Content-Length bodies, are held until they end and taken on their own by the
// indexed path, in regions made for the call with an escape map of their own
// (src/stream/large-message.ts). Longer ones, and any the indexed path refuses, go the
// per-message way. None of it may change what a receiver reads: against the per-message path,
// on messages of every shape and size around both edges (escapes past any map, terms, tokens,
// images with their base64 before and after their type, schemas, invalid ones), cut at random
// or through a reused buffer.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { LARGE_LINE, LINES } from '../src/stream/core-regions.ts';
import { createByteTransformer } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { asReceived, outputAppender, render, type Scenario, scenarioOf, trace, line as usualLine, written } from './ndjson-scenarios.ts';
import { expectBe, expectEqual } from './quick-expect.ts';
import { bytes, streamAgreesWithObjectApi } from './stream-helpers.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

// Payload text as JSON writes it: escapes of every kind (a lone surrogate too), terms, tokens
// (which decoding restores), multi-byte characters, and a quote's and a backslash's escapes.
const piece = fc.constantFrom(
  'Qwen ',
  'qwen',
  'DashScope ',
  '通义千问',
  'a\\nb ',
  '\\"',
  '\\\\',
  '\\u00e9',
  '\\ud83d\\ude00',
  '\\ud83d',
  '\\/',
  '\\t',
  '中文 😀 ',
  '__mcp_ref_7177656e__',
  '__mcp_ref_5177656e__ ',
  'plain ASCII text, long enough to leave a 64-byte block without a quote in it. ',
);
const text = fc.array(piece, { minLength: 1, maxLength: 12 }).map((p) => p.join(''));
/** `unit` repeated to about n bytes (whole units: an escape is never cut). */
const repeat = (unit: string, n: number) => unit.repeat(Math.max(1, Math.floor(n / Buffer.byteLength(unit))));
/** A short name from `t`: the longest start of it, up to 20 characters, that cuts no escape. */
const nameOf = (t: string) => {
  const chars = [...t]; // (a surrogate pair is not cut either)
  for (let k = Math.min(20, chars.length); k > 0; k--) {
    const name = chars.slice(0, k).join('');
    try {
      JSON.parse(`"${name}"`);
      return name;
    } catch {}
  }
  return 'x';
};
const base64 = (n: number) => repeat('iVBORw0KGgoAAAANSUhEUgAAA+/Qwen', n).slice(0, n);

/** A message of about `n` bytes in one of the shapes large MCP messages take. */
const shaped = (shape: number, n: number, t: string): string => {
  switch (shape) {
    case 0: // one long text
      return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${repeat(t, n)}"}]}}`;
    case 1: {
      // many short strings (an app list)
      const entry = `{"name":"${nameOf(t)}","path":"/Applications/${nameOf(t)}.app","pid":42}`;
      return `{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"apps":[${Array(Math.floor(n / (Buffer.byteLength(entry) + 1)))
        .fill(entry)
        .join(',')}]}}}`;
    }
    case 2: // an image, its type first
      return `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"image","data":"${base64(n)}","mimeType":"image/png"},{"type":"text","text":"${t}"}]}}`;
    case 3: // an image, its data first (the host holds it until the type is known)
      return `{"jsonrpc":"2.0","id":4,"result":{"content":[{"data":"${base64(n)}","type":"image","mimeType":"image/png"}]}}`;
    case 4: {
      // a tool list (maxLength widened when encoding)
      const tool = `{"name":"${nameOf(t)}","inputSchema":{"type":"object","properties":{"app":{"type":"string","maxLength":64}}}}`;
      return `{"jsonrpc":"2.0","id":5,"result":{"tools":[${Array(Math.floor(n / (Buffer.byteLength(tool) + 1)))
        .fill(tool)
        .join(',')}]}}`;
    }
    default: // a request with a long argument
      return `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write","arguments":{"text":"${repeat(t, n)}"}}}`;
  }
};

// Sizes: at both edges (the region, LARGE_LINE) and anywhere between, a little past the top.
const size = fc.oneof(
  fc.integer({ min: LINES - 4, max: LINES + 4 }),
  fc.integer({ min: LARGE_LINE - 4, max: LARGE_LINE + 4 }),
  fc.integer({ min: LINES, max: LARGE_LINE + 4096 }),
);

/** A line of exactly `n` bytes when the shape allows (padded with spaces), spoiled or not. */
const large = fc.record({ shape: fc.nat(5), n: size, t: text, spoil: fc.nat(9), at: fc.nat() }).map(({ shape, n, t, spoil, at }) => {
  let b = bytes(shaped(shape, n - 160, t));
  if (b.length < n) {
    // (Set into place, not spread through an array of numbers: half the file's time.)
    const padded = new Uint8Array(n).fill(0x20);
    padded.set(b);
    b = padded;
  }
  const k = at % b.length;
  // Spoiled: a control byte, bad UTF-8, cut short; the per-message path names the place.
  if (spoil === 0) b[k] = 0x01;
  else if (spoil === 1) b[k] = 0xff;
  else if (spoil === 2) b = b.subarray(0, k);
  return b;
});

/** Random streams of large and usual lines, cut anywhere (no one-byte pushes: the lines are long). */
const scenario = fc
  .tuple(
    scenarioOf(fc.oneof({ weight: 2, arbitrary: large }, { weight: 3, arbitrary: usualLine })),
    fc.oneof(
      fc.record({ cuts: fc.array(fc.nat(2 * LARGE_LINE), { maxLength: 12 }) }),
      fc.record({ reuse: fc.integer({ min: 1024, max: 80_000 }) }),
    ),
  )
  .map(([s, chunking]): Scenario => ({ ...s, lines: s.lines.slice(0, 5), chunking }));

describe('large messages', () => {
  it('read as the per-message path writes them, however the stream is cut', () => {
    const before = hooks.indexedPath(1);
    fc.assert(
      fc.property(scenario, (s) => {
        const stream = render(s);
        expectEqual(asReceived(trace(s, stream, true)), asReceived(trace(s, stream, false)));
        // With the lane on, the indexed path off: exactly the same (both hold the same way).
        const on = trace(s, stream, true);
        hooks.indexedPath(0);
        expectEqual(trace(s, stream, true), on);
        hooks.indexedPath(1);
      }),
      runs(40),
    );
    expect(hooks.indexedPath(1)).toBeGreaterThan(before);
  });

  it('takes a line longer than the region whole, whether it arrives whole or in pieces', () => {
    const t = 'Qwen a\\nb \\"通义\\u00e9 ';
    for (const shape of [0, 1, 2, 4, 5]) {
      for (const n of [LINES + 1, 100_000, LARGE_LINE - 400]) {
        const input = bytes(`${shaped(shape, n, t)}\n`);
        for (const chunk of [input.length, 65_536, 4096]) {
          const taken = hooks.indexedPath(1);
          const t1 = createByteTransformer('encode', {}, () => {});
          for (let i = 0; i < input.length; i += chunk) t1.push(input.subarray(i, i + chunk));
          t1.close();
          // (An image first: no escape in what has come when the line outgrows the lane's region,
          // so it is not held, and streams the per-message way unless it came whole.)
          const whole = chunk >= input.length;
          expectEqual([shape, n, chunk, hooks.indexedPath(1) - taken], [shape, n, chunk, whole || shape !== 2 ? 1 : 0]);
        }
      }
    }
  });

  it('takes long ASCII strings whatever place their closing quote has in a 64-byte block', () => {
    // (Stage 1 passes over plain blocks in one compare each: a quote it missed there would make
    // the indexed path refuse the message, unseen in the output but not in what it takes.)
    for (let k = 0; k < 64; k++) {
      const after = 'y'.repeat(200); // (so that the closing quote may fall anywhere in a whole block)
      const lines = [
        shaped(2, 20_000 + k, after),
        `{"a":"${'x'.repeat(20_000 + k)}","b":"${after}"}`,
        shaped(0, 20_000 + k, 'plain ASCII '),
      ];
      const input = bytes(`${lines.join('\n')}\n`);
      const taken = hooks.indexedPath(1);
      const t = createByteTransformer('encode', {}, () => {});
      t.push(input);
      t.close();
      expectEqual([k, hooks.indexedPath(1) - taken], [k, 3]);
    }
  });

  it('reads every quote after a run of plain blocks, wherever it falls in a block', () => {
    // A quote missed there would end the text at `Qwen…"`, and `Qwen`, a method name, would be
    // encoded as payload. The per-message path is the reference, a byte at a time in effect.
    for (let k = 0; k < 64; k++) {
      const input = bytes(`{"params":{"text":"${'x'.repeat(20_000 + k)}"},"method":"Qwen${'z'.repeat(100)}","jsonrpc":"2.0","id":1}\n`);
      const run = (lines: boolean) => {
        const out: Uint8Array[] = [];
        const t = byteTransformer('encode', {}, (b) => void out.push(b.slice()), { lines });
        t.push(input);
        t.close();
        return Buffer.concat(out).toString();
      };
      const taken = hooks.indexedPath(1);
      expectEqual([k, run(true)], [k, run(false)]);
      expectBe(hooks.indexedPath(1) - taken, 1);
    }
  });

  it('leaves lines past LARGE_LINE to the per-message path, and takes images whose data comes first', () => {
    // (A `data` before its `type` is read ahead on the indexed path: assembly/json/indexed-media.ts.)
    for (const [input, takes] of [
      [bytes(`${shaped(0, LARGE_LINE + 10, 'Qwen ')}\n`), 0],
      [bytes(`${shaped(3, 40_000, 'x')}\n`), 1],
    ] as const) {
      const taken = hooks.indexedPath(1) + takes;
      const out: Uint8Array[] = [];
      const t = createByteTransformer('encode', {}, (b) => void out.push(b.slice()));
      t.push(input);
      t.close();
      expectBe(hooks.indexedPath(1), taken);
      hooks.indexedPath(0);
      const ref: Uint8Array[] = [];
      const r = createByteTransformer('encode', {}, (b) => void ref.push(b.slice()));
      r.push(input);
      r.close();
      expectBe(Buffer.concat(out).equals(Buffer.concat(ref)), true); // (toEqual on a megabyte takes seconds)
      hooks.indexedPath(1);
    }
  });

  it('transforms each large message as the object API does, encoding and decoding', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('encode' as const, 'decode' as const),
        fc.array(fc.record({ shape: fc.nat(5), n: fc.integer({ min: LINES, max: LARGE_LINE - 1024 }), t: text }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.array(fc.nat(3 * LARGE_LINE), { maxLength: 8 }),
        (mode, specs, cuts) => {
          const input = specs.map(({ shape, n, t }) => `${shaped(shape, n, t)}\n`).join('');
          streamAgreesWithObjectApi(mode, {}, input, cuts);
        },
      ),
      runs(20),
    );
  });

  it('agrees with the per-message path on written messages padded past the region', () => {
    // Random messages as JSON writers emit them, with long padding in a payload string.
    const padded = fc.tuple(written, fc.integer({ min: LINES, max: 4 * LINES }), text).map(([w, n, t]) => {
      const m = Buffer.from(w).toString();
      return bytes(m.replace(/^\{/, `{"_pad":"${repeat(t, n)}",`));
    });
    fc.assert(
      fc.property(scenarioOf(padded), (s0) => {
        const s: Scenario = { ...s0, lines: s0.lines.slice(0, 3), chunking: { cuts: [] } };
        const stream = render(s);
        expectEqual(asReceived(trace(s, stream, true)), asReceived(trace(s, stream, false)));
      }),
      runs(30),
    );
  });

  // Content-Length bodies and SSE events (one data line each, unless the body holds a line break).
  const framings = {
    'content-length': (body: Uint8Array) => Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]),
    sse: (body: Uint8Array) =>
      Buffer.concat([
        Buffer.from('event: message\n'),
        ...Buffer.from(body)
          .toString('latin1')
          .split('\n')
          .map((l) => Buffer.concat([Buffer.from('data: '), Buffer.from(l, 'latin1'), Buffer.from('\n')])),
        Buffer.from('\n'),
      ]),
  };
  for (const [framing, frame] of Object.entries(framings) as [keyof typeof framings, (b: Uint8Array) => Buffer][]) {
    it(`${framing}: a message longer than a batch is taken whole, as the per-message path writes it`, () => {
      fc.assert(
        fc.property(
          fc.constantFrom('encode' as const, 'decode' as const),
          fc.array(fc.oneof(large, written), { minLength: 1, maxLength: 4 }),
          fc.array(fc.nat(3 * LARGE_LINE), { maxLength: 10 }),
          fc.boolean(),
          (mode, bodies, cuts, lenient) => {
            const input = new Uint8Array(Buffer.concat(bodies.map(frame)));
            const run = (lines: boolean) => {
              const log: unknown[] = [];
              const options = {
                framing,
                onInvalidMessage: lenient ? (e: unknown) => void log.push(['invalid', String(e)]) : undefined,
              };
              const t = byteTransformer(mode, options, outputAppender(log), { lines });
              try {
                let from = 0;
                for (const p of [...new Set(cuts.map((c) => Math.min(c, input.length)))].sort((a, b) => a - b).concat(input.length)) {
                  if (p > from) t.push(input.slice(from, p));
                  from = Math.max(from, p);
                }
                t.close();
              } catch (e) {
                log.push(['threw', String(e)]);
              }
              return log;
            };
            expectEqual(run(true), run(false));
          },
        ),
        runs(30),
      );
      // And it is taken: whole, and held across 64 and 4 KiB chunks, whatever its shape. (Unlike
      // an NDJSON line, an image is held too: streamed the per-frame way instead, screenshots
      // took 0.94-1.11x the time: no gain.)
      for (const shape of [0, 1, 2, 4, 5]) {
        for (const n of [LINES + 1, 100_000, LARGE_LINE - 400]) {
          const input = new Uint8Array(frame(bytes(shaped(shape, n, 'Qwen a\\nb '))));
          for (const chunk of [input.length, 65_536, 4096]) {
            const taken = hooks.indexedPath(1);
            const t = createByteTransformer('encode', { framing }, () => {});
            for (let i = 0; i < input.length; i += chunk) t.push(input.subarray(i, i + chunk));
            t.close();
            expectEqual([shape, n, chunk, hooks.indexedPath(1) - taken], [shape, n, chunk, 1]);
          }
        }
      }
    });
  }
});
