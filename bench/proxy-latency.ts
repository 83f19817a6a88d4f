// `proxy`'s latency rows alone (direct / proxy / floor, rounds taking turns), repeated, and
// optionally a CPU profile of the proxy process under the same sequential calls:
//   node scripts/run-ts.mjs bench/proxy-latency.ts [--runs=N] [--quick] [--alloc] [--cpu-prof=DIR [--cpu-prof-interval=µs] [--floor-prof]] [--cli=PATH]
// (--alloc: the JS heap bytes the proxy and the floor allocate per call, bench/fixtures/heap-allocated.cjs)
// (--cli: another build's bin/mcp-payload-codec.js, for a before/after in one run's conditions)
// With --cpu-prof the proxy runs under `node --cpu-prof --cpu-prof-dir=DIR`; the profile is
// written when it exits (SIGTERM ends it cleanly); with --floor-prof, the floor's too (what any
// Node proxy spends, to hold the proxy's profile against).
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { passThrough, proxy, proxyLatency, upstream } from './cases/http.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'cpu-prof-interval': { type: 'string' },
    cli: { type: 'string' },
    'floor-prof': { type: 'boolean', default: false },
    alloc: { type: 'boolean', default: false },
  },
});
const up = await upstream();
const dir = values['cpu-prof'];
const interval = values['cpu-prof-interval'] ? [`--cpu-prof-interval=${values['cpu-prof-interval']}`] : [];
const alloc = values.alloc ? ['--require', './bench/fixtures/heap-allocated.cjs'] : [];
const px = await proxy(up.url, [...alloc, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...interval] : [])], values.cli);
const bare = await passThrough(up.url, [
  ...alloc,
  ...(dir && values['floor-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${dir}/floor`, ...interval] : []),
]);
/** Signals a child counting its heap (--alloc); the second signal resolves with the bytes it counted. */
const allocated = (child: ChildProcess) =>
  new Promise<number>((resolve) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /heap allocated (\d+)/.exec(seen);
      if (!m) return;
      child.stderr!.off('data', look);
      resolve(Number(m[1]));
    };
    child.stderr!.on('data', look);
    child.kill('SIGUSR2');
  });
/** A process's CPU time, user and system, ms (Linux). */
const cpuOf = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return [(Number(f[11]) * 1000) / 100, (Number(f[12]) * 1000) / 100]; // (clock ticks: 100 a second)
};
try {
  for (let r = 0; r < Number(values.runs); r++) {
    if (values.alloc) for (const c of [px.child, bare.child]) c.kill('SIGUSR2');
    const before = [cpuOf(px.child.pid!), cpuOf(bare.child.pid!)];
    const rows = await proxyLatency(`${up.url}/mcp`, px.url, bare.url, values.quick);
    const calls = values.quick ? 252 : 2302; // (as proxyLatency makes: 2 checks, the warm-up, the rounds)
    const [p, b] = [cpuOf(px.child.pid!), cpuOf(bare.child.pid!)].map((now, i) => now.map((t, k) => t - before[i]![k]!));
    const us = (ms: number) => ((ms / calls) * 1000).toFixed(0);
    const both = ([user, system]: number[]) => `${us(user! + system!)} µs (user ${us(user!)}, system ${us(system!)})`;
    process.stdout.write(`${r}: CPU per call: proxy ${both(p!)}, floor ${both(b!)}\n`);
    if (values.alloc) {
      const [pa, ba] = await Promise.all([allocated(px.child), allocated(bare.child)]);
      process.stdout.write(`${r}: heap allocated per call: proxy ${(pa / calls).toFixed(0)} B, floor ${(ba / calls).toFixed(0)} B\n`);
    }
    for (const row of rows)
      process.stdout.write(
        `${r}: ${row.name.replace(/^[\d,]+ sequential tools\/call over Streamable HTTP: /, '')}: ${row.figure} ${row.baselineFigure ? `(direct ${row.baselineFigure})` : ''}\n`,
      );
  }
} finally {
  bare.child.kill('SIGTERM');
  px.child.kill('SIGTERM');
  up.child.kill('SIGTERM');
  await Promise.all([once(px.child, 'exit'), once(bare.child, 'exit')]);
}
