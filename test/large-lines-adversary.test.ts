// Adversarial checks of large NDJSON lines (longer than the lines region, shorter than
// LARGE_LINE: held until they end, then taken whole by the indexed path in regions made for the
// call; src/stream/large-message.ts), against the per-message path (`lines: false`) as a
// receiver reads it (asReceived): output expansion with 1-byte terms (14 bytes per input byte),
// escapes past the lent escape map, lone surrogates, every special byte at every place of a
// block after a run of plain blocks (skipPlainBlocks), plain blocks outside strings, sizes at
// LINES and LARGE_LINE -2..+1 with and without CR and limits at them, many large lines in one
// chunk, collisions when decoding, invalid large lines, reused buffers, WASM memory growing
// inside the emit callback; and what a stream keeps after large lines (the carry, the batch).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { allocate, free, heap, heapStats } from '../src/core/memory.ts';
import { OutputBatch } from '../src/stream/batch.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { Carry } from '../src/stream/carry.ts';
import { LARGE_LINE, LINES } from '../src/stream/core-regions.ts';
import { createByteTransformer, type StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { asReceived, cat, describeError, outputAppender, type Scenario, trace, line as usualLine } from './ndjson-scenarios.ts';
import { withoutStacks } from './no-stacks.ts';
import { expectEqual } from './quick-expect.ts';
import { bytes } from './stream-helpers.ts';

// (The core with test hooks, in a module graph of its own: a case measures how much WASM memory
// a line grows, which a file before it in a shared graph would have grown already.)
vi.mock('../src/core/wasm-bytes.ts', () => import('./wasm-bytes-with-hooks.ts'));

// Default terms, 1-byte exact terms (the most expansion: 'x' → `__mcp_ref_78__`), ASCII-folded ones.
const CODECS: [StreamOptions, StreamOptions, StreamOptions] = [{}, { terms: { exact: ['x', 'Qwen'] } }, { terms: { ascii: ['y', 'en'] } }];
const small = bytes('{"jsonrpc":"2.0","id":2,"result":"Qwen x y"}');

/** A text result whose text is `body` (raw JSON string text), padded with spaces to n bytes. */
function textLine(body: string, n = 0): Uint8Array {
  const b = bytes(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${body}"}]}}`);
  return b.length >= n ? b : cat(b, new Uint8Array(n - b.length).fill(0x20));
}

/** A scenario (any limit: trace takes a number or a line's size and a delta). */
type Sc = Omit<Scenario, 'limit'> & { limit: number | undefined | [number, number] };

/** A scenario of `lines`, each ended with '\n' unless `extra` says otherwise; callbacks logged. */
function scen(mode: 'encode' | 'decode', lines: Uint8Array[], chunking: Scenario['chunking'], extra: Partial<Sc> = {}): Sc {
  return {
    mode,
    lines,
    crlf: Array(12).fill(false),
    lastEnded: true,
    limit: undefined,
    onInvalid: true,
    onCollision: true,
    chunking,
    ...extra,
  };
}

const rendered = (s: Sc) =>
  cat(...s.lines.map((l, i) => (i === s.lines.length - 1 && !s.lastEnded ? l : cat(l, bytes(s.crlf[i] ? '\r\n' : '\n')))));

/** Lane (large lines whole) and per-message path, as a receiver reads them. */
function agree(s0: Sc, codec: StreamOptions = {}, what: unknown = ''): void {
  const s = s0 as Scenario;
  const input = rendered(s0);
  const [on, off] = withoutStacks(() => [trace(s, input, true, codec), trace(s, input, false, codec)]);
  expectEqual([what, asReceived(on)], [what, asReceived(off)]);
}

/** `line` encoded by the per-message path (a decode input full of tokens), or as it is when invalid. */
function encoded(line: Uint8Array, codec: StreamOptions): Uint8Array {
  const out: Uint8Array[] = [];
  const t = byteTransformer('encode', codec, (b) => void out.push(b.slice()), { lines: false });
  try {
    t.push(cat(line, bytes('\n')));
    t.close();
  } catch {
    return line;
  }
  const all = cat(...out);
  return all.subarray(0, all.length - 1);
}

const CHUNKINGS: Scenario['chunking'][] = [{ cuts: [] }, { cuts: [1000, 5000, 70_000, 150_000] }, { reuse: 65_536 }];

describe('large NDJSON lines, adversarially', () => {
  it('expand, escape and decode as the per-message path does (1-byte terms, escapes past the map, lone surrogates)', () => {
    const bodies: Record<string, string> = {
      xs: 'x'.repeat(200_000), // 2.8 MB of tokens (past the batch's 1 MiB)
      ys: 'y'.repeat(200_000),
      xy: 'xy '.repeat(60_000),
      escN: '\\n'.repeat(100_000), // 100,000 escapes, the lent map holds n / 8
      escX: '\\u0078'.repeat(30_000), // each escape decodes to a match
      escMix: 'x\\nx'.repeat(50_000),
      lone: '\\ud83d'.repeat(30_000),
      loneLow: 'x\\udc00x'.repeat(20_000),
      pairs: '\\ud83d\\ude00x'.repeat(15_000),
      cjk: '通义千问x'.repeat(15_000),
      quotes: '\\"x'.repeat(60_000),
      backslashes: '\\\\x'.repeat(60_000),
    };
    const taken = hooks.indexedPath(1);
    for (const [name, body] of Object.entries(bodies)) {
      const line = textLine(body);
      for (const [c, codec] of CODECS.entries()) {
        const e = encoded(line, codec); // (decoded as it came when too long to be a large line)
        for (const chunking of CHUNKINGS) {
          agree(scen('encode', [line, small], chunking), codec, [name, c, 'encode', chunking]);
          agree(scen('decode', [e.length < LARGE_LINE ? e : line, small], chunking), codec, [name, c, 'decode', chunking]);
        }
      }
    }
    expect(hooks.indexedPath(1) - taken).toBeGreaterThan(100);
  });

  it('reads every byte after a run of plain blocks, at every place of a block', () => {
    const specials: [string, Uint8Array][] = [
      ['quote', bytes('"')],
      ['\\n', bytes('\\n')],
      ['\\"', bytes('\\"')],
      ['\\u0078', bytes('\\u0078')],
      ['\\ud83d', bytes('\\ud83d')],
      ['0x01', new Uint8Array([1])],
      ['tab', new Uint8Array([9])],
      ['0x7f', new Uint8Array([0x7f])],
      ['0x80', new Uint8Array([0x80])],
      ['0xc3 alone', new Uint8Array([0xc3])],
      ['0xff', new Uint8Array([0xff])],
      ['é', bytes('é')],
      ['通', bytes('通')],
      ['😀', bytes('😀')],
    ];
    for (const [name, special] of specials) {
      for (let k = 0; k < 64; k++) {
        const line = cat(
          bytes(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${'p'.repeat(20_000 + k)}`),
          special,
          bytes(`${'x'.repeat(300)} Qwen"}]}}`),
        );
        agree(scen('encode', [line, small], { cuts: [] }), CODECS[1], [name, k]);
      }
    }
    // Plain blocks outside strings: numbers, spaces, literals, then strings at every place.
    for (let k = 0; k < 64; k++) {
      for (const m of [
        `[${'1,'.repeat(10_000 + k)}"Qwen x",${' '.repeat(200)}"x"]`,
        `{"a":${' '.repeat(20_000 + k)}"Qwen x","method":"Qwen","b":[${'\t'.repeat(300)}]}`,
        `[${'true,'.repeat(4_000)}${'null,'.repeat(k)}"Qwen", "x"]`,
      ]) {
        for (const mode of ['encode', 'decode'] as const)
          agree(scen(mode, [bytes(m), small], { cuts: [] }), CODECS[1], [k, mode, m.slice(0, 12)]);
      }
    }
  });

  it('agrees at LINES and LARGE_LINE (-2..+1), with and without CR, with limits at the size', () => {
    for (const n of [LINES - 1, LINES, LINES + 1, LARGE_LINE - 2, LARGE_LINE - 1, LARGE_LINE, LARGE_LINE + 1]) {
      const line = textLine('Qwen x'.repeat(Math.floor((n - 100) / 6)), n);
      for (const crlf of [false, true]) {
        for (const limit of [undefined, n - 1, n]) {
          for (const chunking of CHUNKINGS) {
            agree(scen('encode', [line, small, line], chunking, { crlf: Array(12).fill(crlf), limit }), CODECS[1], [
              n,
              crlf,
              limit,
              chunking,
            ]);
          }
        }
      }
    }
  });

  it('agrees on many large lines in a chunk, small ones between, collisions and invalid large lines', () => {
    const big = textLine('Qwen x'.repeat(5000));
    const collision = bytes(
      `{"jsonrpc":"2.0","id":1,"result":{"pad":"${'p'.repeat(20_000)}","list":[{"__mcp_ref_5177656e__":1,"Qwen":2}]}}`,
    );
    for (const chunking of CHUNKINGS) {
      agree(scen('encode', [big, big, small, big, small, small, big], chunking), CODECS[1]);
      agree(scen('encode', [big, small, big], chunking, { lastEnded: false }), CODECS[1]);
      for (const onCollision of [true, false]) agree(scen('decode', [collision, small, collision], chunking, { onCollision }));
      for (const bad of ['{"a":"x"} x', '{"a":"x"', '{"a":"x\u0001"}', '{"a":"x"}}']) {
        const line = bytes(bad.replace('"x', `"${'Qwen '.repeat(5000)}`));
        for (const onInvalid of [true, false]) agree(scen('encode', [small, line, small], chunking, { onInvalid }), {}, [bad, onInvalid]);
      }
    }
  });

  it('agrees when the emit callback grows WASM memory in the middle of a large line', () => {
    // 2.8 MB of output: the batch lets full chunks out while the line's regions are still held.
    const line = textLine('x'.repeat(200_000));
    const input = cat(line, bytes('\n'), small, bytes('\n'), line, bytes('\n'));
    const run = (lines: boolean, grow: boolean) => {
      const out: Uint8Array[] = [];
      let k = 0;
      const t = byteTransformer(
        'encode',
        CODECS[1],
        (b) => {
          out.push(b.slice());
          if (!grow) return;
          // A codec with new terms compiled here, and a large line of its own.
          const inner = createByteTransformer('encode', { terms: { exact: [`term${k++}`, `zz${'q'.repeat(k)}`] } }, () => {});
          inner.push(cat(textLine('zzq '.repeat(30_000)), bytes('\n')));
          inner.close();
        },
        { lines },
      );
      t.push(input);
      t.close();
      return Buffer.concat(out);
    };
    const reference = run(false, false);
    expect(run(true, true).equals(reference)).toBe(true);
    expect(run(true, false).equals(reference)).toBe(true);
  });

  it('agrees on random streams of large and usual lines, with custom terms, decoding tokens', () => {
    const piece = fc.constantFrom(
      'x',
      'y',
      'Qwen',
      'en ',
      '\\n',
      '\\"',
      '\\\\',
      '\\u0078',
      '\\ud83d',
      '\\udc00',
      '\\ud83d\\ude00',
      '通义',
      'é',
      '😀',
      ' ',
      'p'.repeat(70),
    );
    const large = fc
      .record({
        body: fc.array(piece, { minLength: 1, maxLength: 8 }).map((p) => p.join('')),
        n: fc.oneof(
          fc.integer({ min: LINES - 300, max: LINES + 300 }),
          fc.integer({ min: LARGE_LINE - 300, max: LARGE_LINE + 10 }),
          fc.integer({ min: LINES, max: LARGE_LINE }),
        ),
        spoil: fc.nat(12),
        at: fc.nat(),
      })
      .map(({ body, n, spoil, at }) => {
        let b = textLine(body.repeat(Math.max(1, Math.floor((n - 120) / Buffer.byteLength(body)))), n);
        const k = at % b.length;
        if (spoil === 0) b[k] = 0x01;
        else if (spoil === 1) b[k] = 0x80;
        else if (spoil === 2) b = b.subarray(0, k);
        return b;
      });
    const scenario = fc.record({
      mode: fc.constantFrom('encode' as const, 'decode' as const, 'tokens' as const),
      lines: fc.array(fc.oneof(large, usualLine), { minLength: 1, maxLength: 4 }),
      crlf: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
      lastEnded: fc.boolean(),
      limit: fc.oneof(fc.constant(undefined), fc.constantFrom(200, LINES, LARGE_LINE - 2), fc.tuple(fc.nat(), fc.constantFrom(0, -1))),
      onInvalid: fc.boolean(),
      onCollision: fc.boolean(),
      chunking: fc.oneof(
        fc.record({ cuts: fc.array(fc.nat(3 * LARGE_LINE), { maxLength: 12 }) }),
        fc.record({ reuse: fc.integer({ min: 1000, max: 90_000 }) }),
      ),
      codec: fc.nat(CODECS.length - 1),
    });
    fc.assert(
      fc.property(scenario, ({ mode, codec, ...s }) => {
        const options = CODECS[codec as 0 | 1 | 2];
        const lines = mode === 'tokens' ? s.lines.map((l) => encoded(l, options)) : s.lines;
        agree({ ...s, mode: mode === 'encode' ? 'encode' : 'decode', lines }, options);
      }),
      runs(30),
    );
  });
});

describe('large lines of unusual shapes', () => {
  it('agree on blank, root scalar, batch, deep, data: URI, blob and duplicate-key lines; callbacks that throw', () => {
    const q = 'Qwen x '.repeat(5000);
    const shapes = [
      ' '.repeat(20_000),
      ' \t'.repeat(20_000),
      `"${q}"`,
      '1'.repeat(20_000),
      `1${'0'.repeat(20_000)}e5`,
      `${' '.repeat(20_000)}{"a":"Qwen"}${' '.repeat(100)}`,
      `[${Array(300)
        .fill(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Qwen x ${'y'.repeat(60)}"}]}}`)
        .join(',')}]`,
      `${'['.repeat(5000)}"Qwen"${']'.repeat(5000)}`,
      `${'{"a":'.repeat(3000)}"Qwen"${'}'.repeat(3000)}`,
      `{"a":"data:image/png;base64,${'QUFB'.repeat(5000)}"}`,
      `{"a":"data:text/plain;base64,${'QUFB'.repeat(5000)}"}`,
      `{"uri":"file:///x","blob":"${'QUFB'.repeat(5000)}"}`,
      `{"blob":"${'QUFB'.repeat(5000)}","uri":"file:///x"}`,
      `{"type":"image","data":"${'QUFB'.repeat(5000)}","type":"text"}`,
      `{"__mcp_ref_5177656e__":"${q}","Qwen":1}`,
      `\ufeff{"a":"${q}"}`,
      `{"a":"${'\\u0000'.repeat(5000)}"}`,
      `{"params":{"arguments":{"${q}":1}},"method":"tools/call"}`,
    ];
    const run = (mode: 'encode' | 'decode', input: Uint8Array, lines: boolean, codec: StreamOptions, how: 'log' | 'throw') => {
      const log: unknown[] = [];
      const out = outputAppender(log);
      const callback = (kind: string) => (e: unknown) => {
        log.push([kind, ...describeError(e)]);
        if (how === 'throw') throw new Error(`${kind} threw`);
      };
      const t = byteTransformer(mode, { ...codec, onInvalidMessage: callback('invalid'), onCollision: callback('dropped') }, out, {
        lines,
      });
      try {
        t.push(input);
        t.close();
      } catch (e) {
        log.push(['threw', ...describeError(e)]);
      }
      return asReceived(log);
    };
    for (const shape of shapes) {
      for (const end of ['\n', '\r\n']) {
        const input = bytes(['{"b":"Qwen"}', shape, '{"b":1}', 'this is junk', '{"c":"x"}', ''].join(end));
        for (const mode of ['encode', 'decode'] as const) {
          for (const codec of [CODECS[0], CODECS[1]]) {
            for (const how of ['log', 'throw'] as const) {
              const what = [shape.slice(0, 16), end, mode, codec, how];
              expectEqual([what, run(mode, input, true, codec, how)], [what, run(mode, input, false, codec, how)]);
            }
          }
        }
      }
    }
  });
});

describe('what a stream keeps after large lines', () => {
  it('a large line grows WASM memory by a bounded amount, whatever the codec expands to', () => {
    // The regions are sized for the most output the line could have (each byte a token): with a
    // 1-byte term and a 204-character prefix, 250 KB of input asked for 52 MB, which WASM memory
    // keeps for good (and a prefix of 17,000 characters asked for more than 4 GB: the lane threw
    // a RangeError on a line the per-message path transforms). Such a line goes the per-message way.
    const codec = { prefix: `__${'p'.repeat(200)}_`, terms: { exact: ['x'] } };
    const input = bytes(`{"a":"${'y'.repeat(250_000)} x"}\n{"b":"x"}\n`);
    const run = (lines: boolean) => {
      const out: Uint8Array[] = [];
      const t = byteTransformer('encode', codec, (b) => void out.push(b.slice()), { lines });
      t.push(input);
      t.close();
      return Buffer.concat(out);
    };
    const reference = run(false);
    // (What the memory grew by, not the heap's top: a block freed at the top lowers the top
    // again, but WASM memory never shrinks.)
    const before = heap().byteLength;
    expect(run(true).equals(reference)).toBe(true);
    expect(heap().byteLength - before).toBeLessThanOrEqual(16 * 1024 * 1024);
  });

  it('the allocator refuses a size past WASM memory rather than hand out a smaller block', () => {
    // (align used 32-bit arithmetic: 2^32 + 16 bytes were 16, and 3e9 a negative size.)
    const { top } = heapStats();
    expect(() => allocate(2 ** 32 + 16)).toThrow(RangeError);
    expect(heapStats().top).toBe(top);
    const p = allocate(64);
    free(p, 64);
  });

  it('the carry keeps its grown buffer while large lines come, and lets it go after 64 small ones in a row', () => {
    // (carry.ts: a grown one "goes after SHRINK_AFTER small ones in a row".)
    const carry = new Carry(LARGE_LINE);
    const size = () => (carry as unknown as { buf: Uint8Array | null }).buf?.length ?? 0;
    const small = bytes('{"a":1}');
    carry.add(new Uint8Array(200_000));
    expect(carry.take().length).toBe(200_000);
    for (let k = 0; k < 63; k++) {
      carry.add(small);
      expect(carry.take()).toEqual(small);
    }
    expect(size()).toBeGreaterThan(200_000); // (kept: a large line may come again)
    carry.add(new Uint8Array(100_000)); // (a large one between: the count starts again)
    carry.take();
    for (let k = 0; k < 63; k++) {
      carry.add(small);
      carry.take();
    }
    expect(size()).toBeGreaterThan(200_000);
    carry.add(small);
    expect(carry.take()).toEqual(small);
    expect(size()).toBeLessThanOrEqual(32 * 1024);
  });

  it('the batch lets output past 1 MiB out as it is: copied in once, not twice', () => {
    // (batch.ts: "Output past MAX_BATCH in one push gathers in buffers made for it, which go
    // out as they are when about full (a second copy of a huge output costs more)".)
    const set = Uint8Array.prototype.set;
    let copied = 0;
    Uint8Array.prototype.set = function (this: Uint8Array, a: ArrayLike<number>, offset?: number) {
      copied += a.length;
      return set.call(this, a, offset);
    } as typeof set;
    const out: Uint8Array[] = [];
    try {
      const batch = new OutputBatch((b) => void out.push(b));
      batch.reserve(3_000_000);
      batch.add(new Uint8Array(3_000_000).fill(7));
      batch.flush();
    } finally {
      Uint8Array.prototype.set = set;
    }
    expect(out.reduce((n, b) => n + b.length, 0)).toBe(3_000_000);
    expect(out.every((b) => b.every((x) => x === 7))).toBe(true);
    expect(copied).toBeLessThan(3_000_000 + 1024 * 1024); // (at most the last, partly full chunk copied again)
  });
});
