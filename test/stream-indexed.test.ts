// The indexed path (assembly/json/structural.ts finds the strings 64 bytes at a time,
// indexed.ts visits them) changes nothing but speed: random NDJSON streams give the same
// output, callbacks and errors with it on and off (off, whole messages go through the
// byte-by-byte transducer, the path it must equal). The lines aim at what the index must get
// right: backslash runs and quotes at every offset around its 64-byte blocks, every escape
// (pairs, lone surrogates, invalid ones), control bytes and bad UTF-8 inside and outside
// strings, multi-byte characters cut at block edges, nesting, and the MCP shapes it leaves to
// the per-message path. And it does take the messages it should.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { TermSetInput } from '../src/codec/terms.ts';
import { createByteTransformer } from '../src/stream/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { cat, line, message, render, scenarioOf, trace, written } from './ndjson-scenarios.ts';
import { bytes, choices, writeJson } from './stream-helpers.ts';

/** Messages the indexed path has taken so far (and turns it on). */
const takenSoFar = () => hooks.indexedPath(1);

afterEach(() => {
  hooks.indexedPath(1);
});

// Text whose JSON form has backslash runs and quotes: each character escaped or not, some raw.
const tricky = fc
  .array(fc.constantFrom('a', '\\', '"', '/', '\n', '\t', '\u0001', 'é', '中', '😀', '\uD800', '\uDC00', 'Qwen', '__mcp_ref_71__'), {
    maxLength: 40,
  })
  .map((a) => a.join(''));

// A string placed at any offset from a block edge (the padding moves it), written with escapes.
const shifted = fc
  .tuple(fc.nat(70), fc.oneof(tricky, fragmentString(6)), choices, fc.boolean())
  .map(([pad, s, c, inKey]) =>
    bytes(writeJson({ jsonrpc: '2.0', id: 1, result: inKey ? { ['x'.repeat(pad)]: 1, [s]: s } : { pad: 'p'.repeat(pad), text: s } }, c)),
  );

// Raw text that no JSON writer would produce: broken escapes, raw bytes, quotes out of place.
const raw = fc
  .tuple(
    fc.nat(80),
    fc.constantFrom(
      '"\\x"',
      '"\\u12"',
      '"\\u12G4"',
      '"\\uD800\\u0041"',
      '"\\uDC00"',
      '"\\uD83D\\uDE00"',
      '"\\uD83D"',
      '"a\\',
      '"\\\\"',
      '"\\\\\\""',
      '"\t"',
      '"\u0000"',
      '"\\"',
      '\\"',
      '""',
      '"a"b"',
    ),
    fc.constantFrom('', 'x', '\u00ff', '\u0001'),
  )
  .map(([pad, s, tail]) => {
    const head = `{"jsonrpc":"2.0","id":1,"result":{"p":"${'q'.repeat(pad)}","v":`;
    const b = bytes(`${head}${s}}}`);
    if (tail === '\u00ff') return cat(b.subarray(0, head.length + 2), new Uint8Array([0xff]), b.subarray(head.length + 2));
    return tail === '' ? b : bytes(`${head}${s}${tail}}}`);
  });

// Multi-byte characters, some cut off or broken, across block edges.
const utf8 = fc.tuple(fc.nat(70), fc.constantFrom('é', '中', '😀'), fc.constantFrom(0, 1, 2, 3)).map(([pad, ch, how]) => {
  const b = bytes(`{"jsonrpc":"2.0","id":1,"result":"${'a'.repeat(pad)}${ch}${ch}"}`);
  const at = 34 + pad;
  if (how === 1) return cat(b.subarray(0, at + 1), b.subarray(at + 2)); // a continuation byte gone
  if (how === 2) return b.subarray(0, at + 1); // cut off at the end of the line
  if (how === 3) return cat(b.subarray(0, at), bytes('a'), b.subarray(at + 1)); // a stray continuation
  return b;
});

// Tool schemas (maxLength to widen), nesting, numbers and literals as written.
const shapes = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 1e6 }), choices).map(([n, c]) =>
    bytes(
      writeJson(
        {
          jsonrpc: '2.0',
          id: 3,
          result: { tools: [{ name: 'Qwen', inputSchema: { type: 'object', properties: { app: { type: 'string', maxLength: n } } } }] },
        },
        c,
      ),
    ),
  ),
  // maxLength as written: counts, fractions, signs, exponents, and lengths around the 24 bytes held.
  fc
    .tuple(
      fc.constantFrom(
        '5',
        '5.0',
        '-3',
        '1e2',
        '0.5',
        '9'.repeat(23),
        '9'.repeat(24),
        '9'.repeat(25),
        `1${'0'.repeat(16)}`,
        `5.${'0'.repeat(22)}`,
      ),
      fc.boolean(),
    )
    .map(([n, skip]) =>
      bytes(
        `{"jsonrpc":"2.0","id":3,"result":{"tools":[{"inputSchema":{"type":"object","properties":{"a":{"maxLength":${n}}}${skip ? `,"const":{"maxLength":${n}}` : ''}}}]}}`,
      ),
    ),
  fc.nat(80).map((d) => bytes(`{"jsonrpc":"2.0","id":1,"result":${'['.repeat(d)}"Qwen"${']'.repeat(d)}}`)),
  fc
    .constantFrom('-0', '1e5', '1.5E-3', '-', '01', '1.', 'tru', 'nul', 'true', 'falsey', '[]', '{}', '[,]', '{"a"}', '{"a":}')
    .map((v) => bytes(`{"jsonrpc":"2.0","id":1,"result":{"v":${v}}}`)),
);

// Near misses of the words the MCP rules read, as keys and values: `image` with a lone
// surrogate after it is not `image`; a base64 data: URI whose text holds a term is kept whole.
const word = fc
  .tuple(
    fc.constantFrom('image', 'audio', 'type', 'data', 'uri', 'blob', 'text', 'data:text/plain;base64,QwenQwen', 'data:;base64,Qwen'),
    fc.constantFrom('', '', '\uD800', '\uDC00', '\uD83D\uDE00', 'é', 'Qwen'),
  )
  .map(([w, tail]) => w + tail);
const nearMiss = fc
  .tuple(fc.array(fc.tuple(word, fc.oneof(word, fc.constant('Qwen'), fc.constant(1))), { maxLength: 4 }), choices)
  .map(([members, c]) => bytes(writeJson({ jsonrpc: '2.0', id: 1, result: { content: [Object.fromEntries(members)] } }, c)));

const aimed = fc.oneof(
  { weight: 2, arbitrary: nearMiss },
  { weight: 3, arbitrary: written },
  { weight: 3, arbitrary: shifted },
  { weight: 2, arbitrary: raw },
  { weight: 1, arbitrary: utf8 },
  { weight: 1, arbitrary: shapes },
  { weight: 1, arbitrary: line },
);

// Long messages with no escapes (the one-pass matcher's case): app lists whose keys and values
// hold terms, with terms in protocol fields and `_meta` too (matched, then left alone).
// (No quote, backslash or control character: JSON.stringify writes them unescaped. `xa` then `bx`
// puts `a","b` between two strings, which a term holding a quote would match.)
const vocabulary = ['Qwen', 'qwen', 'Safari', 'app', 'ion', 'xa', 'bx', 'Tongyi', '通义', 'x', '/Applications/', ''];
const entry = fc.dictionary(fc.constantFrom(...vocabulary, 'name', 'path'), fc.oneof(fc.constantFrom(...vocabulary), fc.integer()), {
  maxKeys: 5,
});
const longLine = fc
  .tuple(
    fc.array(entry, { minLength: 30, maxLength: 80 }),
    fc.constantFrom(...vocabulary),
    fc.constantFrom(...vocabulary),
    // One member with an escape that a match spans (`\u0065` is `e`, `\t` a tab), or none.
    fc.constantFrom('', '"escaped":"Qw\\u0065n",', '"escaped":"x\\ty Qwen",'),
  )
  .map(([apps, meta, cursor, escaped]) =>
    bytes(
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { _meta: { note: meta }, nextCursor: cursor, structuredContent: { apps } } }).replace(
        '"structuredContent":{',
        `"structuredContent":{${escaped}`,
      ),
    ),
  );
// Term sets: the default; terms that hold a quote or a tab (no longer safe to match across a
// whole message, or matching between strings); terms that overlap.
const termSets = fc.constantFrom<TermSetInput | undefined>(
  undefined,
  { exact: ['a","b', 'Qwen'] },
  { ascii: ['a"b', 'x'] },
  { exact: ['\t', 'x'] },
  { ascii: ['app', 'ion', 'pp', 'Safari'], exact: ['通义'] },
);

describe('the indexed path', () => {
  it('changes no output, callback or error: on and off agree on random streams cut at random', () => {
    fc.assert(
      fc.property(scenarioOf(aimed), (s) => {
        const input = render(s);
        hooks.indexedPath(1);
        const on = trace(s, input, true);
        hooks.indexedPath(0);
        const off = trace(s, input, true);
        expect(on).toEqual(off);
      }),
      runs(300),
    );
  });

  it('matches a long message in one pass as it would string by string, under any terms', () => {
    const before = hooks.wholeScans();
    fc.assert(
      // (Half the streams in one chunk: a long line cut by a chunk's end goes the per-message way.)
      fc.property(scenarioOf(fc.oneof(longLine, aimed)), fc.boolean(), termSets, (cut, whole, terms) => {
        const s = whole ? { ...cut, chunking: { cuts: [] } } : cut;
        const input = render(s);
        const codec = terms ? { terms } : {};
        hooks.indexedPath(1);
        const on = trace(s, input, true, codec);
        hooks.indexedPath(0);
        expect(on).toEqual(trace(s, input, true, codec));
      }),
      runs(150),
    );
    expect(hooks.wholeScans()).toBeGreaterThan(before); // (the one-pass branch ran)
  });

  it('writes strings with more escapes than the escape map holds (1,024) as the byte path does', () => {
    // Matches and tokens after any number of escapes of every kind, around the map's capacity:
    // past it the cursor searches the raw bytes again, as the byte path always does.
    const escapes = fc.constantFrom('\\n', '\\"', '\\u00e9', '\\ud83d\\ude00', '\\ud83d', '\\udc00', '\\u4e2d', '\\/');
    const run = (mode: 'encode' | 'decode', input: Uint8Array) => {
      const out: string[] = [];
      const t = createByteTransformer(mode, {}, (b) => out.push(Buffer.from(b).toString('hex')));
      t.push(input);
      t.close();
      return out.join('');
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 1100 }),
        fc.array(escapes, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(1200), { minLength: 1, maxLength: 6 }),
        fc.constantFrom('encode' as const, 'decode' as const),
        (count, kinds, at, mode) => {
          const word = mode === 'encode' ? 'Qwen' : '__mcp_ref_5177656e__';
          const parts: string[] = [];
          for (let k = 0; k < count; k++) parts.push(`${at.includes(k) ? word : 'x'}${kinds[k % kinds.length]}`);
          const input = bytes(`{"jsonrpc":"2.0","id":1,"result":{"text":"${parts.join('')}${word}"}}\n`);
          const before = takenSoFar();
          const on = run(mode, input);
          expect(takenSoFar()).toBe(before + 1);
          hooks.indexedPath(0);
          expect(on).toBe(run(mode, input));
        },
      ),
      runs(40),
    );
  });

  it('takes valid messages with escapes, any characters and nesting, and leaves what the host must see', () => {
    const taken = (mode: 'encode' | 'decode', lines: string[]) => {
      const before = takenSoFar();
      const t = createByteTransformer(mode, { onInvalidMessage: () => {} }, () => {});
      t.push(bytes(lines.map((l) => `${l}\n`).join('')));
      t.close();
      return takenSoFar() - before;
    };
    fc.assert(
      fc.property(fc.array(fc.tuple(message, choices), { minLength: 1, maxLength: 8 }), (ms) => {
        // Without `data`/`blob` keys (deferred) or tokens in keys, every message is taken.
        const plain = ms.filter(([m]) => !/"(data|blob)"/.test(JSON.stringify(m)) && !/__mcp_ref_/i.test(JSON.stringify(m)));
        expect(
          taken(
            'encode',
            plain.map(([m, c]) => writeJson(m, c)),
          ),
        ).toBe(plain.length);
      }),
      runs(100),
    );
    const ok = [
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Qwen\\n\\u00e9\\ud83d\\ude00 \\"x\\" \\\\"}]}}',
      '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}}',
      '{"jsonrpc":"2.0","id":2,"result":{"content":[{"data":"aGk=","type":"image"}]}}', // data before type: read ahead
      '{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"file:///a","blob":"aGk="}]}}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5,"message":"Qwen"}}',
      ' [ {"jsonrpc":"2.0","id":4,"result":{"a":[true,false,null,-1.5e3]}} ] ',
      '{"jsonrpc":"2.0","id":5,"result":{"tools":[{"inputSchema":{"properties":{"a":{"maxLength":5.0}},"default":{"maxLength":7}}}]}}',
    ];
    expect(taken('encode', ok)).toBe(ok.length);
    expect(taken('decode', ok)).toBe(ok.length);
    const refused = [
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"data":"aGk=","typ\\u0065":"image"}]}}', // data before an escaped type
      '{"jsonrpc":"2.0","id":1,"result":{"contents":[{"blob":"aGk=","uri":"file:///a"}]}}', // blob before uri
      '{"jsonrpc":"2.0","id":1,"result":{"text":"\\x"}}', // invalid escape
      '{"jsonrpc":"2.0","id":1,"result":{"text":"a"}} x', // junk after the value
    ];
    for (const l of refused) expect(taken('encode', [l])).toBe(0);
    // Decoding, a key that decoding changes is the host's to check for collisions.
    expect(taken('decode', ['{"jsonrpc":"2.0","id":1,"result":{"__mcp_ref_5177656e__":1}}'])).toBe(0);
    expect(taken('encode', ['{"jsonrpc":"2.0","id":1,"result":{"Qwen":1}}'])).toBe(1);
  });
});

describe('the indexed path takes lines whose escapes cross a 64-byte block', () => {
  // Stage 1 carries "the next byte is escaped" from a block's last byte to the next block: a
  // backslash at byte 63 of an otherwise plain block (after 0 to 3 plain blocks, which SIMD
  // skips), then at the next block's first byte a quote it escapes (or the closing quote after
  // an even run), or another escaped byte; then plain text up to the next byte, or up to the
  // start of one of the next two blocks, where the string closes (a plain block skipped while
  // the carry is set would move it there). Each line is valid and must be taken; a bug there
  // still writes the right output (the byte path takes the line), so only the count shows it.
  const lines: string[] = [];
  for (const key of [false, true]) {
    const head = key ? '{"jsonrpc":"2.0","id":1,"result":{"' : '{"jsonrpc":"2.0","id":1,"result":{"text":"';
    for (let blocks = 0; blocks <= 3; blocks++) {
      for (const run of [1, 2, 3]) {
        for (const next of run % 2 ? ['"', 'n', '\\', 'u0051', '/'] : ['']) {
          for (const until of [0, 1, 2]) {
            const edge = 64 * (blocks + 1); // the run ends at byte 63 of its block
            const fill = edge - head.length - run;
            const after = until === 0 ? Number(next !== '') : 64 * until - next.length; // (then the closing quote)
            const text = `${'Qwen a '.repeat(fill).slice(0, fill)}${'\\'.repeat(run)}${next}${'Qwen b '.repeat(after).slice(0, after)}`;
            lines.push(`${head}${text}"${key ? ':1' : ''}}}`);
          }
        }
      }
    }
  }

  it.each(['encode', 'decode'] as const)('%s: every crafted line is taken, and written as the byte path writes it', (mode) => {
    for (const line of lines) JSON.parse(line); // (each is valid JSON)
    const input = bytes(lines.map((l) => `${l}\n`).join(''));
    const run = () => {
      const out: Uint8Array[] = [];
      const t = createByteTransformer(mode, {}, (b) => void out.push(b.slice()));
      t.push(input);
      t.close();
      return Buffer.concat(out).toString('hex');
    };
    const before = takenSoFar();
    const on = run();
    expect(takenSoFar() - before).toBe(lines.length);
    hooks.indexedPath(0);
    expect(on).toBe(run());
  });
});
