// The stream rows of the benchmark (bench/cases/streams.ts, less the TransformStream wrappers)
// on two builds in one process, alternating, timed in CPU time: a change to the stream layer
// against the build it replaces. Each build's dist is loaded as a package would be (its own
// WASM instance); the outputs must agree byte for byte.
//   node scripts/run-ts.mjs bench/stream-ab.ts <dist A> <dist B> [rounds] [text in a row's name]
// (e.g. a copy of main's dist/ as A, this tree's dist/ as B; ratios are B's time over A's.) The
// careful pipeline (bench/baseline-pipeline.ts) takes its turn in the same rounds: B's speed
// over its speed is the last column (for a stream per message, parse+walk+stringify per
// message, as the benchmark's row has it).

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { carefulPipeline, pipeline } from './baseline-pipeline.ts';
import { reframe } from './cases/streams.ts';
import { KEYED_KINDS, keyedTraffic, MESSAGE_KINDS, ndjsonOf, ndjsonTraffic } from './corpus.ts';
import { seeded } from './random.ts';

type Make = (mode: 'encode' | 'decode', options: object, emit: (b: Uint8Array) => void) => { push(c: Uint8Array): void; close(): void };
const [dirA, dirB] = [process.argv[2], process.argv[3]];
if (!dirA || !dirB) throw new Error('usage: bench/stream-ab.ts <dist A> <dist B> [rounds]');
const rounds = Number(process.argv[4] ?? 15);
const grep = process.argv[5]?.toLowerCase();
const load = async (dir: string): Promise<Make> =>
  (await import(pathToFileURL(resolve(dir, 'stream.js')).href)).createByteTransformer as Make;
const builds = [await load(dirA), await load(dirB)];

const CHUNK = 64 * 1024;
function run(make: Make, mode: 'encode' | 'decode', inputs: Uint8Array[], options: object, keep?: Uint8Array[]): number {
  let total = 0;
  for (const input of inputs) {
    const t = make(mode, options, (b) => {
      total += b.length;
      keep?.push(b.slice());
    });
    for (let i = 0; i < input.length; i += CHUNK) t.push(input.subarray(i, i + CHUNK));
    t.close();
  }
  return total;
}
const all = (make: Make, mode: 'encode' | 'decode', inputs: Uint8Array[], options: object) => {
  const parts: Uint8Array[] = [];
  run(make, mode, inputs, options, parts);
  return Buffer.concat(parts);
};

interface Row {
  name: string;
  mode: 'encode' | 'decode';
  inputs: Uint8Array[];
  options: object;
  /** The baseline, when not the careful pipeline (which reads NDJSON). */
  baseline?: { name: string; run: () => number };
}
const traffic = ndjsonTraffic(21, 8 * 1024 * 1024);
const encoded = all(builds[0]!, 'encode', [traffic], {});
const keyed = keyedTraffic(22, 8 * 1024 * 1024);
const careful = { encode: carefulPipeline('encode'), decode: carefulPipeline('decode') };
const pipelined = (row: Row) => row.baseline?.run() ?? row.inputs.reduce((n, input) => n + careful[row.mode](input).length, 0);
const progress = ndjsonOf(MESSAGE_KINDS['progress notifications'], 2 * 1024 * 1024);
const perLines = new TextDecoder()
  .decode(progress)
  .split('\n')
  .filter(Boolean)
  .slice(0, 2000)
  .map((l) => new TextEncoder().encode(l));
const perResponse = perLines.map((l) => reframe(l, 'sse'));
// (As the benchmark's row: each message parsed, walked, stringified and framed on its own.)
const perMessagePipeline = () => perLines.reduce((n, l) => n + reframe(pipeline('encode', l), 'sse').length, 0);
const every: Row[] = [
  {
    name: 'Content-Length encode (8 MiB mixed)',
    mode: 'encode',
    inputs: [reframe(traffic, 'content-length')],
    options: { framing: 'content-length' },
  },
  { name: 'SSE encode (8 MiB mixed)', mode: 'encode', inputs: [reframe(traffic, 'sse')], options: { framing: 'sse' } },
  {
    name: 'Content-Length encode: progress',
    mode: 'encode',
    inputs: [reframe(progress, 'content-length')],
    options: { framing: 'content-length' },
  },
  { name: 'SSE encode: progress', mode: 'encode', inputs: [reframe(progress, 'sse')], options: { framing: 'sse' } },
  {
    name: 'SSE encode: a stream per message',
    mode: 'encode',
    inputs: perResponse,
    options: { framing: 'sse' },
    baseline: { name: 'parse+walk+stringify', run: perMessagePipeline },
  },
  { name: 'NDJSON encode (8 MiB mixed)', mode: 'encode', inputs: [traffic], options: {} },
  { name: 'NDJSON decode (8 MiB mixed)', mode: 'decode', inputs: [encoded], options: {} },
  ...Object.entries(MESSAGE_KINDS).flatMap(([kind, make]): Row[] => {
    const input = ndjsonOf(make, 2 * 1024 * 1024);
    return [
      { name: `NDJSON encode: ${kind}`, mode: 'encode', inputs: [input], options: {} },
      { name: `NDJSON decode: ${kind}`, mode: 'decode', inputs: [all(builds[0]!, 'encode', [input], {})], options: {} },
    ];
  }),
  { name: 'NDJSON encode (8 MiB key-heavy mixed)', mode: 'encode', inputs: [keyed], options: {} },
  { name: 'NDJSON decode (8 MiB key-heavy mixed)', mode: 'decode', inputs: [all(builds[0]!, 'encode', [keyed], {})], options: {} },
  ...(['log notifications', 'errors'] as const).flatMap((kind): Row[] => {
    const input = ndjsonOf((seed) => KEYED_KINDS[kind](seeded(seed), seed), 2 * 1024 * 1024);
    return [
      { name: `NDJSON encode: ${kind}`, mode: 'encode', inputs: [input], options: {} },
      { name: `NDJSON decode: ${kind}`, mode: 'decode', inputs: [all(builds[0]!, 'encode', [input], {})], options: {} },
    ];
  }),
];
const rows = every.filter((row) => !grep || row.name.toLowerCase().includes(grep));

const SAMPLE_MS = 100;
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(
  `${rounds} rounds, A ${dirA}, B ${dirB}: CPU ms per run, median A / B, ratio B/A of medians, median of per-round ratios, ratio of bests; B over the careful pipeline`,
);
const ratios: number[] = [];
for (const row of rows) {
  const outputs = builds.map((make) => all(make, row.mode, row.inputs, row.options));
  if (!outputs[0]!.equals(outputs[1]!)) throw new Error(`${row.name}: the builds' outputs differ`);
  // Each sample repeats the row to about SAMPLE_MS (a row of a few ms is below the clock's grain).
  const c0 = process.cpuUsage();
  run(builds[0]!, row.mode, row.inputs, row.options);
  const once = Math.max(0.1, cpuMs(process.cpuUsage(c0)));
  const reps = Math.max(1, Math.round(SAMPLE_MS / once));
  const times: number[][] = [[], [], []];
  const pipes = row.name.startsWith('NDJSON') || row.baseline !== undefined; // (the careful pipeline reads NDJSON)
  for (let r = 0; r < rounds + 2; r++) {
    for (const k of r % 2 ? [1, 0, 2] : [0, 1, 2]) {
      if (k === 2 && !pipes) continue;
      const c1 = process.cpuUsage();
      for (let i = 0; i < reps; i++) k === 2 ? pipelined(row) : run(builds[k]!, row.mode, row.inputs, row.options);
      if (r >= 2) times[k]!.push(cpuMs(process.cpuUsage(c1)) / reps);
    }
  }
  const [a, b] = [median(times[0]!), median(times[1]!)];
  const bytes = row.inputs.reduce((n, input) => n + input.length, 0) / 1e3; // (MB/s = bytes / 1e3 / ms)
  const speeds = times[1]!.map((t) => bytes / t);
  const vsCareful = pipes
    ? ` ${row.baseline?.name ?? 'careful'} x${(median(times[2]!) / b).toFixed(2)} (A x${(median(times[2]!) / a).toFixed(2)}; B ${Math.min(...speeds).toFixed(0)}-${Math.max(...speeds).toFixed(0)} MB/s, A ${(bytes / a).toFixed(0)})`
    : '';
  const best = Math.min(...times[1]!) / Math.min(...times[0]!);
  // (Rounds alternate the builds: a round's ratio shares its moment's load; their median is steadier.)
  const paired = median(times[1]!.map((t, i) => t / times[0]![i]!));
  ratios.push(b / a);
  console.log(
    `${row.name.padEnd(52)} ${a.toFixed(1).padStart(7)} / ${b.toFixed(1).padStart(7)}   x${(b / a).toFixed(3)}  paired x${paired.toFixed(3)}  best x${best.toFixed(3)}${vsCareful}`,
  );
}
const geo = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
console.log(`geometric mean of the median ratios: x${geo.toFixed(3)}`);
