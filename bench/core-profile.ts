// Where an NDJSON stream row's time goes, by function, the core's and the host's alike: this
// tree's dist/ with its SIMD core built again with names (`asc --debug`, into .cache/), one row
// run under V8's sampling profiler in this process; self time by function, the core's share,
// nanoseconds a message and page faults a run. (`node --cpu-prof` on a bench shows the core's
// functions as `wasm-function[N]`; a build with names is what makes its profile readable.)
//   node scripts/run-ts.mjs bench/core-profile.ts [encode|decode] [keyed|mixed|<kind>|log|bare|progress] [seconds] [rows]
// (<kind>: a name of corpus.ts MESSAGE_KINDS, e.g. 'CJK prose': 8 MiB of that kind alone; log,
// bare, progress (with a term): one small message repeated, as bench/message-cost.ts has it: a message's fixed cost.)
// Run `npm run build` first: the names go into a copy of dist/, whose SIMD core must be this tree's.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { keyedTraffic, MESSAGE_KINDS, ndjsonOf, ndjsonTraffic } from './corpus.ts';

const mode = (process.argv[2] ?? 'encode') as 'encode' | 'decode';
const mix = process.argv[3] ?? 'keyed';
const seconds = Number(process.argv[4] ?? 5);
const shown = Number(process.argv[5] ?? 25);
const kind = MESSAGE_KINDS[mix as keyof typeof MESSAGE_KINDS];
const LINES: Record<string, string> = {
  log: '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"http","data":{"event":"request","host":"example.com","status":200,"ms":417}}}',
  bare: '{"jsonrpc":"2.0","method":"x"}',
  progress:
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":5,"message":"update timeout Tongyi project error install the list."}}',
};
const line = LINES[mix];
if (!['encode', 'decode'].includes(mode) || !(['keyed', 'mixed'].includes(mix) || kind || line))
  throw new Error('usage: bench/core-profile.ts [encode|decode] [keyed|mixed|<kind>|log|bare|progress] [seconds] [rows]');

const named = '.cache/core-named.simd.wasm';
const built = spawnSync(
  process.execPath,
  ['node_modules/.bin/asc', 'assembly/index.ts', '--config', 'asconfig.json', '--target', 'simd', '--debug', '--outFile', named],
  { stdio: 'inherit' },
);
if (built.status !== 0) throw new Error('bench/core-profile.ts: asc failed');
const dist = '.cache/dist-named';
rmSync(dist, { recursive: true, force: true });
cpSync('dist', dist, { recursive: true });
const shipped = readFileSync('build/core.simd.wasm').toString('base64');
const holder = readdirSync(join(dist, 'chunks'))
  .map((f) => join(dist, 'chunks', f))
  .find((f) => readFileSync(f, 'utf8').includes(shipped));
if (!holder) throw new Error("bench/core-profile.ts: dist/ does not hold build/'s SIMD core: run `npm run build`");
writeFileSync(holder, readFileSync(holder, 'utf8').replace(shipped, readFileSync(named).toString('base64')));

type Make = (mode: 'encode' | 'decode', options: object, emit: (b: Uint8Array) => void) => { push(c: Uint8Array): void; close(): void };
const make: Make = (await import(pathToFileURL(resolve(dist, 'stream.js')).href)).createByteTransformer;
const CHUNK = 64 * 1024; // (as bench/stream-ab.ts pushes)
function run(input: Uint8Array, keep?: Uint8Array[]): void {
  const t = make(mode, {}, (b) => keep?.push(b.slice()));
  for (let i = 0; i < input.length; i += CHUNK) t.push(input.subarray(i, i + CHUNK));
  t.close();
}
const MIB8 = 8 * 1024 * 1024;
const repeated = (l: string) => new TextEncoder().encode(`${l}\n`.repeat(Math.floor(MIB8 / (l.length + 1))));
let input = line ? repeated(line) : kind ? ndjsonOf(kind, MIB8) : mix === 'keyed' ? keyedTraffic(22, MIB8) : ndjsonTraffic(21, MIB8);
if (mode === 'decode') {
  const parts: Uint8Array[] = [];
  run(input, parts);
  input = Buffer.concat(parts);
}
const messages = input.reduce((n, b) => n + (b === 0x0a ? 1 : 0), 0);
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const runFor = (ms: number) => {
  const c0 = process.cpuUsage();
  let runs = 0;
  while (cpuMs(process.cpuUsage(c0)) < ms) {
    run(input);
    runs++;
  }
  return { runs, ms: cpuMs(process.cpuUsage(c0)) };
};
runFor(1000); // (warm: the JIT's tiers, the buffer pool)

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');
const faults0 = process.resourceUsage().minorPageFault;
const { runs, ms } = runFor(seconds * 1000);
const faults = (process.resourceUsage().minorPageFault - faults0) / runs;
const { profile } = await session.post('Profiler.stop');
session.disconnect();

// Self time by function (the profile's samples, each with the time since the one before).
const byNode = new Map<number, number>();
const samples = profile.samples ?? [];
for (let k = 0; k < samples.length; k++) byNode.set(samples[k]!, (byNode.get(samples[k]!) ?? 0) + profile.timeDeltas![k]!);
const self = new Map<string, number>();
let total = 0;
let wasm = 0;
for (const node of profile.nodes) {
  const us = byNode.get(node.id) ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  const isWasm = url.startsWith('wasm://');
  const name = isWasm ? functionName : `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
  self.set(name, (self.get(name) ?? 0) + us);
  total += us;
  if (isWasm) wasm += us;
}
const perMessage = (ms * 1e6) / runs / messages; // ns of CPU a message
console.log(
  `${mix} ${mode}: ${(input.length / 1e3 / (ms / runs)).toFixed(0)} MB/s of CPU time, ${messages} messages a run, ` +
    `${perMessage.toFixed(0)} ns a message, ${faults.toFixed(0)} page faults a run; the core ${((100 * wasm) / total).toFixed(1)}% of the samples`,
);
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, shown)) {
  const share = us / total;
  console.log(`${(100 * share).toFixed(1).padStart(5)}%  ${(share * perMessage).toFixed(0).padStart(5)} ns/msg  ${name}`);
}
