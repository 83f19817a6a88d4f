// The message head `{"jsonrpc":"2.0","method":"` compared as bytes by the message object's loop
// (assembly/json/indexed-members.ts envelopeHead), its quotes taken from stage 1 unread: lines
// that begin with the head, with one byte of it changed (a backslash, a quote, whitespace, a
// control byte, a UTF-8 lead), cut anywhere in or just past it, and followed by any method value
// and rest, must come out of the indexed path as with it off (output, callbacks, errors), whole
// and pushed in pieces.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { indexedTrace, LOOP_TERMS, loopLineTrace } from './indexed-trace.ts';
import { outputAppender } from './ndjson-scenarios.ts';

vi.mock('../src/core/wasm-bytes.ts', () => import('./wasm-bytes-with-hooks.ts')); // (the core with test hooks)

afterEach(() => {
  hooks.indexedPath(1);
});

const HEAD = '{"jsonrpc":"2.0","method":"';
const token = createCodec(LOOP_TERMS).encodeText('wanx');
// One byte of the head changed, or none (most lines), or the head cut short.
const changes = ['\\', '"', ' ', '\t', '\u0001', 'x', 'J', '}', ':', ',', '\u00e9'];
const head = fc.oneof(
  { weight: 3, arbitrary: fc.constant(HEAD) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(HEAD.length - 1), fc.constantFrom(...changes)).map(([at, c]) => HEAD.slice(0, at) + c + HEAD.slice(at + 1)),
  },
  { weight: 1, arbitrary: fc.nat(HEAD.length).map((n) => HEAD.slice(0, n)) },
);
const methodValue = fc.constantFrom('m', '', 'notifications/progress', 'wanx', token, 'a\\"b', 'a\\u0071wen', 'x\u0002y');
const rest = fc.constantFrom(
  '"}',
  '"',
  '',
  '" }',
  '" ,"id":1}',
  '","params":{"progressToken":5,"progress":5,"message":"update wanx"}}',
  `","params":{"a":"${token}","b":[1,"qwen"]}}`,
  '","id":1,"params":{}}',
  '","params":{"data":{"x":"wanx"},"type":"text"}}',
  '",}',
  '"]}',
  '","params":1',
);
const lines = fc.tuple(head, methodValue, rest).map(([h, v, r]) => h + v + r);

describe("the message head compared as bytes in the message object's loop", () => {
  for (const mode of ['encode', 'decode'] as const) {
    it(`${mode}: heads whole, changed and cut, any method and rest, as with the indexed path off`, () => {
      let taken = 0;
      fc.assert(
        fc.property(lines, (line) => {
          const on = loopLineTrace(mode, line, true);
          expect(loopLineTrace(mode, line, false).log).toEqual(on.log);
          if (on.taken > 0) taken++;
        }),
        runs(600),
      );
      expect(taken).toBeGreaterThan(150);
    });

    it(`${mode}: several lines pushed in pieces cut anywhere, as with the indexed path off`, () => {
      fc.assert(
        fc.property(fc.array(lines, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(400), { maxLength: 3 }), (ls, cuts) => {
          const input = new TextEncoder().encode(`${ls.join('\n')}\n`);
          const at = [...new Set(cuts.map((c) => c % input.length))].sort((a, b) => a - b).filter((c) => c > 0);
          const trace = (indexed: boolean) => indexedTrace(mode, input, LOOP_TERMS, indexed, outputAppender, true, at).log;
          expect(trace(false)).toEqual(trace(true));
        }),
        runs(300),
      );
    });
  }

  it('a progress notification with a term: the head taken, the message string and its term after it', () => {
    const line = `${HEAD}notifications/progress","params":{"progressToken":5,"progress":5,"message":"update wanx now"}}`;
    const on = loopLineTrace('encode', line, true);
    expect(on.taken).toBe(1);
    expect(on.log).toEqual(loopLineTrace('encode', line, false).log);
    expect(JSON.stringify(on.log)).toContain(createCodec(LOOP_TERMS).encodeText('update wanx now'));
  });
});
