// The benchmark table (stdout and README) and bench/results.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { Timing } from './harness.ts';

export interface Target {
  /** Human-readable target, e.g. ">= 5x" or ">= 1000 MB/s". */
  readonly label: string;
  readonly met: (r: CaseResult) => boolean;
}

export interface CaseResult {
  readonly group: string;
  readonly name: string;
  readonly bytes: number;
  /** Throughput; absent for figures that are not (cold start, size, memory). */
  readonly ours?: Timing;
  /** A figure shown instead of a throughput. */
  readonly figure?: string;
  readonly baselineName?: string;
  readonly baseline?: Timing;
  readonly ratio?: number;
  readonly target?: string;
  readonly met?: boolean;
}

const size = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);
const rate = (t: Timing) => `${t.mbps.toFixed(0)} (${t.low.toFixed(0)}–${t.high.toFixed(0)})`;

export function markdownTable(results: readonly CaseResult[]): string {
  const rows = [
    '| case | input | ours MB/s (min–max) | baseline | baseline MB/s | ratio | target | met |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    rows.push(
      `| ${r.group}: ${r.name} | ${r.bytes ? size(r.bytes) : '–'} | ${r.ours ? rate(r.ours) : r.figure ?? '–'} | ${r.baselineName ?? '–'} | ${r.baseline ? rate(r.baseline) : '–'} | ${r.ratio ? r.ratio.toFixed(1) + 'x' : '–'} | ${r.target ?? '–'} | ${r.met === undefined ? '–' : r.met ? 'met' : 'NOT met'} |`,
    );
  }
  return rows.join('\n');
}

export function environment() {
  return { date: new Date().toISOString().slice(0, 10), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length };
}

export function writeResults(file: string, results: readonly CaseResult[], extra: Record<string, unknown>) {
  writeFileSync(file, JSON.stringify({ ...environment(), ...extra, cases: results }, null, 2) + '\n');
}

/** Replaces the table between the bench markers in README.md. */
export function updateReadme(results: readonly CaseResult[]) {
  const env = environment();
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const readme = readFileSync('README.md', 'utf8');
  const i = readme.indexOf(start);
  const j = readme.indexOf(end);
  if (i < 0 || j < i) return;
  const body = `${start}\nMeasured ${env.date} on ${env.cpu} (${env.cores} cores), Node ${env.node}, \`npm run bench\`:\n\n${markdownTable(results)}\n`;
  writeFileSync('README.md', readme.slice(0, i) + body + readme.slice(j));
}
