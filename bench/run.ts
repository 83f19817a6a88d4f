// npm run bench [-- --quick]: every case, side by side with its baseline, in one process.
import { isDeepStrictEqual } from 'node:util';
import { FULL, QUICK, time, timePair } from './harness.ts';
import { markdownTable, updateReadme, writeResults, type CaseResult } from './report.ts';
import type { BenchCase } from './case.ts';
import { messageCases } from './cases/messages.ts';
import { streamCases } from './cases/streams.ts';
import { textCases } from './cases/text.ts';
import { floorCases } from './cases/floors.ts';
import { systemResults } from './cases/system.ts';
import { writeChart } from './chart.ts';

const quick = process.argv.includes('--quick');
const harness = quick ? QUICK : FULL;
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const cases: BenchCase[] = [...textCases(), ...messageCases(), ...streamCases(), ...floorCases()].filter((c) => !only || c.group.startsWith(only));

const results: CaseResult[] = [];
for (const c of cases) {
  // Equal work first: a baseline that computes something else would make the ratio meaningless.
  const mine = await c.ours();
  if (c.check ? !(await c.check()) : c.baseline && !isDeepStrictEqual(mine, await c.baseline())) throw new Error(`${c.group}: ${c.name}: output differs from ${c.baselineName}`);
  const pair = c.baseline ? await timePair(c.ours, c.baseline, c.bytes, harness) : undefined;
  const ours = pair?.ours ?? (await time(c.ours, c.bytes, harness));
  const partial: CaseResult = { group: c.group, name: c.name, bytes: c.bytes, ours, baselineName: c.baselineName, baseline: pair?.baseline, ratio: pair?.ratio };
  const result = c.target ? { ...partial, target: c.target.label, met: c.target.met(partial) } : partial;
  results.push(result);
  process.stderr.write(`${c.group}: ${c.name}: ${ours.mbps.toFixed(0)} MB/s${pair ? `, ${result.ratio!.toFixed(1)}x ${c.baselineName}` : ''}\n`);
}
if (!only || 'system'.startsWith(only) || 'stream'.startsWith(only)) results.push(...systemResults(quick));
console.log(markdownTable(results));
if (!quick) {
  writeResults('bench/results.json', results, { mode: 'full' });
  writeChart('bench/chart.svg', results);
  updateReadme(results);
}
