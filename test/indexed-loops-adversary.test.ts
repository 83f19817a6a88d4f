// Stage 2's small loops (assembly/json/indexed-members.ts: payloadMembers, messageMembers,
// arrayValues and the objects they open) against the per-message path, on messages of any
// shape: arrays and objects nested in each other, empty ones, whitespace at every place, keys
// with every rule (media, schemas, protocol fields, escaped, a term, a token) and values of every
// kind at every position; then the same lines broken (a byte changed, cut short) at any offset,
// several in one stream, and the stream cut at any offset. Output, callbacks and errors must be
// those of the indexed path off.
import fc from 'fast-check';
import { afterEach, describe, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { agreeTaken, indexedTrace, LOOP_TERMS, loopLineTrace } from './indexed-trace.ts';
import { outputAppender } from './ndjson-scenarios.ts';
import { withoutStacks } from './no-stacks.ts';
import { expectEqual } from './quick-expect.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

const codec = LOOP_TERMS;
const token = createCodec(codec).encodeText('wanx');
const utf8 = new TextEncoder();

const keys = [
  'a',
  'b',
  'wanx',
  token,
  'k\\u0061',
  'data',
  'type',
  'uri',
  'blob',
  'mimeType',
  '_meta',
  'text',
  'name',
  'id',
  'progressToken',
  'cursor',
  'taskId',
  'task',
  'tasks',
  'tools',
  'inputSchema',
  'outputSchema',
  'properties',
  'items',
  'maxLength',
  'enum',
  'const',
  'default',
  'required',
  'content',
  'params',
  'result',
  'error',
  'method',
];
const scalars = [
  '1',
  '-2.5e3',
  '0',
  '12',
  'true',
  'false',
  'null',
  '"x"',
  '""',
  '"wanx qwen"',
  `"${token}"`,
  '"a\\"b\\u00e9\\\\"',
  '"image/png"',
  '"audio/wav"',
  '"text"',
  '"data:text/plain;base64,d2FueA=="',
  '"data:image/png;base64,wanx"',
  '"\\ud83d\\ude00wanx"',
];
const ws = fc.constantFrom('', '', '', '', ' ', '\t', ' \t ');

const json = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 5 }, fc.constantFrom(...scalars), tie('array'), tie('object')),
  array: fc
    .tuple(fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }), ws)
    .map(([xs, w]) => `[${xs.length === 0 ? w : xs.map(([a, x, b]) => `${a}${x}${b}`).join(',')}]`),
  object: fc
    .tuple(ws, fc.array(fc.tuple(ws, fc.constantFrom(...keys), ws, ws, tie('value'), ws), { maxLength: 4 }), ws)
    .map(([a, m, b]) => `{${m.length === 0 ? a : m.map(([w, k, x, y, v, z]) => `${w}"${k}"${x}:${y}${v}${z}`).join(',')}${b}}`),
}));

// Sibling objects of media members in an array: what one object's members note (its `uri`, its
// media `type`) must not reach the next one, opened by the same loop.
const mediaValue = fc.constantFrom('"image"', '"audio"', '"text"', '"x"', '"wanx"', '"image/png"', '1', '{"a":"wanx"}', '["wanx"]');
const mediaObject = fc
  .array(fc.tuple(fc.constantFrom('uri', 'blob', 'type', 'data', 'mimeType', 'a'), ws, mediaValue), { maxLength: 3 })
  .map((m) => `{${m.map(([k, w, v]) => `"${k}":${w}${v}${w}`).join(',')}}`);
const mediaArray = fc
  .tuple(fc.array(fc.tuple(ws, mediaObject), { minLength: 1, maxLength: 4 }), json.value)
  .map(([xs, v]) => `[${xs.map(([w, o]) => `${w}${o}`).join(',')},${v}]`);

// A message around a value: as params, result, error, in a tool's schema, in a payload array, deep.
const message = fc
  .tuple(
    fc.oneof(json.value, mediaArray),
    json.object,
    fc.constantFrom('params', 'result', 'error', 'schema', 'content', 'deep', 'tasks', 'id'),
    ws,
  )
  .map(([v, o, at, w]) => {
    const payload = {
      params: v,
      result: v,
      error: v,
      schema: `{"tools":[{"name":"t","inputSchema":${o}},${o}]}`,
      content: `{"content":[${v},${o}]}`,
      deep: `[[${v}],{"x":[${o},[${v}]]}]`,
      tasks: `{"tasks":[${o},${v}],"task":${o}}`,
      id: v,
    }[at];
    const key = at === 'params' || at === 'error' || at === 'id' ? at : 'result';
    return `{${w}"jsonrpc"${w}:${w}"2.0",${w}"id":1,${w}"${key}"${w}:${w}${payload}${w}}`;
  });
// The message object's own members in any order, any value (its loop opens an object under a
// payload key, escaped or repeated too; an id or a protocol member holds any value).
const envelope = fc
  .array(
    fc.tuple(
      ws,
      fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error', 'par\\u0061ms', '_meta', 'x', token),
      ws,
      ws,
      json.value,
      ws,
    ),
    { maxLength: 5 },
  )
  .map((m) => `{${m.map(([a, k, b, c, v, d]) => `${a}"${k}"${b}:${c}${v}${d}`).join(',')}}`);
const anyMessage = fc.oneof({ weight: 3, arbitrary: message }, { weight: 1, arbitrary: envelope });
const line = fc.tuple(anyMessage, anyMessage, fc.boolean()).map(([a, b, batch]) => (batch ? `[${a}, ${b}]` : a));
// A line broken: cut short, a byte changed or bytes put in, at any offset.
const broken = fc
  .tuple(line, fc.nat(), fc.constantFrom('cut', '{', '}', '[', ']', ',', ':', '"', '\\', ' ', 'x', '1', '-', '\u00e9'), fc.boolean())
  .map(([l, at, b, put]) => {
    // (Half the time just after a container's start, a comma, a colon or whitespace: where a loop hands back.)
    const after = [...l].flatMap((c, j) => ('{[,: \t'.includes(c) ? [j + 1] : []));
    const k = at % 2 === 0 && after.length > 0 ? after[(at >> 1) % after.length]! : at % (l.length + 1);
    return b === 'cut' ? l.slice(0, k) : `${l.slice(0, k)}${b}${l.slice(put ? k : k + 1)}`;
  });

const traceOf = (mode: 'encode' | 'decode', l: string, indexed: boolean) => withoutStacks(() => loopLineTrace(mode, l, indexed));

/** indexedTrace with the input pushed in pieces cut at `cuts` (any offsets, taken modulo its length). */
const cutTraceOf = (mode: 'encode' | 'decode', input: Uint8Array, cuts: number[], indexed: boolean) => {
  const at = cuts.map((c) => c % (input.length + 1)).sort((x, y) => x - y);
  return withoutStacks(() => indexedTrace(mode, input, codec, indexed, outputAppender, true, at));
};

describe("stage 2's small loops on messages of any shape", () => {
  for (const mode of ['encode', 'decode'] as const) {
    it(`${mode}: valid messages, as with the indexed path off`, () => {
      agreeTaken(line, (l, indexed) => traceOf(mode, l, indexed));
    });
    it(`${mode}: broken at any offset, as with the indexed path off`, () => {
      fc.assert(
        fc.property(broken, (l) => {
          expectEqual(traceOf(mode, l, false).log, traceOf(mode, l, true).log);
        }),
        runs(400),
      );
    });
    it(`${mode}: several lines in a stream cut at any offset, as with the indexed path off`, () => {
      fc.assert(
        fc.property(fc.array(fc.oneof(line, broken), { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 3 }), (ls, cuts) => {
          const input = utf8.encode(`${ls.join('\n')}\n`);
          expectEqual(cutTraceOf(mode, input, cuts, false).log, cutTraceOf(mode, input, cuts, true).log);
        }),
        runs(200),
      );
    });
  }
});

// Nested to the stack's cap and past it: the innermost containers opened by the loops (a payload
// array's objects, empty or not) or by stage 2, at the last level the stack holds and one past.
const deep = fc
  .tuple(
    fc.constantFrom(65533, 65534, 65534, 65535),
    fc.constantFrom('[', '[', '{"a":', '{"uri":"x","b":'),
    fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom('{}', '{ }', '{"a":1}', '{"uri":"x"}', '1,{}', '"wanx"') },
      { weight: 1, arbitrary: json.object },
      { weight: 1, arbitrary: json.value },
    ),
    ws,
  )
  .map(([k, open, v, w]) => {
    const close = open === '[' ? ']' : '}';
    return `{"jsonrpc":"2.0","method":"m","params":${open.repeat(k >> 1)}${'['.repeat(k - (k >> 1))}${w}${v}${w}${']'.repeat(k - (k >> 1))}${close.repeat(k >> 1)}}`;
  });

describe("stage 2's small loops at the stack's cap", () => {
  for (const mode of ['encode', 'decode'] as const)
    it(`${mode}: as with the indexed path off`, () => {
      fc.assert(
        fc.property(deep, (l) => {
          expectEqual(traceOf(mode, l, false).log, traceOf(mode, l, true).log);
        }),
        runs(60),
      );
    });
});
