// Inputs a server or a client can send that once cost more than linear time: `data` values
// before their `type` nested as siblings, long undecided token candidates, many keys before
// many deferred values. Each is timed at n and 4n bytes (the least of a few runs, so noise only
// makes a run slower), and 4x the input must cost well under 16x (quadratic) the time. And the
// scheme that made them linear keeps the meaning: stream output equals the object API.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec, PayloadKeyCollisionError } from '../src/index.ts';
import { createByteTransformer, createDecodeStream, createEncodeStream, type Framing } from '../src/stream/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';
import { bytes, run, split, text } from './stream-helpers.ts';

const codec = createCodec();
const enc = new TextEncoder();

/** Time of 4n bytes over time of n bytes, fed in `chunk`-byte pieces. */
function growthOf(
  mode: 'encode' | 'decode',
  make: (n: number) => string,
  n: number,
  chunk = 64 * 1024,
  framing: Framing = 'ndjson',
): number {
  const small = enc.encode(make(n));
  const big = enc.encode(make(4 * n));
  const run = (input: Uint8Array) => () => {
    const t = createByteTransformer(mode, { framing }, () => {});
    for (let i = 0; i < input.length; i += chunk) t.push(input.subarray(i, i + chunk));
    t.close();
  };
  return growth(run(small), run(big));
}

// (The old code measured 13x to 21x here.)
const BOUND = LINEAR_BOUND;

/** `{"data":"…","a":{"data":"…","a":…,"type":"t"},"type":"t"}`: every level pending until the end. */
const siblings = (n: number) => {
  const d = Math.floor(n / 72);
  return '{"result":' + '{"data":"x Qwen xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","a":'.repeat(d) + '1' + ',"type":"t"}'.repeat(d) + '}\n';
};
/** An object with many keys, then as many objects whose `data` precedes their `type`. */
const keysThenDeferrals = (n: number) => {
  const k = Math.floor(n / 40);
  const keys = Array.from({ length: k }, (_, i) => `"k${i}":1,`).join('');
  const values = Array.from({ length: k }, (_, i) => `"o${i}":{"data":"x","type":"t"},`).join('');
  return `{"params":{${keys}${values}"z":1}}\n`;
};

describe('linear time on hostile input', () => {
  it('data values before their type, nested as siblings, encoding', () => {
    expect(growthOf('encode', siblings, 512 * 1024)).toBeLessThan(BOUND);
  });

  it('data values before their type, nested as siblings, decoding', () => {
    expect(growthOf('decode', siblings, 512 * 1024)).toBeLessThan(BOUND);
  });

  // A payload string that is one long token candidate, undecided until its end. Small chunks
  // made it worse: every chunk scanned the whole candidate again.
  const candidates: [string, (n: number) => string][] = [
    ['without its suffix', (n) => `{"params":{"x":"__mcp_ref_${'0'.repeat(n)}"}}\n`],
    ['with its suffix', (n) => `{"params":{"x":"__mcp_ref_${'0'.repeat(n)}__"}}\n`],
    ['written as \\u0030 escapes', (n) => `{"params":{"x":"__mcp_ref_${'\\u0030'.repeat(Math.floor(n / 6))}"}}\n`],
  ];
  for (const [name, make] of candidates) {
    it(`a long token candidate ${name}, decoding in 1 KiB chunks`, () => {
      expect(growthOf('decode', make, 1024 * 1024, 1024)).toBeLessThan(BOUND);
    });
  }

  // The same candidate in an SSE event typed before its data (streamed through encoding, as the
  // SDK writes them) and in a Content-Length body.
  const framed: [Framing, (body: string) => string][] = [
    ['sse', (b) => `event: message\ndata: ${b}\n\n`],
    ['content-length', (b) => `Content-Length: ${enc.encode(b).length}\r\n\r\n${b}`],
  ];
  for (const [framing, frame] of framed) {
    it(`a long token candidate without its suffix, decoding ${framing} in 1 KiB chunks`, () => {
      const make = (n: number) => frame(`{"params":{"x":"__mcp_ref_${'0'.repeat(n)}"}}`);
      expect(growthOf('decode', make, 1024 * 1024, 1024, framing)).toBeLessThan(BOUND);
    });
  }

  it('many keys, then many data values before their type, decoding', () => {
    expect(growthOf('decode', keysThenDeferrals, 512 * 1024)).toBeLessThan(BOUND);
  });

  // A line of 60 and 240 KB, held in 128-byte pieces until it ends and taken whole (a large line):
  // an escape and a match or a token every few bytes, more escapes than its escape map holds.
  const escaped = (unit: string) => (n: number) => `{"params":{"x":"${unit.repeat(Math.floor(n / unit.length))}"}}\n`;
  it('a large line held in 128-byte pieces, an escape and a match every 6 bytes, encoding', () => {
    expect(growthOf('encode', escaped('Qwen\\n'), 60 * 1024, 128)).toBeLessThan(BOUND);
  });

  it('a large line held in 128-byte pieces, an escape and a token every 22 bytes, decoding', () => {
    expect(growthOf('decode', escaped('__mcp_ref_7177656e__\\n'), 60 * 1024, 128)).toBeLessThan(BOUND);
  });
});

// Objects whose `data` comes before its `type`, nested every way: inside `data`, beside it,
// image or not, with keys that collide once decoded.
const word = fc.oneof(fragmentString(4), fc.constantFrom('qwen', 'Qwen', '__mcp_ref_7177656e__', 'x'));
const nested = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, word, fc.integer(), tie('obj'), fc.array(tie('v'), { maxLength: 2 })),
  obj: fc
    .tuple(tie('v'), fc.constantFrom('image', 'audio', 'text', null), fc.dictionary(word, tie('v'), { maxKeys: 2 }), fc.boolean())
    .map(([data, type, rest, typeFirst]) => {
      const t = type === null ? {} : { type };
      return typeFirst ? { ...t, ...rest, data } : { data, ...rest, ...t };
    }),
})).v;

describe('long token candidates keep their meaning', () => {
  it('decode as decodeText decodes the same string, however split', () => {
    const hex = fc.constantFrom('0', '7', 'a', 'F', 'e9', '71', 'c3', '80');
    const candidate = fc
      .tuple(
        fc.constantFrom('__mcp_ref_', '__MCP_REF_', '__mcp_ref_7'),
        fc.array(hex, { maxLength: 600 }),
        fc.constantFrom('', '__', '_', 'x', '__mcp_ref_71__'),
        fc.nat(600),
      )
      .map(([p, digits, end, repeat]) => p + digits.join('').repeat(1 + (repeat % 40)) + end);
    fc.assert(
      // Small chunks: every chunk boundary is a point where a candidate stays undecided.
      fc.property(
        fc.array(candidate, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 97 }),
        (parts, escaped, chunk) => {
          const s = parts.join(' ');
          let json = JSON.stringify({ params: { x: s } });
          if (escaped) json = json.replace(/[0-9]/g, (d) => `\\u003${d}`);
          const input = bytes(json + '\n');
          const out: Uint8Array[] = [];
          const t = createByteTransformer('decode', {}, (b) => void out.push(b.slice()));
          for (let i = 0; i < input.length; i += chunk) t.push(input.subarray(i, i + chunk));
          t.close();
          expect(JSON.parse(text(Buffer.concat(out))).params.x).toBe(codec.decodeText(s));
        },
      ),
      runs(60),
    );
  });
});

describe('deferred values keep their meaning', () => {
  it('encoding equals encodeMessage, decoding equals decodeMessage (or its collision), however split', async () => {
    await fc.assert(
      fc.asyncProperty(nested, fc.array(fc.nat(400), { maxLength: 5 }), async (value, cuts) => {
        const m = { jsonrpc: '2.0', id: 3, result: value };
        const line = bytes(JSON.stringify(m) + '\n');
        const encoded = await run(createEncodeStream(), split(line, cuts));
        expect(JSON.parse(text(encoded))).toEqual(codec.encodeMessage(m));
        let expected: unknown;
        try {
          expected = codec.decodeMessage(m);
        } catch (e) {
          expected = e;
        }
        const decoded = await run(createDecodeStream(), split(line, cuts)).then(
          (o) => JSON.parse(text(o)),
          (e: unknown) => e,
        );
        if (expected instanceof PayloadKeyCollisionError)
          expect(decoded).toMatchObject({ name: 'PayloadKeyCollisionError', messageNumber: 1, id: 3 });
        else expect(decoded).toEqual(expected);
      }),
      runs(300),
    );
  });
});
