// npm run bench [-- --quick] [-- --only=group] [-- --grep=text] [-- --record]: every case, side by side with its
// baseline, in one process. Results go to bench/out/ (ignored by git); --record (a full run
// only) writes the tracked ones instead: docs/PERFORMANCE.md's table, bench/results.json, bench/chart.svg.
import { mkdirSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { BenchCase } from './case.ts';
import { accessCases } from './cases/access.ts';
import { cliStartResults } from './cases/cli-start.ts';
import { floorCases } from './cases/floors.ts';
import { foldCases } from './cases/fold.ts';
import { httpResults } from './cases/http.ts';
import { messageCases } from './cases/messages.ts';
import { streamCases } from './cases/streams.ts';
import { systemResults } from './cases/system.ts';
import { textCases } from './cases/text.ts';
import { wrapResults } from './cases/wrap.ts';
import { wrapWorkCases } from './cases/wrap-work.ts';
import { writeChart } from './chart.ts';
import { FULL, type Measure, QUICK, type Timing, time, timePair } from './harness.ts';
import {
  type CaseResult,
  markdownTable,
  TABLE_FILE,
  tableWithHeader,
  targetLabel,
  targetMet,
  updateTable,
  writeResults,
} from './report.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const record = args.includes('--record');
const only = args.find((a) => a.startsWith('--only='))?.slice(7);
// Rows whose name holds this text (any case), e.g. --only=stream --grep=progress.
const grep = args
  .find((a) => a.startsWith('--grep='))
  ?.slice(7)
  .toLowerCase();
const unknown = args.filter((a) => !['--quick', '--record'].includes(a) && !a.startsWith('--only=') && !a.startsWith('--grep='));
if (unknown.length) fail(`unknown option ${unknown[0]} (options: --quick, --only=<group prefix>, --grep=<text in a row's name>, --record)`);
// The tracked results are the full suite's: a smoke run or a part of it would replace them with less.
if (record && (quick || only || grep)) fail('--record needs a full run: drop --quick, --only and --grep');
const harness = quick ? QUICK : FULL;
const selected = (group: string) => !only || group.startsWith(only);
const named = (name: string) => !grep || name.toLowerCase().includes(grep);
// The stream corpora take seconds to build: only when their group is selected.
const streams = !only || 'stream'.startsWith(only) ? streamCases() : [];
const cases: BenchCase[] = [
  ...textCases(),
  ...messageCases(),
  ...streams,
  ...foldCases(),
  ...floorCases(),
  ...wrapWorkCases(),
  ...(await accessCases()),
].filter((c) => selected(c.group) && named(c.name));

/** Page faults per call where there were any to speak of: what moves a row on a VM (harness.ts). */
function faultsNote(ours: Timing, baseline: Timing | undefined): string {
  if (ours.faults === undefined || (ours.faults < 1 && (baseline?.faults ?? 0) < 1)) return '';
  return ` (page faults per call: ${Math.round(ours.faults)}${baseline?.faults !== undefined ? `, baseline ${Math.round(baseline.faults)}` : ''})`;
}

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

const results: CaseResult[] = [];
for (const c of cases) {
  // Equal work first: a baseline that computes something else would make the ratio meaningless.
  const mine = await c.ours();
  if (c.check ? !(await c.check()) : c.baseline && !isDeepStrictEqual(mine, await c.baseline()))
    throw new Error(`${c.group}: ${c.name}: output differs from ${c.baselineName}`);
  const m: Measure = { unit: c.unit ?? 'MB/s', bytes: c.bytes, messages: c.messages };
  const pair = c.baseline ? await timePair(c.ours, c.baseline, m, harness) : undefined;
  const ours = pair?.ours ?? (await time(c.ours, m, harness));
  const partial: CaseResult = {
    group: c.group,
    name: c.name,
    bytes: c.bytes,
    ours,
    baselineName: c.baselineName,
    baseline: pair?.baseline,
    ratio: pair?.ratio,
  };
  const result: CaseResult = c.target
    ? {
        ...partial,
        target: targetLabel(c.target, c.baselineName),
        targetRatio: c.target.ratio,
        targetMbps: c.target.mbps,
        met: targetMet(c.target, partial),
      }
    : partial;
  results.push(result);
  process.stderr.write(
    `${c.group}: ${c.name}: ${ours.value.toFixed(ours.unit === 'MB/s' ? 0 : 2)} ${ours.unit}${pair ? `, ${pair.ratio.toFixed(2)}x ${c.baselineName}` : ''}${faultsNote(ours, pair?.baseline)}\n`,
  );
}
if (selected('wrap') && !grep) {
  const rows = await wrapResults(quick);
  results.push(...rows);
  for (const r of rows) process.stderr.write(`${r.group}: ${r.name}: ${r.figure}\n`);
}
if (selected('proxy') && !grep) {
  const rows = await httpResults(quick);
  results.push(...rows);
  for (const r of rows)
    process.stderr.write(
      `${r.group}: ${r.name}: ${r.figure ?? `${r.ours!.value.toFixed(0)} ${r.ours!.unit}, ${r.ratio!.toFixed(2)}x ${r.baselineName}`}\n`,
    );
}
if ((selected('system') || selected('stream')) && !grep) results.push(...systemResults(quick), ...cliStartResults(quick));
console.log(markdownTable(results));

const mode = quick ? 'quick' : only || grep ? `only ${[only, grep && `grep ${grep}`].filter(Boolean).join(', ')}` : 'full';
if (record) {
  writeResults('bench/results.json', results, { mode });
  writeChart('bench/chart.svg', results);
  if (!updateTable(results, 'npm run bench -- --record')) fail(`${TABLE_FILE} has no bench markers: the table was not updated`);
  process.stderr.write(`bench: recorded in ${TABLE_FILE}, bench/results.json, bench/chart.svg\n`);
} else {
  mkdirSync('bench/out', { recursive: true });
  writeResults('bench/out/results.json', results, { mode });
  writeChart('bench/out/chart.svg', results);
  writeFileSync('bench/out/table.md', tableWithHeader(results, `npm run bench${quick ? ' -- --quick' : ''}`));
  process.stderr.write(
    'bench: written to bench/out/ (results.json, chart.svg, table.md); `npm run bench -- --record` updates the tracked ones\n',
  );
}
