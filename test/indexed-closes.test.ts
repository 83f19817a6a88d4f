// Stage 2's runs of closes (assembly/json/indexed.ts): a `}` or `]` right after a small loop's
// last member or value is taken in the same turn, and closes that follow each other at once are
// taken one after another without a turn of the loop each. Generated here: containers nested
// in any order (objects under keys with rules of their own: `data` taken as text, schemas,
// content, media; arrays), their last values of every kind, and after each close what the run
// takes (the next close at once, a comma) and what it just does not (whitespace, the wrong
// closer, a closer missing or one too many, the line's end); a media `type` after a `data` taken
// as text (read again). Output, callbacks and errors must be those of the indexed path off.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';
import { agreeTaken, LOOP_TERMS, loopLineTrace } from './indexed-trace.ts';

afterEach(() => {
  hooks.indexedPath(1);
});

const token = createCodec(LOOP_TERMS).encodeText('wanx');
const keys = [
  'a',
  'data',
  'data',
  'tools',
  'inputSchema',
  'inputSchema',
  'properties',
  'items',
  'maxLength',
  'content',
  'text',
  'uri',
  'type',
  '_meta',
  'wanx',
  token,
];
const lasts = [
  '1',
  'true',
  '"x"',
  '"wanx qwen"',
  `"${token}"`,
  '"image/png"',
  '{}',
  '[]',
  '{"a":1}',
  '[1,"wanx"]',
  '{"maxLength":5}',
  '"a\\u0041"',
];
const ws = fc.constantFrom('', '', '', ' ', '\t');

/** One level: an object's member (a sibling before it, or none) or an array's value. */
const level = fc.record({
  obj: fc.boolean(),
  key: fc.constantFrom(...keys),
  sibling: fc.constantFrom('', '', '"b":2,', '"c":"wanx",', '"type":"text",'),
  // (After this level's close: what follows in its parent.)
  after: fc.constantFrom('', '', '', '', ' ', ',"z":1', ',7', ',{"n":1}', ',{"maxLength":6}', ' ,"z":1'),
});

/** What the line's end does to the closes: nothing, a closer swapped, dropped, doubled, cut short. */
const mutation = fc.constantFrom('none', 'none', 'none', 'swap', 'drop', 'extra', 'cut', 'type');

const chain = fc
  .tuple(
    fc.array(level, { minLength: 1, maxLength: 7 }),
    fc.constantFrom(...lasts),
    fc.constantFrom('params', 'result', 'error'),
    mutation,
    fc.nat(),
    ws,
  )
  .map(([levels, last, key, mut, at, w]) => {
    // Opens from the outside in (an object under a key, an array bare), closes from the inside
    // out, each close's `after` fitting its parent.
    let open = '';
    const closes: string[] = [];
    for (const l of levels) open += l.obj ? `{${l.sibling}"${l.key}":` : `[${l.sibling === '' ? '' : '3,'}`;
    for (let k = levels.length - 1; k >= 0; k--) {
      const l = levels[k]!;
      const parentObj = k === 0 ? true : levels[k - 1]!.obj;
      const after = k === 0 ? '' : parentObj ? l.after.replace(',7', ',"y":7').replace(/,(\{.*)/, ',"o":$1') : l.after.replace(/"z":/, '');
      closes.push(`${l.obj ? '}' : ']'}${after}`);
    }
    const j = at % closes.length;
    const c = closes[j]!;
    if (mut === 'swap') closes[j] = (c[0] === '}' ? ']' : '}') + c.slice(1);
    else if (mut === 'drop') closes[j] = c.slice(1);
    else if (mut === 'extra') closes[j] = c[0] + c;
    const tail = mut === 'type' ? ',"type":"image"' : '';
    const line = `{"jsonrpc":"2.0","id":1,"${key}":${w}${open}${last}${closes.join('')}${tail}}`;
    return mut === 'cut' ? line.slice(0, line.length - 1 - (at % Math.min(8, line.length - 1))) : line;
  });

// Log and error notifications as the benchmark's kinds have them, their `data` of any shape.
const notification = fc
  .tuple(fc.constantFrom(...lasts), ws, fc.boolean())
  .map(([v, w, err]) =>
    err
      ? `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid: wanx","data":{"field":${v},"got":"qwen"${w}}${w}}${w}}`
      : `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"event":${v},"ms":4}${w}}${w}}`,
  );

describe("stage 2's runs of closes", () => {
  for (const mode of ['encode', 'decode'] as const) {
    it(`${mode}: nested containers closed at once, or not, as with the indexed path off`, () => {
      agreeTaken(
        fc.oneof({ weight: 3, arbitrary: chain }, { weight: 1, arbitrary: notification }),
        (l, indexed) => loopLineTrace(mode, l, indexed),
        600,
      );
    });
    it(`${mode}: the run's edges, as with the indexed path off`, () => {
      // (Each a case the run takes or just does not; spelled out so that none is left to chance.)
      for (const l of [
        '{"jsonrpc":"2.0","method":"m","params":{"a":[1,2]}}',
        '{"jsonrpc":"2.0","method":"m","params":{"a":[1,2}}}',
        '{"jsonrpc":"2.0","method":"m","params":{"a":{"b":1]}}',
        '{"jsonrpc":"2.0","method":"m","params":{"a":{"b":1} }}',
        '{"jsonrpc":"2.0","method":"m","params":{"a":{"b":1}}}}',
        '{"jsonrpc":"2.0","method":"m","params":{"a":{"b":1}}',
        '{"jsonrpc":"2.0","method":"m","params":{"a":[[1]]}}',
        '{"jsonrpc":"2.0","method":"m","params":{"a":[{"b":1]}}',
        '{"jsonrpc":"2.0","method":"m","params":{"a":[{"b":1}]},"x":1}',
        '{"jsonrpc":"2.0","method":"m","params":{"data":{"b":"wanx"}},"type":"image"}',
        '{"jsonrpc":"2.0","method":"m","params":{"data":{"b":"wanx"},"type":"image"}}',
        '{"jsonrpc":"2.0","method":"m","params":{"data":{"data":{"b":"wanx"}},"type":"image"}}',
        '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"properties":{"p":{"maxLength":5}}}}],"maxLength":5}}',
        '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"properties":{"p":{"maxLength":5}}},"x":{"maxLength":6}}]}}',
        '[{"jsonrpc":"2.0","method":"m","params":{"a":{"b":1}}},{"jsonrpc":"2.0","method":"m"}]',
        '[{"jsonrpc":"2.0","method":"m","params":{"a":{"b":1}}}}',
      ]) {
        expect(loopLineTrace(mode, l, true).log, l).toEqual(loopLineTrace(mode, l, false).log);
      }
    });
  }
});

describe('data taken as text, closed in runs', () => {
  // (More than TAKEN_NESTING (8) `data` objects taken as text, each closed in a run: the output
  // is the per-message path's. That a later `data` is still taken in one pass, not by reading
  // the message again, only a count shows: indexed-closes-regions' "read once" test.)
  it('many data objects in turn, as with the indexed path off', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 3 }), fc.boolean(), (count, depth, media) => {
        const one = `${'{"data":'.repeat(depth)}{"e":"wanx"}${'}'.repeat(depth)}`;
        const l = `{"jsonrpc":"2.0","method":"m","params":{"a":[${Array.from({ length: count }, () => one).join(',')}]${media ? ',"type":"image"' : ''}}}`;
        for (const mode of ['encode', 'decode'] as const)
          expect(loopLineTrace(mode, l, true).log).toEqual(loopLineTrace(mode, l, false).log);
      }),
      runs(60),
    );
  });
});
