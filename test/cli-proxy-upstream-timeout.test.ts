// `proxy --upstream-timeout`'s default: how long the upstream may keep silent (before a response
// head, and inside a body) is 300 s, as fetch's undici had, whether the proxy is started from
// its command line or by runProxy. Held by the limits the proxy hands its upstream opener
// (cli/node-upstream.ts), not by a clock: the opener is wrapped to record them.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UpstreamLimits } from '../src/cli/node-upstream.js';

const given: UpstreamLimits[] = [];
vi.mock('../src/cli/node-upstream.js', async (original) => {
  const real = await original<typeof import('../src/cli/node-upstream.js')>();
  return {
    ...real,
    upstreamOpener: (limits?: UpstreamLimits) => {
      given.push({ ...(limits ?? real.UPSTREAM_LIMITS) });
      return real.upstreamOpener(limits);
    },
  };
});
// (the command returns as if signalled once it listens)
vi.mock('../src/cli/http-args.js', async (original) => ({
  ...(await original<typeof import('../src/cli/http-args.js')>()),
  untilSignal: () => Promise.resolve('SIGTERM'),
}));

const { parseCommandLine } = await import('../src/cli/args.js');
const { proxyCommand, runProxy } = await import('../src/cli/proxy.js');

const FIVE_MINUTES = { headersMs: 300_000, bodyIdleMs: 300_000 };
const UPSTREAM = 'http://127.0.0.1:9/mcp';

afterEach(() => {
  given.length = 0;
});

const command = (...flags: string[]) =>
  proxyCommand(parseCommandLine(['proxy', '--upstream', UPSTREAM, '--port', '0', ...flags]), {}, false);

describe('proxy: the upstream time limits it is given', () => {
  it('from the command line: 300 s each by default; --upstream-timeout sets both', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await command()).toBe(0);
    expect(await command('--upstream-timeout', '90s')).toBe(0);
    vi.restoreAllMocks();
    expect(given).toEqual([FIVE_MINUTES, { headersMs: 90_000, bodyIdleMs: 90_000 }]);
  });

  it('from runProxy: 300 s each unless upstreamTimeoutMs', async () => {
    for (const upstreamTimeoutMs of [undefined, 1_500]) {
      const { server } = await runProxy({ upstream: UPSTREAM, port: 0, log: () => {}, upstreamTimeoutMs });
      server.close();
    }
    expect(given).toEqual([FIVE_MINUTES, { headersMs: 1_500, bodyIdleMs: 1_500 }]);
  });
});
