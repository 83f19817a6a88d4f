// Load through `mcp-payload-codec proxy`: 100 concurrent clients (the real SDK client, each
// holding the GET event stream the SDK opens after initialize) call a small tool as fast as
// their answers come, through the proxy and directly against the same upstream, in rounds that
// take turns. Throughput ratio (proxied / direct), p50 / p99 added latency, and errors (a
// failed call, or an answer that is not the direct one encoded), which must be 0.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { median } from '../harness.ts';
import { asResult, call, ms, percentile } from '../latency.ts';
import type { CaseResult } from '../report.ts';

const CLIENTS = 100;
const TERM = /qwen|alibaba/i;

interface Round {
  calls: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

/** Every client calls in a loop until `seconds` have passed; what came back is checked. */
async function round(clients: readonly Client[], seconds: number, proxied: boolean): Promise<Round> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          const r = (await call(c)) as { content?: { text?: string }[] };
          const text = (proxied ? (asResult(r) as typeof r) : r).content?.[0]?.text ?? '';
          // Direct answers hold the term; through the proxy, none may, and decoded they are the direct one.
          if (!TERM.test(text) || (proxied && TERM.test(JSON.stringify(r)))) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { calls: latencies.length, errors, seconds: (performance.now() - t0) / 1000, latencies };
}

export async function loadRows(
  connect: (url: string) => Promise<Client>,
  direct: string,
  proxied: string,
  quick: boolean,
): Promise<CaseResult[]> {
  const d = await Promise.all(Array.from({ length: CLIENTS }, () => connect(direct)));
  const p = await Promise.all(Array.from({ length: CLIENTS }, () => connect(proxied)));
  try {
    const seconds = quick ? 1.5 : 4;
    await round(d, 0.5, false);
    await round(p, 0.5, true);
    const rounds = { d: [] as Round[], p: [] as Round[] };
    for (let r = 0; r < (quick ? 1 : 3); r++) {
      // Taking turns, so drift on a shared machine falls on both sides alike.
      if (r % 2 === 0) {
        rounds.d.push(await round(d, seconds, false));
        rounds.p.push(await round(p, seconds, true));
      } else {
        rounds.p.push(await round(p, seconds, true));
        rounds.d.push(await round(d, seconds, false));
      }
    }
    const rate = (r: Round) => r.calls / r.seconds;
    const ratio = median(rounds.p.map((r, i) => rate(r) / rate(rounds.d[i]!)));
    const all = (rs: Round[]) => rs.flatMap((r) => r.latencies);
    const [ld, lp] = [all(rounds.d), all(rounds.p)];
    const errors = [...rounds.d, ...rounds.p].reduce((n, r) => n + r.errors, 0);
    const name = `${CLIENTS} concurrent clients, each calling and holding a GET stream`;
    return [
      {
        group: 'proxy',
        name: `${name}: calls/s, proxied vs direct (median of rounds)`,
        bytes: 0,
        figure: `${median(rounds.p.map(rate)).toFixed(0)} calls/s`,
        baselineName: 'direct',
        baselineFigure: `${median(rounds.d.map(rate)).toFixed(0)} calls/s`,
        ratio,
      },
      {
        group: 'proxy',
        name: `${name}: added latency p50 / p99; errors`,
        bytes: 0,
        figure: `${ms(percentile(lp, 50) - percentile(ld, 50))} / ${ms(percentile(lp, 99) - percentile(ld, 99))}; ${errors} errors`,
        target: '0 errors',
        met: errors === 0,
      },
    ];
  } finally {
    await Promise.allSettled([...d, ...p].map((c) => c.close()));
  }
}
