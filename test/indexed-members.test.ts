// A payload object's common members in stage 2's small loop (assembly/json/indexed-members.ts):
// it hands back to stage 2's loop at the first thing it does not take. Objects made of members
// of every kind (keys with and without a rule, escaped, holding a term or a token; values of
// every kind, valid or not; whitespace at every place in a member), at every level where the
// envelope's rules differ, must come out of the indexed path as they do with it off: output,
// callbacks and errors; and so must the message object's own members (its loop, messageMembers),
// and arrays' values (arrayValues: scalars, strings, a payload array's objects, empty ones,
// whitespace and broken values at every place, arrays in arrays and in protocol fields).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { agreeTaken, LOOP_TERMS, loopLineTrace } from './indexed-trace.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

const codec = LOOP_TERMS;
const token = createCodec(codec).encodeText('wanx');

const traceOf = loopLineTrace;

// Keys: none of the rules (the loop's), each rule the envelope has, escaped, a term, a token.
const keys = [
  'a',
  'level',
  'wanx',
  token,
  'k\\u0061',
  'data',
  'type',
  'uri',
  'blob',
  '_meta',
  'progressToken',
  'taskId',
  'task',
  'tasks',
  'maxLength',
  'properties',
];
// Values: scalars, strings (a term, a token, escapes, a data: URI, media), containers, and broken ones.
const values = [
  '1',
  '-2.5e3',
  '0',
  'true',
  'null',
  '"x"',
  '""',
  '"wanx qwen"',
  `"${token}"`,
  '"a\\"b\\u00e9"',
  '"image/png"',
  '"data:text/plain;base64,d2FueA=="',
  '"data:text/plain;base64,wanxqwen"',
  '{}',
  '[]',
  '[1,"wanx"]',
  '{"b":"wanx","c":2}',
  '[{"taskId":"wanx"}]',
  '01',
  'fals',
  '-',
  '"open',
  ']',
];
const ws = fc.constantFrom('', '', '', ' ', '\t');
const member = fc
  .tuple(fc.constantFrom(...keys), ws, ws, fc.constantFrom(...values), ws)
  .map(([k, a, b, v, c]) => `"${k}"${a}:${b}${v}${c}`);
// (A comma before the end is not valid: the object has a member by then.)
const members = fc.tuple(fc.array(member, { maxLength: 6 }), fc.constantFrom('', '', ',')).map(([m, end]) => `{${m.join(',')}${end}}`);
// (Where the rules differ: the payload's first level, deeper, an array's objects, a tool schema;
// the first level after `tasks`, whose items' `taskId` are protocol fields, not those of a later
// member; `_meta`'s value, one too.)
// The message object's own members (its small loop: keys with and without a rule, any value).
const envelope = fc
  .array(
    fc
      .tuple(fc.constantFrom('jsonrpc', 'id', 'method', 'x', 'wanx', 'error'), ws, ws, fc.constantFrom(...values), ws)
      .map(([k, a, b, v, c]) => `"${k}"${a}:${b}${v}${c},`),
    { maxLength: 3 },
  )
  .map((m) => m.join(''));
// (And a message in a batch, whose level is 2, not 1.)
const placed = fc
  .tuple(members, fc.constantFrom('params', 'result', 'deeper', 'array', 'schema', 'tasks'), envelope, fc.boolean())
  .map(([obj, at, env, batch]) => {
    const inner = {
      params: obj,
      result: obj,
      deeper: `{"x":${obj},"y":1}`,
      array: `{"content":[${obj},${obj}]}`,
      schema: `{"tools":[{"name":"t","inputSchema":${obj}}]}`,
      tasks: `{"tasks":[1],${obj.slice(1, -1)}${obj === '{}' ? '' : ','}"z":[{"taskId":"wanx"}],"_meta":"wanx"}`,
    }[at];
    const message = `{${env}"jsonrpc":"2.0","id":1,"${at === 'params' ? 'params' : 'result'}":${inner}}`;
    return batch ? `[{"jsonrpc":"2.0","method":"m"},${message}]` : message;
  });

// Arrays for arrayValues: items of every kind (scalars, strings, objects of the loop's members,
// empty and nested containers, broken values), whitespace at every place, a comma before the end.
const scalars = ['1', '-2.5e3', 'true', 'null', 'false', '"x"', '""', '"wanx qwen"', `"${token}"`, '"a\\"b\\u00e9"'];
const broken = ['01', 'fals', '-', '"open', '}', ':', 'x', ''];
const smallObject = fc
  .tuple(
    ws,
    fc.array(fc.tuple(fc.constantFrom('a', 'wanx', 'type', 'data', 'uri', '_meta'), fc.constantFrom(...scalars, '[1]', '{}')), {
      maxLength: 3,
    }),
    ws,
  )
  .map(([a, m, b]) => `{${a}${m.map(([k, v]) => `"${k}":${v}`).join(',')}${b}}`);
const arrayOf = (item: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.array(fc.tuple(ws, item, ws), { maxLength: 5 }), ws, fc.constantFrom('', '', '', ','))
    .map(([xs, w, end]) => `[${xs.length === 0 ? w : ''}${xs.map(([a, x, b]) => `${a}${x}${b}`).join(',')}${end}]`);
const item0 = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...scalars) },
  { weight: 1, arbitrary: fc.constantFrom(...broken, '"data:text/plain;base64,d2FueA=="', '[]', '{}') },
  { weight: 2, arbitrary: smallObject },
);
const array1 = arrayOf(item0);
const array2 = arrayOf(fc.oneof({ weight: 3, arbitrary: item0 }, { weight: 1, arbitrary: array1 }));
// (Under a key of the payload, a protocol field's (no payload), and as the payload itself.)
const arrays = fc
  .tuple(array2, fc.constantFrom('params', 'result', 'progressToken', 'items', 'content'), fc.boolean())
  .map(([arr, at, batch]) => {
    const message =
      at === 'params'
        ? `{"jsonrpc":"2.0","method":"m","params":${arr}}`
        : `{"jsonrpc":"2.0","id":1,"result":${at === 'result' ? arr : `{"x":1,"${at}":${arr},"y":[2]}`}}`;
    return batch ? `[${message},{"jsonrpc":"2.0","method":"m"}]` : message;
  });
// The message's payload object, opened by its loop: empty, whitespace at its start and end.
const payloads = fc
  .tuple(ws, members, ws, fc.constantFrom('params', 'result', 'error'), fc.constantFrom('', ',"id":2', ' ,"id":2', '}'))
  .map(([a, obj, b, key, after]) => `{"jsonrpc":"2.0","${key}":${a}{${obj === '{}' ? b : ` ${obj.slice(1, -1)}${b}`}}${after}}`);

describe("an array's values and the message's payload object in stage 2's small loops", () => {
  for (const mode of ['encode', 'decode'] as const)
    it(`${mode}: every value kind at every place, as with the indexed path off`, () => {
      let taken = 0;
      fc.assert(
        fc.property(fc.oneof(arrays, payloads), (line) => {
          const on = traceOf(mode, line, true);
          expect(traceOf(mode, line, false).log).toEqual(on.log);
          if (on.taken > 0) taken++;
        }),
        runs(500),
      );
      expect(taken).toBeGreaterThan(100);
    });
});

// Valid arrays and payload objects of plain members only, which the indexed path must take
// itself (a loop that hands back in the wrong phase makes it give the message to the host,
// whose output is the same).
const plainValue = fc.constantFrom('1', '-2.5e3', 'true', 'null', '"x"', '""', '"wanx qwen"');
const plain = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 3 }, plainValue, tie('array'), tie('object')),
  array: fc
    .tuple(fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }), ws)
    .map(([xs, w]) => `[${xs.length === 0 ? w : xs.map(([a, x, b]) => `${a}${x}${b}`).join(',')}]`),
  object: fc
    .tuple(ws, fc.array(fc.tuple(fc.constantFrom('a', 'b'), ws, ws, tie('value'), ws), { maxLength: 4 }), ws)
    .map(([a, m, b]) => `{${a}${m.map(([k, w, x, v, y]) => `"${k}"${w}:${x}${v}${y}`).join(',')}${b}}`),
}));
const plainLines = fc
  .tuple(fc.oneof(plain.array, plain.object), fc.constantFrom('params', 'result', 'error'))
  .map(([v, key]) => `{"jsonrpc":"2.0","id":1,"${key}":{"a":${v},"b":1}}`);

describe("plain arrays and objects in stage 2's small loops", () => {
  for (const mode of ['encode', 'decode'] as const)
    it(`${mode}: plain containers at every depth with whitespace anywhere, taken by the indexed path`, () => {
      fc.assert(
        fc.property(
          fc.oneof(
            plainLines,
            plain.object.map((o) => `{"jsonrpc":"2.0","method":"m","params":${o}}`),
          ),
          (line) => {
            const on = traceOf(mode, line, true);
            expect(on.taken).toBe(1);
            expect(traceOf(mode, line, false).log).toEqual(on.log);
          },
        ),
        runs(300),
      );
    });
});

describe("a payload array's object at the depth limit", () => {
  // (The object opened by arrayValues at the last level the stack holds, and one past it.)
  for (const mode of ['encode', 'decode'] as const)
    it(`${mode}: accepted at the limit, refused past it, as with the indexed path off`, () => {
      const traces = [65533, 65534].map((k) => {
        const line = `{"jsonrpc":"2.0","method":"m","params":${'['.repeat(k)}{"a":"wanx"}${']'.repeat(k)}}`;
        const on = traceOf(mode, line, true);
        expect(traceOf(mode, line, false).log).toEqual(on.log);
        return on;
      });
      expect(traces.map((t) => JSON.stringify(t.log).includes('too-deep'))).toEqual([false, true]);
      expect(traces[0]!.taken).toBe(1);
    });
});

describe("a payload object's members in stage 2's small loop", () => {
  for (const mode of ['encode', 'decode'] as const)
    it(`${mode}: every member kind at every place, as with the indexed path off`, () => {
      agreeTaken(placed, (line, indexed) => traceOf(mode, line, indexed));
    });
});
