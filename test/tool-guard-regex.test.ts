// The tool guard runs the server's schema patterns (pattern, patternProperties, propertyNames)
// in linear time, with JavaScript's meaning (RegExp with the `u` flag, as ajv uses), and never
// on a backtracking engine: a pattern it cannot run that way is not checked.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolCallGuard } from '../src/mcp/index.ts';
import { runs } from './arbitraries.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';

/** A guard that knows one tool, "t", with this inputSchema. */
function guardFor(inputSchema: Record<string, unknown>): ToolCallGuard {
  const guard = new ToolCallGuard();
  guard.outgoing({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } as JSONRPCMessage);
  guard.incoming({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 't', inputSchema }] } } as JSONRPCMessage);
  return guard;
}

const blocked = (guard: ToolCallGuard, args: Record<string, unknown>) => guard.check('t', args) !== undefined;
const withKey = (key: string, value: unknown) =>
  Object.defineProperty({}, key, { value, enumerable: true, writable: true, configurable: true }) as Record<string, unknown>;

/** The three places a pattern sits, and the verdict JavaScript's RegExp gives for each. */
function verdicts(pattern: string, s: string) {
  const matches = new RegExp(pattern, 'u').test(s);
  return [
    { schema: { type: 'object', properties: { x: { type: 'string', pattern } } }, args: { x: s }, block: !matches },
    { schema: { type: 'object', patternProperties: withKey(pattern, { type: 'number' }) }, args: withKey(s, 'text'), block: matches },
    { schema: { type: 'object', propertyNames: { pattern } }, args: withKey(s, 1), block: !matches },
  ];
}

// ToolCallGuard.check is synchronous once the schema compiler (loaded on first need) is in.
beforeAll(() => ToolCallGuard.ready());

describe('ToolCallGuard schema patterns', () => {
  it('runs ^(a+)+$ in linear time, with the verdict of an equivalent pattern', { timeout: 10_000 }, () => {
    const guard = guardFor({ type: 'object', properties: { x: { type: 'string', pattern: '^(a+)+$' } } });
    const evil = (n: number) => ({ x: 'a'.repeat(n) + '!' });
    blocked(guard, evil(5));
    // On a backtracking engine 4 more characters cost 16x (26 characters take about 0.4 s);
    // checking this first makes such an engine fail here instead of hanging below. (CPU time,
    // least of several runs: test/scaling.ts; the floor is for runs too quick to time.)
    expect(
      growth(
        () => blocked(guard, evil(22)),
        () => blocked(guard, evil(26)),
        1.25,
      ),
    ).toBeLessThan(4);
    // And linear: 4x the characters, about 4x the time.
    expect(
      growth(
        () => blocked(guard, evil(25_000)),
        () => blocked(guard, evil(100_000)),
      ),
    ).toBeLessThan(LINEAR_BOUND);
    for (let n = 30; n <= 40; n++) {
      for (const x of ['a'.repeat(n) + '!', 'a'.repeat(n)]) expect(blocked(guard, { x })).toBe(!/^a+$/u.test(x));
    }
    expect(blocked(guard, evil(100_000))).toBe(true);
    const reason = guard.check('t', { x: 'SECRET'.repeat(10) + '!' })!.reason;
    expect(reason).toBe('arguments do not match the tool\'s inputSchema: /x must match pattern "^(a+)+$" (rule "pattern")');
  });

  it('does not check patterns re2js cannot run (lookaround, backreferences), and never backtracks on them', { timeout: 10_000 }, () => {
    // Each value fails its pattern in JavaScript; unchecked, it passes.
    const cases: [string, string][] = [
      ['^(?=(a+)+$)a', 'a'.repeat(16) + '!'], // exponential on a backtracking engine
      ['^(?!x)', 'xy'],
      ['(?<=x)y', 'zy'],
      ['(?<!x)y', 'xy'],
      ['^(a)\\1$', 'ab'],
      ['^(?<n>a)\\k<n>$', 'ab'],
      ['\\p{Script=Greek}', 'a'],
    ];
    for (const [pattern, value] of cases) {
      expect(new RegExp(pattern, 'u').test(value)).toBe(false);
      for (const { schema, args, block } of verdicts(pattern, value)) {
        if (block) expect(blocked(guardFor(schema), args), `${pattern} ${JSON.stringify(args)}`).toBe(false);
      }
    }
    // Under patternProperties "not checked" applies the subschema to nothing and makes no
    // property additional.
    const guard = guardFor({
      type: 'object',
      patternProperties: { '^(?=z)': { type: 'number' }, '^w': { type: 'number' } },
      additionalProperties: false,
    });
    expect(blocked(guard, { zz: 'text', other: 1 })).toBe(false);
    expect(blocked(guard, { w: 'text' })).toBe(true);
    // A pattern JavaScript itself refuses is not checked either.
    expect(blocked(guardFor({ properties: { x: { pattern: '(' } } }), { x: 'a' })).toBe(false);
  });

  it("gives JavaScript's verdicts where RE2 syntax or meaning differs", () => {
    const patterns = [
      '^.$',
      '^\\s$',
      '^\\S$',
      '^[\\s]$',
      '^[^\\sa]$',
      '^a[]',
      '^[^]$',
      '^\\u{1F600}$',
      '^\\uD83D\\uDE00$',
      '^[\\b]$',
      '^\\cJ$',
      '^\\0$',
      '^[a[:b]+$',
      '^\\p{Lu}$',
      '^\\P{L}$',
      '^(?<n>a)b$',
      '^a{2,3}$',
      '^\\/$',
      '\\bb',
      '^\\w+$',
      '^\\d$',
      '^[\\u00e0-\\u00ff]$',
      '^\\x41$',
      '^[\\-a]$',
      'a$',
      '^a|b$',
    ];
    const strings = [
      '\n',
      '\r',
      'a',
      '\u00a0',
      '😀',
      '\b',
      '\u2028',
      'A',
      'É',
      'é',
      '\0',
      ':',
      '[',
      'ab',
      'aab',
      '/',
      '\ufeff',
      'a b',
      '٣',
      '1',
      '-',
      'a\n',
      '',
      'xb',
    ];
    for (const pattern of patterns) {
      const guards = verdicts(pattern, '').map(({ schema }) => guardFor(schema));
      for (const s of strings) {
        verdicts(pattern, s).forEach(({ args, block }, k) => {
          expect(blocked(guards[k]!, args), `${pattern} on ${JSON.stringify(s)}`).toBe(block);
        });
      }
    }
  });

  it('agrees with RegExp (u flag) on random simple patterns, in pattern, patternProperties and propertyNames', () => {
    const literal = fc.constantFrom('a', 'b', 'c', '1', '-', '\\.', ' ', 'é');
    const cls = fc.constantFrom(
      '[abc]',
      '[^a]',
      '[a-c]',
      '[\\d]',
      '[^\\w]',
      '[.]',
      '[a-]',
      '\\d',
      '\\w',
      '\\W',
      '\\s',
      '\\S',
      '.',
      '[\\s1]',
    );
    const quantifier = fc.constantFrom('', '', '?', '*', '+', '{1,2}', '{2}', '*?', '+?');
    const tree = fc.letrec((tie) => ({
      atom: fc.oneof({ depthSize: 'small', withCrossShrink: true }, literal, cls, tie('group')),
      group: fc.tuple(fc.constantFrom('(', '(?:'), tie('alt')).map(([open, inner]) => `${open}${inner})`),
      item: fc.tuple(tie('atom'), quantifier).map(([a, q]) => `${a}${q}`),
      seq: fc
        .array(fc.oneof({ weight: 6, arbitrary: tie('item') }, { weight: 1, arbitrary: fc.constantFrom('\\b', '\\B', '^', '$') }), {
          maxLength: 4,
        })
        .map((xs) => xs.join('')),
      alt: fc.array(tie('seq'), { minLength: 1, maxLength: 3 }).map((xs) => xs.join('|')),
    }));
    const pattern = fc
      .tuple(fc.boolean(), tree.alt as fc.Arbitrary<string>, fc.boolean())
      .map(([start, body, end]) => `${start ? '^' : ''}${body}${end ? '$' : ''}`);
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', '-', '.', ' ', '\n', '\u00a0', 'é', '_', 'A'), maxLength: 8 });
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 6 }), (p, strings) => {
        const guards = verdicts(p, '').map(({ schema }) => guardFor(schema));
        for (const s of strings) {
          verdicts(p, s).forEach(({ args, block }, k) => {
            expect(
              blocked(guards[k]!, args),
              `${JSON.stringify(p)} on ${JSON.stringify(s)} (${['pattern', 'patternProperties', 'propertyNames'][k]})`,
            ).toBe(block);
          });
        }
      }),
      runs(200),
    );
  });
});
