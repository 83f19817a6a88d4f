// resolveOptions keeps the last options object it resolved (a stream per HTTP response made with
// one object skips the cache key): a field changed in place since must be seen, never the
// old resolution returned.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CodecOptions, resolveOptions } from '../src/codec/options.ts';
import { runs } from './arbitraries.ts';

type Terms = { ascii?: string[]; exact?: string[]; pairs?: [string, string][] };
type Options = { prefix?: string; suffix?: string; hexCase?: 'lower' | 'upper'; fold?: 'ascii' | 'nfkc'; terms?: Terms };

const ASCII = ['qwen', 'tongyi', 'zeta', 'QWEN', 'omega'];
const EXACT = ['阿里', '通义', 'é'];
const PAIRS: [string, string][] = [
  ['ali', 'cloud'],
  ['ant', 'group'],
  ['zeta', 'one'],
];

const options = fc.record(
  {
    prefix: fc.constantFrom('__mcp_ref_', '__cuaf_'),
    hexCase: fc.constantFrom('lower' as const, 'upper' as const),
    fold: fc.constantFrom('ascii' as const, 'nfkc' as const),
    terms: fc.record(
      {
        ascii: fc.subarray(ASCII),
        exact: fc.subarray(EXACT),
        pairs: fc.subarray(PAIRS).map((ps) => ps.map((p): [string, string] => [p[0], p[1]])),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

// Changes made in place, each to what resolveOptions reads (some make the options invalid).
const change = fc.oneof(
  fc.constantFrom(...ASCII).map((t) => (o: Options) => o.terms?.ascii?.push(t)),
  fc.constantFrom(...EXACT).map((t) => (o: Options) => o.terms?.exact?.push(t)),
  fc.nat(4).map((i) => (o: Options) => o.terms?.ascii?.splice(i, 1)),
  fc.tuple(fc.nat(4), fc.constantFrom(...ASCII, '')).map(([i, t]) => (o: Options) => {
    if (o.terms?.ascii && i < o.terms.ascii.length) o.terms.ascii[i] = t;
  }),
  fc.tuple(fc.nat(2), fc.nat(1), fc.constantFrom('cloud', 'one', 'x')).map(([i, k, t]) => (o: Options) => {
    const pair = o.terms?.pairs?.[i];
    if (pair) pair[k] = t;
  }),
  // (a pair grown or shrunk: no longer a pair, though its first two strings stay)
  fc.tuple(fc.nat(2), fc.boolean()).map(([i, grow]) => (o: Options) => {
    const pair = o.terms?.pairs?.[i] as string[] | undefined;
    if (grow) pair?.push('x');
    else pair?.pop();
  }),
  fc.constantFrom('ascii', 'exact', 'pairs').map((k) => (o: Options) => {
    if (o.terms) delete o.terms[k as keyof Terms];
  }),
  fc.constantFrom(...EXACT).map((t) => (o: Options) => {
    o.terms = { ...o.terms, exact: [t] };
  }),
  fc.constantFrom('__mcp_ref_', '__cuaf_', '__x_').map((p) => (o: Options) => {
    o.prefix = p;
  }),
  fc.constantFrom('upper' as const, 'lower' as const).map((h) => (o: Options) => {
    o.hexCase = h;
  }),
  fc.constantFrom('ascii' as const, 'nfkc' as const).map((f) => (o: Options) => {
    o.fold = f;
  }),
);

/** The resolution's key, or the error's message. */
function outcome(o: CodecOptions): string {
  try {
    return resolveOptions(o).key;
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

describe('resolveOptions on the same object again', () => {
  it('sees every change made in place since it last resolved it, as a fresh copy would', () => {
    fc.assert(
      fc.property(options, fc.array(change, { minLength: 1, maxLength: 4 }), (o: Options, changes) => {
        outcome(o);
        for (const c of changes) {
          c(o);
          const got = outcome(o); // (o the last object resolved)
          expect(got).toBe(outcome(structuredClone(o)));
          outcome(o);
        }
      }),
      runs(300),
    );
  });

  it('sees a pair grown in place, its first two strings the same', () => {
    const pair = ['ali', 'cloud'];
    const o = { terms: { ascii: ['qwen'], pairs: [pair as [string, string]] } };
    resolveOptions(o);
    pair.push('x');
    expect(() => resolveOptions(o)).toThrow('terms.pairs[0] must be a [first, second] pair');
  });

  it('checks a terms object whose toJSON names a set resolved before: the lists it holds are read', () => {
    resolveOptions({ terms: { ascii: ['qwen'] } });
    const disguised = { toJSON: () => ({ ascii: ['qwen'] }), ascii: 'qwen' };
    expect(() => resolveOptions({ terms: disguised as never })).toThrow(/terms\.ascii/);
  });

  it('keeps the newest resolutions when more than its 64 sets were asked for', () => {
    const set = (i: number) => ({ terms: { ascii: [`zq${'w'.repeat(i)}`] } });
    for (let i = 1; i <= 70; i++) resolveOptions(set(i));
    expect(resolveOptions(set(70))).toBe(resolveOptions(set(70))); // (two objects: the cache, not the last one)
  });

  it('returns the same resolution, unchanged, for the same object asked again', () => {
    const o = { terms: { ascii: ['qwen'], pairs: [['ali', 'cloud']] as [string, string][] } };
    const first = resolveOptions(o);
    expect(resolveOptions(o)).toBe(first);
  });
});
