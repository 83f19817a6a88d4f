// The CLI's start, against bare Node: `--help` to its exit beside `node -e 0`, and the first
// answer through `wrap` beside the same server run bare (the time an MCP client waits for a
// server). Runs alternate, so a machine that speeds up or slows down affects both alike.
// A machine shared with other work stretches wall times; the CPU time wrap spends before it
// starts the server (taken by a preload that watches child_process.spawn) is steadier, beside the
// CPU time of `node -e 0` as a whole. `wrap cat` has no server start to hide wrap's own behind:
// its first answer waits for all of wrap's loading. `--cli=PATH` times another build's CLI (say,
// main's bin/mcp-payload-codec.js) in the same rounds, and the difference of the two.
// Run: npm run build && node bench/cli-start.mjs [runs] [--cli=PATH]
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CLI = fileURLToPath(new URL('../bin/mcp-payload-codec.js', import.meta.url));
const OTHER = process.argv.find((a) => a.startsWith('--cli='))?.slice('--cli='.length);
/** A stdio server that answers each line; it ends when its stdin does. */
const SERVER = `let b = '';
process.stdin.on('data', (d) => {
  b += d;
  for (let nl; (nl = b.indexOf('\\n')) >= 0; b = b.slice(nl + 1)) {
    const m = JSON.parse(b.slice(0, nl));
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n');
  }
});`;
const PING = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`;
const runs = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 20);

const dir = mkdtempSync(join(tmpdir(), 'cli-start-'));
const WATCH = join(dir, 'watch-spawn.mjs');
writeFileSync(
  WATCH,
  `import cp from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
const spawn = cp.spawn;
cp.spawn = (...args) => {
  const { user, system } = process.cpuUsage();
  process.stderr.write('spawn ' + JSON.stringify({ cpu: (user + system) / 1000, ms: performance.now() }) + '\\n');
  cp.spawn = spawn;
  return spawn(...args);
};
syncBuiltinESMExports();
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write('exit ' + JSON.stringify({ cpu: (user + system) / 1000, ms: performance.now() }) + '\\n');
});`,
);

/** CPU and wall milliseconds of `args` in its own process, to `event` (spawn or exit). */
function watched(args, event) {
  const p = spawn(process.execPath, ['--import', pathToFileURL(WATCH).href, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) =>
    p.on('close', () =>
      resolve(
        JSON.parse(
          err
            .split('\n')
            .find((l) => l.startsWith(`${event} `))
            .slice(event.length + 1),
        ),
      ),
    ),
  );
}

/** Milliseconds from spawning `args` to its exit. */
function toExit(args) {
  const t0 = performance.now();
  const p = spawn(process.execPath, args, { stdio: 'ignore' });
  return new Promise((resolve) => p.on('exit', () => resolve(performance.now() - t0)));
}

/** Milliseconds from spawning `file` with `args` to the first line it writes, its answer to a ping. */
function toAnswer(args, file = process.execPath) {
  const t0 = performance.now();
  const p = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  p.stdin.end(PING);
  return new Promise((resolve) => {
    let ms;
    p.stdout.on('data', () => (ms ??= performance.now() - t0));
    p.on('close', () => resolve(ms));
  });
}

// Each row: this CLI, the other build's (with --cli), and bare, in turn.
const rows = {
  '--help, to exit': [(cli) => toExit([cli, '--help']), () => toExit(['-e', '0'])],
  'wrap, to the first answer': [(cli) => toAnswer([cli, 'wrap', process.execPath, '-e', SERVER]), () => toAnswer(['-e', SERVER])],
  'wrap cat, to the first byte': [(cli) => toAnswer([cli, 'wrap', 'cat']), () => toAnswer([], 'cat')],
};
const cpu = async (args, event) => (await watched(args, event)).cpu;
rows['wrap, CPU to spawning the server (bare: node -e 0, CPU to exit)'] = [
  (cli) => cpu([cli, 'wrap', process.execPath, '-e', '0'], 'spawn'),
  () => cpu(['-e', '0'], 'exit'),
];
const stats = (xs) => {
  const s = xs.toSorted((a, b) => a - b);
  return `min ${s[0].toFixed(1)}, median ${s[s.length >> 1].toFixed(1)}`;
};
const clis = OTHER ? [CLI, OTHER] : [CLI];
for (const [name, [cli, bare]] of Object.entries(rows)) {
  const times = clis.map(() => []);
  const b = [];
  for (const c of clis) await cli(c);
  await bare(); // warm-up
  for (let i = 0; i < runs; i++) {
    for (const [k, c] of clis.entries()) times[k].push(await cli(c));
    b.push(await bare());
  }
  const less = (xs, ys) => xs.map((x, i) => x - ys[i]);
  const parts = [`CLI ${stats(times[0])}`, `bare ${stats(b)}`, `CLI - bare ${stats(less(times[0], b))}`];
  if (OTHER) parts.push(`other CLI - bare ${stats(less(times[1], b))}`, `CLI - other CLI ${stats(less(times[0], times[1]))}`);
  console.log(`${name} (ms, ${runs} runs): ${parts.join('; ')}`);
}
