// A payload object's common members in stage 2's small loop (assembly/json/indexed-members.ts):
// it hands back to stage 2's loop at the first thing it does not take. Objects made of members
// of every kind (keys with and without a rule, escaped, holding a term or a token; values of
// every kind, valid or not; whitespace at every place in a member), at every level where the
// envelope's rules differ, must come out of the indexed path as they do with it off: output,
// callbacks and errors; and so must the message object's own members (its loop, messageMembers).
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCodec } from '../src/index.ts';
import type { StreamOptions } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { indexedTrace } from './indexed-trace.ts';
import { outputAppender } from './ndjson-scenarios.ts';

vi.mock('../src/core/wasm-bytes.ts', () => import('./wasm-bytes-with-hooks.ts')); // (the core with test hooks)

afterEach(() => {
  hooks.indexedPath(1);
});

const codec: StreamOptions = { terms: { ascii: ['wanx', 'qwen'] } };
const token = createCodec(codec).encodeText('wanx');

/** What one stream did with `line` (output, callbacks, errors), and whether the indexed path took it. */
const traceOf = (mode: 'encode' | 'decode', line: string, indexed: boolean) =>
  indexedTrace(mode, new TextEncoder().encode(`${line}\n`), codec, indexed, outputAppender);

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

describe("a payload object's members in stage 2's small loop", () => {
  for (const mode of ['encode', 'decode'] as const)
    it(`${mode}: every member kind at every place, as with the indexed path off`, () => {
      let taken = 0;
      fc.assert(
        fc.property(placed, (line) => {
          const on = traceOf(mode, line, true);
          expect(traceOf(mode, line, false).log).toEqual(on.log);
          if (on.taken > 0) taken++;
        }),
        runs(400),
      );
      // (Many lines reach the indexed path; else the loop is barely tested.)
      expect(taken).toBeGreaterThan(40);
    });
});
