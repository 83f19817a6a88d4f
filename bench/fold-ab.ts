// The `fold nfkc` rows of the benchmark (bench/cases/fold.ts) on two builds in one process,
// alternating, timed in CPU time: a change to the fold's tables or the scan against the build
// it replaces. Each build's dist is loaded as a package would be (its own WASM instance); the
// outputs must agree. The ratio is the issue's: the default fold's time over fold 'nfkc''s, on
// the same build in the same round, the median over rounds.
//   node scripts/run-ts.mjs bench/fold-ab.ts <dist A> <dist B> [rounds] [text in a row's name]
// Columns: CPU ms per call of fold 'nfkc', median A / B; B's time over A's; each build's ratio.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { foldRows } from './cases/fold.ts';

interface Build {
  createCodec(o?: object): { encodeText(s: string): string };
  createByteTransformer(mode: 'encode', o: object, emit: (b: Uint8Array) => void): { push(c: Uint8Array): void; close(): void };
}
const [dirA, dirB] = [process.argv[2], process.argv[3]];
if (!dirA || !dirB) throw new Error('usage: bench/fold-ab.ts <dist A> <dist B> [rounds] [grep]');
const rounds = Number(process.argv[4] ?? 15);
const grep = process.argv[5]?.toLowerCase();
const load = async (dir: string): Promise<Build> => {
  const url = (file: string) => pathToFileURL(resolve(dir, file)).href;
  return { ...(await import(url('index.js'))), ...(await import(url('stream.js'))) } as Build;
};
const builds = [await load(dirA), await load(dirB)];

const SAMPLE_MS = 60;
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`${rounds} rounds, A ${dirA}, B ${dirB}: fold 'nfkc' CPU ms per call, median A / B, B/A; default / nfkc per build`);
const rows = builds.map((b) => foldRows(b.createCodec, b.createByteTransformer));
const width = Math.max(...rows[0]!.map((row) => row.name.length));
for (let r = 0; r < rows[0]!.length; r++) {
  const [a, b] = [rows[0]![r]!, rows[1]![r]!];
  if (grep && !a.name.toLowerCase().includes(grep)) continue;
  if (!isDeepStrictEqual(a.ours(), b.ours())) throw new Error(`${a.name}: the builds' outputs differ`);
  // [A nfkc, A default, B nfkc, B default]; a string result is read once, as the harness does
  const runs = [a.ours, a.baseline, b.ours, b.baseline].map((f) => () => {
    const v = f();
    if (typeof v === 'string') v.charCodeAt(v.length - 1);
  });
  const c0 = process.cpuUsage();
  a.baseline();
  const reps = Math.max(1, Math.round(SAMPLE_MS / Math.max(0.05, cpuMs(process.cpuUsage(c0)))));
  const times: number[][] = [[], [], [], []];
  for (let round = 0; round < rounds + 2; round++) {
    for (const k of round % 2 ? [3, 2, 1, 0] : [0, 1, 2, 3]) {
      const c1 = process.cpuUsage();
      for (let i = 0; i < reps; i++) runs[k]!();
      if (round >= 2) times[k]!.push(cpuMs(process.cpuUsage(c1)) / reps);
    }
  }
  const ratio = (nfkc: number[], plain: number[]) => median(nfkc.map((t, i) => plain[i]! / t));
  const [tA, tB] = [median(times[0]!), median(times[2]!)];
  console.log(
    `${a.name.padEnd(width)} ${tA.toFixed(3).padStart(7)} / ${tB.toFixed(3).padStart(7)}  x${(tB / tA).toFixed(3)}   A ${ratio(times[0]!, times[1]!).toFixed(3)}x  B ${ratio(times[2]!, times[3]!).toFixed(3)}x`,
  );
}
