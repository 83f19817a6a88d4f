// The benchmark table (stdout and docs/PERFORMANCE.md) and the results file.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { Timing } from './harness.ts';

/** A target a timed case is judged by: a speed-up over its baseline, a throughput, or both. */
export interface Target {
  /** At least this ratio to the baseline (baseline time / our time). */
  readonly ratio?: number;
  /** At least this throughput, MB/s. */
  readonly mbps?: number;
}

export interface CaseResult {
  readonly group: string;
  readonly name: string;
  readonly bytes: number;
  /** Timed rows: median and spread in their unit. */
  readonly ours?: Timing;
  /** A figure shown instead of a timing (cold start, size, memory, latency). */
  readonly figure?: string;
  readonly baselineName?: string;
  readonly baseline?: Timing;
  readonly baselineFigure?: string;
  /** How many times faster ours is than the baseline; below 1 means slower. */
  readonly ratio?: number;
  /** Kept for the chart: the ratio and the throughput a target asks for. */
  readonly targetRatio?: number;
  readonly targetMbps?: number;
  readonly target?: string;
  readonly met?: boolean;
}

export function targetLabel(t: Target, baselineName = 'baseline'): string {
  const parts = [];
  if (t.mbps !== undefined) parts.push(`>= ${t.mbps} MB/s`);
  if (t.ratio !== undefined) parts.push(`>= ${t.ratio}x ${baselineName}`);
  return parts.join(' and ');
}

export const targetMet = (t: Target, r: Pick<CaseResult, 'ours' | 'ratio'>) =>
  (t.mbps === undefined || (r.ours?.unit === 'MB/s' && r.ours.value >= t.mbps)) && (t.ratio === undefined || (r.ratio ?? 0) >= t.ratio);

const size = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);
/** Three significant figures at most, no more decimals than that. */
export const num = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const timed = (t: Timing) => `${num(t.value)} (${num(t.low)}–${num(t.high)}) ${t.unit}`;
const ratioText = (x: number) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`;

const faultsText = (r: CaseResult) =>
  r.ours?.faults === undefined
    ? '–'
    : `${Math.round(r.ours.faults)}${r.baseline?.faults !== undefined ? ` / ${Math.round(r.baseline.faults)}` : ''}`;

export function markdownTable(results: readonly CaseResult[]): string {
  const rows = [
    '| case | input | ours (min–max) | baseline | baseline (min–max) | ratio | target | met | page faults per call, ours / baseline |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    rows.push(
      `| ${r.group}: ${r.name} | ${r.bytes ? size(r.bytes) : '–'} | ${r.ours ? timed(r.ours) : (r.figure ?? '–')} | ${r.baselineName ?? '–'} | ${r.baseline ? timed(r.baseline) : (r.baselineFigure ?? '–')} | ${r.ratio !== undefined ? ratioText(r.ratio) : '–'} | ${r.target ?? '–'} | ${r.met === undefined ? '–' : r.met ? 'met' : 'NOT met'} | ${faultsText(r)} |`,
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

/** The table with the line that says where and when it was measured. */
export function tableWithHeader(results: readonly CaseResult[], command: string): string {
  const env = environment();
  return `Measured ${env.date} on ${env.cpu} (${env.cores} cores), Node ${env.node}, \`${command}\`:\n\n${markdownTable(results)}\n`;
}

/** Where `--record` writes the table, between the bench markers. */
export const TABLE_FILE = 'docs/PERFORMANCE.md';

/** Replaces the table between the bench markers in TABLE_FILE; false when the markers are missing. */
export function updateTable(results: readonly CaseResult[], command: string): boolean {
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const doc = readFileSync(TABLE_FILE, 'utf8');
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) return false;
  writeFileSync(TABLE_FILE, doc.slice(0, i) + `${start}\n${tableWithHeader(results, command)}` + doc.slice(j));
  return true;
}
