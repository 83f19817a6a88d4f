// The object API's rows of the benchmark (bench/cases/messages.ts and text.ts) on two builds in
// one process, alternating, timed in CPU time, with the regex baselines in the same rounds: a
// change to the walk or the string path against the build it replaces. Each build's dist is
// loaded as a package would be (its own WASM instance); the outputs must agree.
//   node scripts/run-ts.mjs bench/object-ab.ts <dist A> <dist B> [rounds] [text in a row's name]
// Columns: CPU ms per call, median A / B; B's time over A's; each build against the regex.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { createRegexCodec } from './baseline-regex.ts';
import { createWalkCodec } from './baseline-walk.ts';
import { appsListResult, cleanText, KEYED_KINDS, mixedText, toolsListResult } from './corpus.ts';
import { seeded } from './random.ts';

interface Api {
  encodeMessage(m: unknown): unknown;
  decodeMessage(m: unknown): unknown;
  encodeText(s: string): string;
}
const [dirA, dirB] = [process.argv[2], process.argv[3]];
if (!dirA || !dirB) throw new Error('usage: bench/object-ab.ts <dist A> <dist B> [rounds] [grep]');
const rounds = Number(process.argv[4] ?? 15);
const grep = process.argv[5]?.toLowerCase();
const load = async (dir: string): Promise<Api> => (await import(pathToFileURL(resolve(dir, 'index.js')).href)) as Api;
const builds = [await load(dirA), await load(dirB)];
const walker = createWalkCodec();
const regex = createRegexCodec();

interface Row {
  name: string;
  ours: (api: Api) => unknown;
  baseline: () => unknown;
}
const apps = appsListResult(5, 3000);
const tools = toolsListResult(6, 200);
const encodedApps = builds[0]!.encodeMessage(apps);
const encodedTools = builds[0]!.encodeMessage(tools);
// Many small messages with distinct short values (ids, times): the value memo's misses.
const kinds = Object.values(KEYED_KINDS);
const keyed = Array.from({ length: 2000 }, (_, i) => JSON.parse(JSON.stringify(kinds[i % kinds.length]!(seeded(i), i))));
const encodedKeyed = keyed.map((m) => builds[0]!.encodeMessage(m));
const mixed4k = mixedText(11, 4 * 1024);
const mixed256k = mixedText(1, 256 * 1024);
// Other text a change to encodeText must not slow: one-byte strings (ASCII, Latin-1) with and
// without terms, and English whose non-ASCII is short CJK words here and there.
const ascii4kTerms = mixed4k.replace(/[^ -~\n]/g, 'x');
const cjkWords = ['通义', '数据', '模型', '阿里', '文件', '服务'];
const otherText: [string, string][] = [
  ['ASCII 4 KiB', cleanText(3, 4 * 1024)],
  ['ASCII 40 KiB', cleanText(4, 40 * 1024)],
  ['ASCII 4 KiB, terms', ascii4kTerms],
  ['Latin-1 4 KiB', cleanText(3, 4 * 1024).replace(/e/g, 'é')],
  ['Latin-1 4 KiB, terms', ascii4kTerms.replace(/e/g, 'é')],
  [
    'English, CJK words 4 KiB',
    cleanText(5, 4 * 1024)
      .split(' ')
      .map((w, i) => (i % 7 === 3 ? cjkWords[i % cjkWords.length]! : w))
      .join(' '),
  ],
];
const every: Row[] = [
  { name: 'encodeMessage: apps list', ours: (api) => api.encodeMessage(apps), baseline: () => walker.encodeMessage(apps) },
  { name: 'decodeMessage: apps list', ours: (api) => api.decodeMessage(encodedApps), baseline: () => walker.decodeMessage(encodedApps) },
  { name: 'encodeMessage: tools/list', ours: (api) => api.encodeMessage(tools), baseline: () => walker.encodeMessage(tools) },
  { name: 'decodeMessage: tools/list', ours: (api) => api.decodeMessage(encodedTools), baseline: () => walker.decodeMessage(encodedTools) },
  {
    name: 'encodeMessage: 2,000 key-heavy',
    ours: (api) => keyed.map((m) => api.encodeMessage(m)),
    baseline: () => keyed.map((m) => walker.encodeMessage(m)),
  },
  {
    name: 'decodeMessage: 2,000 key-heavy',
    ours: (api) => encodedKeyed.map((m) => api.decodeMessage(m)),
    baseline: () => encodedKeyed.map((m) => walker.decodeMessage(m)),
  },
  // Results that are strings are read once (charCodeAt flattens a rope), as the bench does.
  {
    name: 'encodeText: mixed 4 KiB',
    ours: (api) => api.encodeText(mixed4k).charCodeAt(0),
    baseline: () => regex.encodeText(mixed4k).charCodeAt(0),
  },
  {
    name: 'encodeText: mixed 256 KiB',
    ours: (api) => api.encodeText(mixed256k).charCodeAt(0),
    baseline: () => regex.encodeText(mixed256k).charCodeAt(0),
  },
  ...otherText.map(
    ([name, text]): Row => ({
      name: `encodeText: ${name}`,
      ours: (api) => api.encodeText(text).charCodeAt(0),
      baseline: () => regex.encodeText(text).charCodeAt(0),
    }),
  ),
];
const rows = every.filter((row) => !grep || row.name.toLowerCase().includes(grep));

const SAMPLE_MS = 100;
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`${rounds} rounds, A ${dirA}, B ${dirB}: CPU ms per call, median A / B, B/A, A and B over the regex`);
for (const row of rows) {
  if (!isDeepStrictEqual(row.ours(builds[0]!), row.ours(builds[1]!))) throw new Error(`${row.name}: the builds' outputs differ`);
  const c0 = process.cpuUsage();
  row.baseline();
  const once = Math.max(0.05, cpuMs(process.cpuUsage(c0)));
  const reps = Math.max(1, Math.round(SAMPLE_MS / once));
  const times: number[][] = [[], [], []];
  const runs = [() => row.ours(builds[0]!), () => row.ours(builds[1]!), row.baseline];
  for (let r = 0; r < rounds + 2; r++) {
    // (each build after the other half the time and after the regex half the time: the old order
    // ran B twice in a row at each round's edge, which read about 5% in its favour)
    for (const k of r % 2 ? [1, 0, 2] : [0, 1, 2]) {
      const c1 = process.cpuUsage();
      for (let i = 0; i < reps; i++) runs[k]!();
      if (r >= 2) times[k]!.push(cpuMs(process.cpuUsage(c1)) / reps);
    }
  }
  const [a, b, base] = times.map(median) as [number, number, number];
  console.log(
    `${row.name.padEnd(36)} ${a.toFixed(4).padStart(8)} / ${b.toFixed(4).padStart(8)}  x${(b / a).toFixed(3)}   regex: A ${(base / a).toFixed(2)}x  B ${(base / b).toFixed(2)}x`,
  );
}
