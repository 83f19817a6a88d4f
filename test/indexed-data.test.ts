// A `data` member before its object's `type` on the indexed path (assembly/json/indexed-media.ts
// reads the rest of the object ahead): objects with `data`, `type` and `mimeType` members in
// every order and position (nested, in arrays, two of one kind, near the 16 KiB window) give the
// same output and callbacks with the path on and off, and the path takes every one it can read
// plainly (no escaped key or `type`, no tool schema around it).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import type { StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { B } from './hostile-lines.ts';
import { indexedTrace } from './indexed-trace.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

type Mode = 'encode' | 'decode';

const hex = (log: unknown[]) => (b: Uint8Array) => void log.push(Buffer.from(b).toString('hex'));

/** What one stream did with `line` (output as hex, callbacks), and how many messages the indexed path took. */
function traceOf(mode: Mode, line: string, codec: StreamOptions, indexed: boolean) {
  const { log, taken } = indexedTrace(mode, B(`${line}\n`), codec, indexed, hex);
  return { log: [log.join('')], taken };
}

const CODECS: StreamOptions[] = [{}, { terms: { ascii: ['qwen', 'image', 'data', 'type', 'png'] } }];
// Tokens of both codecs, for decoding.
const TOKENS = CODECS.flatMap((c) => ['Qwen', 'image', 'data'].map((t) => createCodec(c).encodeText(t)));

// Text with terms (and tokens, decoding) in it; `plain`: no escapes.
const text = (plain: boolean) =>
  fc
    .array(
      fc.constantFrom('Qwen', 'image', 'audio', 'data', 'type', ' ', 'x', 'png', ...TOKENS, ...(plain ? [] : ['\\n', '\\"', '\\u0071wen'])),
      {
        maxLength: 8,
      },
    )
    .map((a) => JSON.stringify(a.join('')).replace(/\\\\/g, '\\'));
const typeValue = (plain: boolean) =>
  fc.oneof(
    fc.constantFrom('"image"', '"audio"', '"text"', '"resource"', '"imagex"', '""', '5', 'null', '{"type":"image"}', '["image"]'),
    ...(plain ? [] : [fc.constantFrom('"im\\u0061ge"', '"aud\\io"')]),
  );
const dataUri = fc.constantFrom('"data:image/png;base64,UXdlbg=="', '"data:text/plain;qwen;base64,aW1hZ2U="', '"data:,Qwen"');

/** An object whose members are drawn from data, type, mimeType and others, in any order. */
const object = (plain: boolean): fc.Arbitrary<string> =>
  fc.letrec<{ obj: string; value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text(plain),
      dataUri,
      fc.constantFrom('1', '-2.5e3', 'true', 'null', '[]', '{}'),
      tie('obj'),
      fc.array(tie('value'), { maxLength: 3 }).map((a) => `[${a.join(', ')}]`),
    ),
    obj: fc
      .array(
        fc.oneof(
          tie('value').map((v) => `"data":${v}`),
          typeValue(plain).map((v) => `"type": ${v}`),
          fc.constantFrom('"mimeType":"image/png"', '"mimeType":"text/qwen"'),
          fc
            .tuple(
              fc.constantFrom('"text"', '"Qwen"', '"_meta"', '"uri"', ...(plain ? [] : ['"d\\u0061ta"', '"typ\\u0065"'])),
              tie('value'),
            )
            .map(([k, v]) => `${k}:${v}`),
        ),
        { maxLength: 5 },
      )
      .map((members) => `{${members.join(',')}}`),
  })).obj;

/** A message that holds the object where logs, errors and results hold theirs; padded to near 16 KiB or not. */
const WRAPS = [
  (o: string) => `{"jsonrpc":"2.0","method":"notifications/message","params":${o}}`,
  (o: string) => `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"Qwen","data":${o}}}`,
  (o: string) => `{"jsonrpc":"2.0","id":"a","result":{"content":[${o},{"type":"text","text":"Qwen"}]}}`,
  (o: string) => `{"jsonrpc":"2.0","id":1,"result":{"data":${o}}}`,
];
const message = (plain: boolean) =>
  fc
    .tuple(fc.constantFrom(...WRAPS), object(plain), fc.option(fc.integer({ min: -48, max: 48 }), { nil: undefined }))
    .map(([wrap, o, edge]) => {
      const line = wrap(o);
      if (edge === undefined) return line;
      // A filler member first in the object, so that the line ends near 16 KiB.
      const fill = Math.max(0, 16 * 1024 + edge - line.length - 12);
      return wrap(o.replace('{', `{"pad":"${'q'.repeat(fill)}"${o === '{}' ? '' : ','}`));
    });

describe('a `data` before its `type` on the indexed path', () => {
  for (const mode of ['encode', 'decode'] as const)
    for (const [c, codec] of CODECS.entries()) {
      it(`${mode}, codec ${c}: plain objects taken, with the per-message path's output`, () => {
        let taken = 0;
        fc.assert(
          fc.property(message(true), (line) => {
            const on = traceOf(mode, line, codec, true);
            expect(on.log).toEqual(traceOf(mode, line, codec, false).log);
            // Valid, and nothing the host must read: the indexed path takes it where it takes the
            // same line with no `data` nor `type` (which may be refused for its size; two `type`s
            // that disagree are refused on both paths), if it reads ahead at most 4 times.
            const control = traceOf(mode, line.replace(/"(dat)a"|"(typ)e"/g, '"$1$2x"'), codec, true);
            const looks = line.split('"data":').length - 1;
            if (!on.log[0]!.toString().includes('invalid') && control.taken === 1 && looks <= 4) {
              expect(on.taken).toBe(1);
              taken++;
            }
          }),
          runs(120),
        );
        expect(taken).toBeGreaterThan(60); // (the generator reaches the indexed path)
      });

      it(`${mode}, codec ${c}: with escaped keys and types, the same output either way`, () => {
        fc.assert(
          fc.property(message(false), (line) => {
            expect(traceOf(mode, line, codec, true).log).toEqual(traceOf(mode, line, codec, false).log);
          }),
          runs(120),
        );
      });
    }
});

// An object or array `data` before its object's `type` is transformed without reading ahead
// (log and error data), and the message read again when a media `type` or a second `data`
// follows: against the per-message path (`lines: false`), with terms inside the `data`.
const container = fc.oneof(
  fc.constantFrom(
    '{"text":"Qwen"}',
    '["Qwen",{"data":"Qwen","type":"image"}]',
    '{"type":"image","data":"Qwen"}',
    '{"event":"retry","host":"qwen.example","ms":5}',
    '[]',
    '[["image"],{"Qwen":{"type":"audio"}}]',
  ),
  // Nested in each other, to past the depth the per-message path refuses (32).
  fc.integer({ min: 1, max: 40 }).map((k) => `${'{"data":'.repeat(k)}{"a":"Qwen"}${',"type":"text"}'.repeat(k)}`),
);
const between = fc.array(fc.constantFrom('"text":"Qwen"', '"mimeType":"image/png"', '"ms":12', '"uri":"x"', '"type2":"image"'), {
  maxLength: 2,
});
const after = fc.constantFrom('"type":"image"', '"type":"audio"', '"type":"text"', '"type":5', '"data":"Qwen"', '"data":{"a":"Qwen"}', '');
const takenLater = fc
  .tuple(fc.constantFrom(...WRAPS), container, between, after)
  .map(([wrap, data, mid, end]) => wrap(`{${[`"data":${data}`, ...mid, ...(end ? [end] : [])].join(',')}}`));

/** What one stream (lines lane on or off) did with `input`: its output and callbacks. */
const streamed = (mode: Mode, input: Uint8Array, codec: StreamOptions, lines: boolean): string =>
  JSON.stringify(indexedTrace(mode, input, codec, true, hex, lines).log);

/** `input` encoded by the per-message path (a message it refuses left out). */
function encodedBy(input: Uint8Array, codec: StreamOptions): Uint8Array {
  const out: Uint8Array[] = [];
  const t = byteTransformer('encode', { ...codec, onInvalidMessage: () => {} }, (b) => void out.push(b.slice()), { lines: false });
  t.push(input);
  t.close();
  return Buffer.concat(out);
}

describe('a container `data` before its `type`, taken without reading ahead', () => {
  for (const [c, codec] of CODECS.entries())
    it(`codec ${c}: both ways, the per-message path's output`, () => {
      const before = hooks.indexedPath(1);
      fc.assert(
        fc.property(fc.array(takenLater, { minLength: 1, maxLength: 4 }), (lines) => {
          const input = B(`${lines.join('\n')}\n`);
          expect(streamed('encode', input, codec, true)).toBe(streamed('encode', input, codec, false));
          const tokens = encodedBy(input, codec);
          expect(streamed('decode', tokens, codec, true)).toBe(streamed('decode', tokens, codec, false));
        }),
        runs(150),
      );
      expect(hooks.indexedPath(1) - before).toBeGreaterThan(150); // (the lines lane took them)
    });
});
