// Figures that are not throughput: cold start, WASM size, and peak memory of one huge message
// through a stream. Each measured in a fresh child process, so nothing else skews it.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { median } from '../harness.ts';
import type { CaseResult } from '../report.ts';

const MiB = 1024 * 1024;
const node = (args: string[]) => JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }).trim().split('\n').pop()!);

export function systemResults(quick: boolean): CaseResult[] {
  const starts = Array.from({ length: quick ? 3 : 7 }, () => node(['bench/cold-start.mjs']).ms as number);
  const cold = median(starts);
  const simd = statSync('build/core.simd.wasm').size;
  const scalar = statSync('build/core.scalar.wasm').size;
  const size = quick ? 64 * MiB : 256 * MiB;
  // Peak RSS depends on when the collector runs: three runs, the median judged, the worst shown.
  const runs = Array.from({ length: quick ? 1 : 3 }, () => node(['--expose-gc', 'scripts/run-ts.mjs', 'bench/memory.ts', String(size)]));
  const growths = runs.map((r) => r.peakRssGrowthBytes / MiB);
  const growth = median(growths);
  const mem = runs.find((r) => r.peakRssGrowthBytes / MiB === growth)!;
  const worst = Math.max(...growths);
  const fig = (group: string, name: string, figure: string, target: string, met: boolean, bytes = 0): CaseResult => ({
    group,
    name,
    bytes,
    figure,
    target,
    met,
  });
  const bundles = JSON.parse(readFileSync('dist/sizes.json', 'utf8')) as Record<string, { raw: number; gzip: number }>;
  const bundleRows = Object.entries(bundles).map(([file, b]) =>
    fig(
      'system',
      `ESM bundle ${file} with its chunks (raw / gzip)`,
      `${(b.raw / 1024).toFixed(1)} / ${(b.gzip / 1024).toFixed(1)} KiB`,
      '–',
      true,
    ),
  );
  return [
    ...bundleRows.map((r) => ({ ...r, target: undefined, met: undefined })),
    fig('system', 'cold start: import + first encodeText (median)', `${cold.toFixed(1)} ms`, '< 20 ms', cold < 20),
    fig(
      'system',
      'WASM size (SIMD / scalar)',
      `${(simd / 1024).toFixed(1)} / ${(scalar / 1024).toFixed(1)} KiB`,
      '< 64 KiB',
      simd < 64 * 1024,
    ),
    fig(
      'stream',
      `one ${size / MiB} MiB NDJSON message: peak RSS growth (median of ${runs.length}, worst)`,
      `${growth.toFixed(1)} MiB, worst ${worst.toFixed(1)} (${(mem.inputBytes / 1e6 / mem.seconds).toFixed(0)} MB/s)`,
      '< 64 MiB',
      growth < 64,
      mem.inputBytes,
    ),
  ];
}
