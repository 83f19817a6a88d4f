// Stage 2's runs of closes (assembly/json/indexed.ts `closeRun`) where the containers closed
// belong to regions with rules of their own: a tool's inputSchema / outputSchema (encoding widens
// its maxLength; its `default` / `enum` / `const` / `examples` are not widened; its `properties`
// hold names), `data` taken as text, media, `_meta`; runs that end at the line's end, before
// whitespace or CR, before trailing garbage or a second value, across a 64-byte block edge, and
// after a value the small loops refuse mid-way. test/indexed-closes.test.ts generates chains of
// containers; the schema region is reached only under result.tools[], so it is built here.
// Output, callbacks and errors must be those of the indexed path off, in both modes.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { agreeTaken, indexedTrace, LOOP_TERMS, loopLineTrace } from './indexed-trace.ts';
import { outputAppender } from './ndjson-scenarios.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

const token = createCodec(LOOP_TERMS).encodeText('wanx');
const q = (s: string) => JSON.stringify(s);

/** Names in a schema's `properties` (keywords among them: names there, not keywords). */
const name = fc.constantFrom('p', 'maxLength', 'properties', 'default', 'items', 'data', 'type', '_meta', 'wanx', token);
const scalar = fc.constantFrom('1', '-2.5e3', 'true', 'null', '"x"', '"wanx"', q(token), '"a\\u0041"', '"\\n"', '"image/png"');
const ws = fc.constantFrom('', '', '', '', ' ', '\t');

// (Protocol fields too: kept or not by their depth under params or result, J_L1 set at the first level.)
const key = fc.constantFrom(
  'a',
  'maxLength',
  'data',
  'type',
  'blob',
  'uri',
  '_meta',
  'wanx',
  token,
  'task',
  'taskId',
  'tasks',
  'cursor',
  'progressToken',
);
const object = (value: fc.Arbitrary<string>) =>
  fc.array(fc.tuple(key, value, ws), { maxLength: 3 }).map((m) => `{${m.map(([k, v, w]) => `${q(k)}:${v}${w}`).join(',')}}`);

/** Any JSON, its keys some of those with rules; containers often closed one right after another. */
const { any } = fc.letrec<{ any: string }>((tie) => ({
  any: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('any'), { maxLength: 3 }).map((a) => `[${a.join(',')}]`),
    object(tie('any')),
    // (An array of flat objects: the small loops open and close them; its `]` follows a `}` at once.)
    fc.array(object(scalar), { minLength: 1, maxLength: 3 }).map((a) => `[${a.join(',')}]`),
  ),
}));

/** A schema, its keywords in any order: maxLength before and after nested schemas' closes. */
const { schema } = fc.letrec<{ schema: string }>((tie) => ({
  schema: fc
    .array(
      fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom('"type":"string"', '"maxLength":5', '"description":"wanx qwen"', `"title":${q(token)}`, '"minLength":0'),
        fc
          .array(fc.tuple(name, tie('schema')), { maxLength: 3 })
          .map((p) => `"properties":{${p.map(([k, s]) => `${q(k)}:${s}`).join(',')}}`),
        tie('schema').map((s) => `"items":${s}`),
        fc.array(tie('schema'), { maxLength: 3 }).map((a) => `"anyOf":[${a.join(',')}]`),
        fc.tuple(fc.constantFrom('default', 'const', 'enum', 'examples', '_meta', 'data', 'x'), any).map(([k, v]) => `${q(k)}:${v}`),
      ),
      { maxLength: 4 },
    )
    .chain((members) => ws.map((w) => `{${members.join(',')}${w}}`)),
}));

const tool = fc
  .tuple(
    fc.nat(80),
    fc.constantFrom('inputSchema', 'outputSchema', 'annotations'),
    schema,
    fc.constantFrom('', ',"maxLength":6', ',"x":{"maxLength":7}', ',"_meta":{}', ',"description":"wanx"'),
  )
  .map(([pad, key, s, after]) => `{"name":"${'n'.repeat(pad)}","${key}":${s}${after}}`);

/** What follows the message's last close on its line: nothing, whitespace, CR, or not JSON. */
const tail = fc.constantFrom('', '', '', '', ' ', '\r', ' \r', '}', ']', ',', ' {}', '1', 'x', '{"a":1}');

/** Each close of `line` outside its strings. */
function closers(line: string): number[] {
  const at: number[] = [];
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '}' || c === ']') at.push(i);
  }
  return at;
}

/** One close of the line swapped, dropped, doubled or followed by whitespace; or none touched. */
const mutate = (line: fc.Arbitrary<string>) =>
  fc.tuple(line, fc.constantFrom('none', 'none', 'none', 'swap', 'swap', 'drop', 'extra', 'space', 'cr'), fc.nat()).map(([l, mut, n]) => {
    const at = closers(l);
    if (mut === 'none' || at.length === 0) return l;
    const i = at[n % at.length]!;
    const c = l[i]!;
    const to =
      mut === 'swap' ? (c === '}' ? ']' : '}') : mut === 'drop' ? '' : mut === 'extra' ? c + c : mut === 'space' ? `${c} ` : `${c}\r`;
    return l.slice(0, i) + to + l.slice(i + 1);
  });

const toolsLine = fc
  .tuple(
    fc.array(tool, { minLength: 1, maxLength: 3 }),
    fc.constantFrom('', ',"nextCursor":"c"', ',"maxLength":8', ',"_meta":{"a":[{}]}'),
    tail,
  )
  .map(([ts, after, t]) => `{"jsonrpc":"2.0","id":1,"result":{"tools":[${ts.join(',')}]${after}}}${t}`);

/** Any payload under params, result or error, or inside a batch; padded to move the closes across block edges. */
const anyLine = fc
  .tuple(fc.constantFrom('params', 'result', 'error'), fc.nat(70), any, fc.boolean(), tail)
  .map(([key, pad, v, batch, t]) => {
    const m = `{"jsonrpc":"2.0","method":"m${'m'.repeat(pad)}","${key}":{"v":${v}}}`;
    return `${batch ? `[${m},${m}]` : m}${t}`;
  });

describe('closes in runs, in regions with rules of their own', () => {
  for (const mode of ['encode', 'decode'] as const) {
    it(`${mode}: tools' schemas, as with the indexed path off`, () => {
      agreeTaken(mutate(toolsLine), (l, indexed) => loopLineTrace(mode, l, indexed), 300);
    });
    it(`${mode}: any payload, padded across block edges, as with the indexed path off`, () => {
      agreeTaken(mutate(anyLine), (l, indexed) => loopLineTrace(mode, l, indexed), 300);
    });
    it(`${mode}: lines one after another in one push, as with the indexed path off`, () => {
      // (What closing leaves (the schema region, what `data` taken as text counts) must not reach the next line.)
      fc.assert(
        fc.property(fc.array(fc.oneof(toolsLine, anyLine), { minLength: 2, maxLength: 4 }), (ls) => {
          const input = new TextEncoder().encode(`${ls.join('\n')}\n`);
          const on = indexedTrace(mode, input, LOOP_TERMS, true, outputAppender);
          expect(indexedTrace(mode, input, LOOP_TERMS, false, outputAppender).log).toEqual(on.log);
        }),
        runs(80),
      );
    });
  }
});

describe('closes in runs, spelled out', () => {
  const widen = (s: string) => `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":${s}}]}}`;
  const lines = [
    // (The schema region ends with inputSchema's close, in a run or not; a maxLength after it is the tool's own.)
    '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"properties":{"p":{"maxLength":5}}},"maxLength":6}]}}',
    '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"properties":{"p":{"maxLength":5}}}},{"name":"u","maxLength":6}]}}',
    '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"items":{"items":{"items":{}}}},"x":{"maxLength":6}}]}}',
    // (A data keyword's region ends in a run; a maxLength after it, in the schema, is widened.)
    widen('{"properties":{"p":{"default":{"a":{"b":[{}]}},"maxLength":5}}}'),
    widen('{"default":[[[{"maxLength":1}]]],"maxLength":5}'),
    widen('{"enum":[{"x":{}}],"properties":{"maxLength":{"maxLength":5}},"maxLength":6}'),
    // (A name map closed in a run: its parent's keys are keywords again.)
    widen('{"properties":{"a":{"properties":{"b":{}}}},"maxLength":5}'),
    widen('{"properties":{"a":{"properties":{"b":{}}}}, "maxLength":5}'),
    widen('{"properties":{"a":{"properties":{"b":{}}}}\r,"maxLength":5}'),
    // (A closer that does not match, after the small loops' last member or value, in a run.)
    '{"jsonrpc":"2.0","method":"m","params":{"a":[{"b":1]]}}',
    '{"jsonrpc":"2.0","method":"m","params":{"a":[{"b":1}}}}',
    '{"jsonrpc":"2.0","method":"m","params":{"a":[[1,2}]}}',
    '{"jsonrpc":"2.0","method":"m","params":{"a":{"b":[1]]}}',
    // (A comma after the run's last close, then what may not follow one.)
    '{"jsonrpc":"2.0","method":"m","params":{"a":[{"b":1}],}}',
    '{"jsonrpc":"2.0","method":"m","params":{"a":[[{"b":1}],]}}',
    '{"jsonrpc":"2.0","method":"m","params":{"a":[[1]],\r"b":2}}',
    '[{"jsonrpc":"2.0","method":"m","params":{"a":[1]}},]',
    // (The run ends at the line's end, before CR, before what is not JSON.)
    `${widen('{"maxLength":5}')}\r`,
    `${widen('{"maxLength":5}')}}`,
    `${widen('{"maxLength":5}')} {}`,
    `${widen('{"maxLength":5}')}]`,
    widen('{"maxLength":5}').slice(0, -1),
    widen('{"maxLength":5}').slice(0, -2),
    // (A `data` taken as text closed in a run; a media type after it.)
    '{"jsonrpc":"2.0","method":"m","params":{"content":[{"data":{"a":{"b":[1]}},"type":"image"}]}}',
    '{"jsonrpc":"2.0","method":"m","params":{"content":[{"data":{"a":{"b":[1]}}}],"type":"image"}}',
    '{"jsonrpc":"2.0","method":"m","params":{"_meta":{"a":{"b":{}}},"text":"wanx"}}',
  ];
  for (const mode of ['encode', 'decode'] as const) {
    it(`${mode}: as with the indexed path off`, () => {
      for (const l of lines) expect(loopLineTrace(mode, l, true).log, l).toEqual(loopLineTrace(mode, l, false).log);
    });
    it(`${mode}: closes at every offset from a 64-byte block edge, as with the indexed path off`, () => {
      for (let pad = 0; pad < 70; pad++) {
        const l = `{"jsonrpc":"2.0","method":"${'m'.repeat(pad)}","params":{"a":[{"b":[[{"c":"wanx"}]]}]}}`;
        expect(loopLineTrace(mode, l, true).log, l).toEqual(loopLineTrace(mode, l, false).log);
      }
    });
    it(`${mode}: a run in a line too long for the per-message path in one call, as with the indexed path off`, () => {
      const long = `{"description":"${'wanx '.repeat(40_000)}","properties":{"p":{"default":{"a":[{}]}}},"maxLength":5}`;
      const taken: number[] = [];
      for (const l of [widen(long), `${widen(long)}}`, widen(long).replace('}}},"maxLength"', '}]},"maxLength"')]) {
        const on = loopLineTrace(mode, l, true);
        expect(loopLineTrace(mode, l, false).log).toEqual(on.log);
        taken.push(on.taken);
      }
      expect(taken).toEqual([1, 0, 0]);
    });
    it(`${mode}: a run deeper than the stack holds, as with the indexed path off`, () => {
      for (const d of [7, 8, 9, 31, 32, 33, 63, 64, 65, 100]) {
        const l = `{"jsonrpc":"2.0","method":"m","params":{"a":${'[{"b":'.repeat(d)}1${'}]'.repeat(d)}}}`;
        expect(loopLineTrace(mode, l, true).log, l).toEqual(loopLineTrace(mode, l, false).log);
      }
    });
  }
});

describe('data taken as text, closed in runs, read once', () => {
  // (What is open of `data` taken as text is counted down at each close of a run, not the
  // first alone: else more than TAKEN_NESTING (8) in turn read the message again, the same
  // output and twice the work, which only the count of messages read again shows.)
  it('more than eight in turn, each closed in a run: no message read again', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 3, max: 6 }),
        fc.constantFrom('encode', 'decode'),
        (depth, count, mode) => {
          const one = `${'{"data":'.repeat(depth)}{"e":"wanx"}${'}'.repeat(depth)}`;
          const l = `{"jsonrpc":"2.0","method":"m","params":{"a":[${Array.from({ length: count }, () => one).join(',')}]}}`;
          const again = hooks.indexedAgain();
          const on = loopLineTrace(mode, l, true);
          expect([on.taken, hooks.indexedAgain() - again]).toEqual([1, 0]);
          expect(loopLineTrace(mode, l, false).log).toEqual(on.log);
        },
      ),
      runs(20),
    );
  });
});
