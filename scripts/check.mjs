// npm run check: the house rules, each one a command, all run even when one fails.
//   Biome: format and lint (src, test, bench, scripts; biome.json);
//   tsc: src, test, bench and scripts, with the strict flags of tsconfig.json;
//   the core as editors see it (assembly/tsconfig.json, AssemblyScript's types);
//   the AssemblyScript compiler's own checks on the core.
import { spawn } from 'node:child_process';

const bin = (name) => `node_modules/.bin/${name}`;
let failed = 0;

// The steps run at once (each is one process, most of it single-threaded); their reports come
// in the order written here, each after its command ends.
function step(name, cmd, args, filter) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => (out += String(e)));
    child.on('close', (code) => {
      let ok = code === 0;
      if (filter) ({ ok, out } = filter(out, ok));
      resolve({ name, ok, out });
    });
  });
}

const steps = [
  step('biome (format, lint)', bin('biome'), ['check', '.']),
  step('tsc (src, test, bench, scripts)', bin('tsc'), ['-p', 'tsconfig.json']),
  // tsc rejects decorators on functions (TS1206), which AssemblyScript's @inline is: every
  // other diagnostic counts.
  step('tsc (assembly, as editors see it)', bin('tsc'), ['-p', 'assembly/tsconfig.json', '--noEmit'], (out) => {
    const errors = out.split('\n').filter((l) => /error TS\d+/.test(l) && !l.includes('error TS1206'));
    return { ok: errors.length === 0, out: errors.join('\n') };
  }),
  // (Unoptimized: whether it compiles is decided before Binaryen's passes, which took 6 of its
  // 8.8 s even with --noEmit; the build compiles both targets optimized.)
  step('asc (the core compiles)', bin('asc'), [
    'assembly/index.ts',
    '--config',
    'asconfig.json',
    '--target',
    'scalar',
    '--noEmit',
    '--optimizeLevel',
    '0',
    '--shrinkLevel',
    '0',
  ]),
];

for (const { name, ok, out } of await Promise.all(steps)) {
  process.stdout.write(`check: ${name}: ${ok ? 'ok' : 'FAILED'}\n`);
  if (!ok) {
    process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
    failed++;
  }
}
if (failed) {
  process.stdout.write(`check: ${failed} failed\n`);
  process.exit(1);
}
