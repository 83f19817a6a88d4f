// The one command line parser, for the HTTP commands: repeatable options, serve's server
// command (as wrap's: from the first plain argument on, -- optional), options that do not
// apply to a command refused with exit code 2.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLAG_OPTIONS, LIST_OPTIONS, parseCommandLine, VALUE_OPTIONS } from '../src/cli/args.ts';
import { duration, MAX_DURATION_MS } from '../src/cli/http-args.ts';
import { UsageError } from '../src/cli/usage-error.ts';
import { runs } from './arbitraries.ts';
import { cliRunsOnce } from './fixtures/cli-session.ts';

describe('parseCommandLine for proxy, connect and serve', () => {
  // A value given apart from its option may not be spelled as one of ours (`--header --guard`
  // is more likely a forgotten value); joined (`--header=--guard`) it always is the value.
  const OURS = new Set<string>([...VALUE_OPTIONS, ...LIST_OPTIONS, ...FLAG_OPTIONS]);
  const spelledAsOurs = (v: string) => v === '-h' || (v.startsWith('--') && OURS.has(v.slice(2).split('=')[0]!));
  const value = fc.oneof(fc.string(), fc.constantFrom('-h', '--guard', '--prefix=x', '--root', '--', '-', '--nope', '-x'));

  it('repeatable options keep every value, in order, beside the others', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...LIST_OPTIONS), value, fc.boolean()), { maxLength: 8 }), (given) => {
        const argv = [
          'connect',
          'http://x/mcp',
          ...given.flatMap(([name, value, joined]) => (joined ? [`--${name}=${value}`] : [`--${name}`, value])),
          '--prefix',
          'p_x_',
        ];
        const slip = given.find(([, value, joined]) => !joined && spelledAsOurs(value));
        if (slip) {
          expect(() => parseCommandLine(argv)).toThrow(UsageError);
          expect(() => parseCommandLine(argv)).toThrow(`write --${slip[0]}=`);
          return;
        }
        const line = parseCommandLine(argv);
        const want: Record<string, string[]> = {};
        for (const [name, value] of given) want[name] = [...(want[name] ?? []), value];
        expect(line.lists).toEqual(want);
        expect(line.positionals).toEqual(['http://x/mcp']);
        expect(line.values).toEqual({ prefix: 'p_x_' });
      }),
      runs(200),
    );
  });

  it("serve's server command starts at its first plain argument, with or without --", () => {
    expect(parseCommandLine(['serve', '--port', '0', 'python3', 'server.py', '--port', '9'])).toMatchObject({
      command: 'serve',
      values: { port: '0' },
      child: ['python3', 'server.py', '--port', '9'],
    });
    expect(parseCommandLine(['serve', '--guard', '--', '-odd', '--guard'])).toMatchObject({
      flags: { guard: true },
      child: ['-odd', '--guard'],
    });
  });
});

describe('duration', () => {
  it('takes s, m, h or seconds up to the longest timer Node keeps, and refuses longer', () => {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, '': 1000 };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3_000_000 }), fc.constantFrom('s', 'm', 'h', '') as fc.Arbitrary<keyof typeof unit>, (n, u) => {
        const ms = n * unit[u];
        if (ms <= 2 ** 31 - 1) expect(duration(`${n}${u}`, '--x', 0)).toBe(ms);
        else expect(() => duration(`${n}${u}`, '--x', 0)).toThrow(UsageError);
      }),
      runs(300),
    );
    expect(duration('596h', '--x', 0)).toBe(596 * 3_600_000);
    expect(duration('2147483', '--x', 0)).toBe(2_147_483_000);
    expect(() => duration('597h', '--x', 0)).toThrow('--x must be at most 596h');
    expect(MAX_DURATION_MS).toBe(2 ** 31 - 1);
  });
});

describe('HTTP command options as processes', () => {
  const cases: [string[], RegExp][] = [
    [['connect', 'http://x/mcp', '--upstream', 'http://y'], /--upstream applies to proxy, not connect/],
    [['proxy', '--upstream', 'http://y', '--header', 'a: b'], /--header applies to connect, not proxy/],
    [['serve', '--framing', 'sse', 'true'], /--framing applies to encode, decode, not serve/],
    [['wrap', '--port', '1', 'true'], /--port applies to proxy, serve, not wrap/],
    [['proxy', '--upstream', 'http://y', '--guard', '--guard-tools-only'], /give one/],
    [['proxy', '--upstream', 'http://y', '--max-message-bytes', '0'], /--max-message-bytes must be/],
    [['serve', '--max-message-bytes', 'lots', 'true'], /--max-message-bytes must be/],
    [['connect', 'http://x/mcp', '--fold', 'nfkd'], /--fold must be/],
    [['proxy', '--upstream', 'ftp://y'], /--upstream must be an http/],
    // (Node keeps no timer past 2^31-1 ms: a longer one would end every session at once.)
    [['serve', '--session-idle', '597h', 'true'], /--session-idle must be at most 596h/],
    [['serve', '--session-idle', '2147484', 'true'], /--session-idle must be at most 596h/],
    [['proxy', '--upstream', 'http://y', '--upstream-timeout', 'soon'], /--upstream-timeout must be a duration/],
    [['serve', '--upstream-timeout', '1s', 'true'], /--upstream-timeout applies to proxy, not serve/],
    [['serve', '--prefix', '--guard', 'true'], /--prefix needs a value, and --guard is an option; .* write --prefix=--guard/],
  ];
  const ran = cliRunsOnce(cases.map(([args]) => args));
  it.each(cases.map(([args, message], k) => [args, message, k] as const))('%j is a usage error (exit 2, one line)', (_, message, k) => {
    const r = ran(k);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
