// The message head `{"jsonrpc":"2.0",` and a request's `"method":"` after it, compared as bytes
// by the message object's loop (assembly/json/indexed-members.ts jsonrpcHead, methodHead), their
// quotes taken from stage 1 unread: lines that begin with either head (a request's, a
// response's), with one byte of it changed (a backslash, a quote, whitespace, a control byte, a
// UTF-8 lead), cut anywhere in or just past it, and followed by any value and rest, must come
// out of the indexed path as with it off (output, callbacks, errors), whole and pushed in pieces.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { indexedTrace, LOOP_TERMS, loopLineTrace } from './indexed-trace.ts';
import { outputAppender } from './ndjson-scenarios.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

const HEAD = '{"jsonrpc":"2.0","method":"';
const RESPONSE = '{"jsonrpc":"2.0","id":';
const token = createCodec(LOOP_TERMS).encodeText('wanx');
// One byte of a head changed, or none (most lines), or a head cut short.
const changes = ['\\', '"', ' ', '\t', '\u0001', 'x', 'J', '}', ':', ',', '\u00e9'];
const changed = (h: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(h) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.nat(h.length - 1), fc.constantFrom(...changes)).map(([at, c]) => h.slice(0, at) + c + h.slice(at + 1)),
    },
    { weight: 1, arbitrary: fc.nat(h.length).map((n) => h.slice(0, n)) },
  );
const head = changed(HEAD);
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
const responseRest = fc.constantFrom(
  '1,"result":{"a":"wanx","b":[1,"qwen"]}}',
  '"x","result":{}}',
  ' 2,"error":{"code":1,"message":"wanx"}}',
  '1}',
  '',
  '1,"result":{"nextCursor":"wanx","tools":[]}}',
);
const lines = fc.oneof(
  fc.tuple(head, methodValue, rest).map(([h, v, r]) => h + v + r),
  fc.tuple(changed(RESPONSE), responseRest).map(([h, r]) => h + r),
);

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

  it('bodies cut short inside a head, each pushed after a whole one: as with the indexed path off', () => {
    // Content-Length bodies end where their length says, not at a newline: a body shorter than
    // the head sits where a whole one was pushed before, so the bytes past its end may spell the
    // rest of the head. The comparison must stop at the body's end.
    const enc = new TextEncoder();
    const frame = (body: string) => `Content-Length: ${enc.encode(body).length}\r\n\r\n${body}`;
    for (const whole of [`${HEAD}m","params":{"a":"wanx"}}`, `${RESPONSE}1,"result":{"a":"wanx"}}`])
      for (let n = 1; n < whole.indexOf('wanx'); n++) {
        const frames = [frame(whole), frame(whole.slice(0, n)), frame(whole)];
        const input = enc.encode(frames.join(''));
        const cuts = [frames[0]!.length, frames[0]!.length + frames[1]!.length];
        for (const mode of ['encode', 'decode'] as const) {
          const trace = (indexed: boolean) =>
            indexedTrace(mode, input, { ...LOOP_TERMS, framing: 'content-length' }, indexed, outputAppender, true, cuts);
          const on = trace(true);
          expect(on.taken, `${mode} ${n}`).toBeGreaterThan(0);
          expect(on.log, `${mode} ${n}`).toEqual(trace(false).log);
        }
      }
  });

  it('whitespace or another key after a head: still taken by the indexed path, as with it off', () => {
    for (const line of [
      '{"jsonrpc":"2.0", "method":"m"}',
      '{"jsonrpc":"2.0",\t"id":1,"result":{}}',
      '{"jsonrpc":"2.0","method": "m"}',
      '{"jsonrpc":"2.0","method":"m" ,"params":{"a":"wanx"}}',
      '{"jsonrpc":"2.0","x":1,"method":"m"}',
    ])
      for (const mode of ['encode', 'decode'] as const) {
        const on = loopLineTrace(mode, line, true);
        expect(on.taken, line).toBe(1);
        expect(on.log).toEqual(loopLineTrace(mode, line, false).log);
      }
  });

  it('a progress notification with a term: the head taken, the message string and its term after it', () => {
    const line = `${HEAD}notifications/progress","params":{"progressToken":5,"progress":5,"message":"update wanx now"}}`;
    const on = loopLineTrace('encode', line, true);
    expect(on.taken).toBe(1);
    expect(on.log).toEqual(loopLineTrace('encode', line, false).log);
    expect(JSON.stringify(on.log)).toContain(createCodec(LOOP_TERMS).encodeText('update wanx now'));
  });
});
