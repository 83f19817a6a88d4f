// Per-call latency rows, one way for every proxy the suite times (wrap over stdio, proxy over
// Streamable HTTP): the same call, the same percentile, the same two rows.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { decodeMessage } from '../src/index.ts';
import { median } from './harness.ts';
import type { CaseResult } from './report.ts';

/** The small call every latency row makes (its argument holds a term, so it is decoded and the reply encoded). */
export const call = (c: Client) => c.callTool({ name: 'open_app', arguments: { app: 'Qwen' } });

/** The reply decoded as the message it came in (the field policy goes by the message's paths). */
export const asResult = (r: unknown) => (decodeMessage({ jsonrpc: '2.0', id: 1, result: r }) as { result: unknown }).result;

export const percentile = (xs: readonly number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export const ms = (x: number) => `${x.toFixed(3)} ms`;

/** The p50 / p99 row beside direct, and the added-at-p50 row against its target. */
export function latencyRows(
  group: string,
  name: string,
  ours: readonly number[],
  direct: readonly number[],
  ratio: number,
  addedMs: number,
  maxAddedMs: number,
): CaseResult[] {
  const p5099 = (xs: readonly number[]) => `${ms(percentile(xs, 50))} / ${ms(percentile(xs, 99))}`;
  return [
    {
      group,
      name: `${name}: p50 / p99 latency`,
      bytes: 0,
      figure: p5099(ours),
      baselineName: 'direct',
      baselineFigure: p5099(direct),
      ratio,
    },
    {
      group,
      name: `${name}: added at p50 (median over rounds)`,
      bytes: 0,
      figure: ms(addedMs),
      target: `<= ${maxAddedMs} ms`,
      met: addedMs <= maxAddedMs,
    },
  ];
}

/** Latencies (ms) of `n` sequential calls pushed to `into`; the total ms. */
export async function timedCalls(c: Client, n: number, into: number[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(c);
    into.push(performance.now() - t);
  }
  return performance.now() - t0;
}

/**
 * Three sides (direct, through the tool, through a bare floor) in rounds that take turns, the
 * order rotating, so all see the same machine. The ratio (direct over through) and the added
 * times (p50 differences: through - direct, floor - direct, through - floor) are medians over
 * the rounds, so a slow spell on the host does not land on one side only.
 */
export async function rotatedRounds(
  sides: readonly Client[],
  calls: number,
  perRound: number,
): Promise<{ lat: number[][]; ratio: number; added: number; addedFloor: number; beyondFloor: number }> {
  const lat = sides.map(() => [] as number[]);
  const ratios: number[] = [];
  const added: number[][] = [[], [], []];
  for (let r = 0; r < calls / perRound; r++) {
    const took = [0, 0, 0];
    const before = lat.map((l) => l.length);
    for (let k = 0; k < sides.length; k++) {
      const s = (r + k) % sides.length;
      took[s] = await timedCalls(sides[s]!, perRound, lat[s]!);
    }
    ratios.push(took[0]! / took[1]!);
    const p50 = lat.map((l, s) => percentile(l.slice(before[s]), 50));
    added[0]!.push(p50[1]! - p50[0]!);
    added[1]!.push(p50[2]! - p50[0]!);
    added[2]!.push(p50[1]! - p50[2]!);
  }
  const [through, floor, beyond] = added.map(median) as [number, number, number];
  return { lat, ratio: median(ratios), added: through, addedFloor: floor, beyondFloor: beyond };
}
