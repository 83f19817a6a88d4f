// npm run mutate: mutation testing of our own, one mutant at a time, in a copy of the repo.
//
// The repo's files (tracked and untracked, not ignored) are copied to a temporary directory
// with node_modules linked, so the shared tree is never touched. Targeted operators over
// assembly/*.ts and src/**/*.ts make the mutants (flipped comparisons, off-by-one constants,
// dropped conditions and guards, the hex case flag, a flag dropped from a SIMD table entry...).
// Each mutant is written into the copy, built when it is core code (AssemblyScript, both
// targets), and tested by the suite: every test file that imports the mutated file, directly
// or through what imports it (the import graph; the core reaches the tests through
// src/core/wasm-bytes.ts, the CLI tests through the build), in tiers that stop at the first
// failure, under a time limit (a hang counts as killed, as in Stryker). A survivor of the
// suite's fast-check seed is classed equivalent when the probe (scripts/mutate-probe.ts) writes
// what the unmutated code writes (it changed only speed, or what no input reaches), and is
// otherwise tried again with other seeds (`--fc-seeds`). The report gives the score and every
// survivor, equivalent and seed-only kill. A kill is confirmed by the failing file run alone
// (on a loaded machine a file can fail in a crowd and pass alone: 'unconfirmed', left out).
//
//   node scripts/mutate.mjs [--sample 30] [--seed 1[,2...]] [--fc-seeds 1,2] [--files decode,utf8]
//                           [--ops cmp,guard] [--rerun report.json] [--timeout 120] [--per-file 10]
//                           [--list] [--keep] [--out report.json]
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : args[i + 1];
};
const flag = (name) => args.includes(`--${name}`);
const SAMPLE = Number(opt('sample', 30));
const SEEDS = opt('seed', '1').split(',').map(Number);
// fast-check seeds a survivor of the suite's own seed (test/suite-seed.ts) is tried again with.
const MORE_SEEDS = opt('fc-seeds', '1,2').split(',').filter(Boolean).map(Number);
const TIMEOUT = Number(opt('timeout', 120)) * 1000;
// (Plus this much per test file and build: on a loaded machine 4 s per file timed out whole
// tiers that were only slow. vitest's own test timeout catches most hangs first.)
const PER_FILE = Number(opt('per-file', 10)) * 1000;
const FILES = opt('files', '').split(',').filter(Boolean);
// Only the survivors of an earlier report (--out's JSON), run again.
const RERUN = opt('rerun', '');
const rerunKeys = new Set(
  RERUN
    ? JSON.parse(readFileSync(RERUN, 'utf8'))
        .results.filter((r) => r.status === 'survived')
        .map((r) => `${r.file}:${r.line}:${r.col}:${r.op}:${r.to}`)
    : [],
);
const OPS = opt('ops', '').split(',').filter(Boolean);
const ROOT = process.cwd();

// ---- Which tests guard which files: the import graph ----
// A mutated file is tested by every test file that imports it, directly or through what
// imports it. Some edges are not imports: src/core/wasm-bytes.ts and abi.ts are built from
// assembly/index.ts, the test hooks' cores (test/wasm-bytes-with-hooks.ts) from assembly/test-hooks.ts,
// and a test that runs the built package (bin/, dist/) depends on the build entries.
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:[^'"`;]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const USES_BUILD = /['"]bin['"]|\bbin\/mcp-payload-codec|['"/]dist\//;
const BUILD_ENTRIES = Object.values(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).buildEntries);

function importGraph() {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'assembly', 'src', 'test', 'scripts'], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|mjs)$/.test(f));
  const known = new Set([...files, 'src/core/wasm-bytes.ts']); // (generated: not in git)
  const resolve = (from, spec) => {
    if (!spec.startsWith('.')) return undefined;
    const p = normalize(join(dirname(from), spec));
    return [p, p.replace(/\.js$/, '.ts'), `${p}.ts`, join(p, 'index.ts')].find((c) => known.has(c));
  };
  const deps = new Map();
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    const d = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const to = resolve(f, m[1] ?? m[2]);
      if (to) d.add(to);
    }
    if (f.startsWith('test/') && USES_BUILD.test(text)) for (const e of BUILD_ENTRIES) d.add(e);
    deps.set(f, d);
  }
  deps.set('src/core/wasm-bytes.ts', new Set(['assembly/index.ts']));
  deps.get('src/core/abi.ts')?.add('assembly/index.ts');
  deps.get('test/wasm-bytes-with-hooks.ts')?.add('assembly/test-hooks.ts');
  // (The hooks projects load it in place of src/core/wasm-bytes.ts: vitest.config.ts HOOKS.)
  deps.get('test/core-hooks.ts')?.add('test/wasm-bytes-with-hooks.ts');
  return deps;
}
const DEPS = importGraph();
/** Every file that reaches `file` through the graph (itself included). */
function dependents(file) {
  const reached = new Set([file]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [f, d] of DEPS) {
      if (reached.has(f)) continue;
      for (const x of d) {
        if (reached.has(x)) {
          reached.add(f);
          grew = true;
          break;
        }
      }
    }
  }
  return reached;
}
/** Whether `from` reaches `file` through the graph. */
function reaches(from, file, seen = new Set()) {
  if (from === file) return true;
  if (seen.has(from)) return false;
  seen.add(from);
  return [...(DEPS.get(from) ?? [])].some((d) => reaches(d, file, seen));
}
/** Whether test file t runs the built package (itself or through a helper it imports). */
const usesBuild = (t) =>
  [...closure(t)].some((f) => f.startsWith('test/') && !f.endsWith('.mjs') && USES_BUILD.test(readFileSync(join(ROOT, f), 'utf8')));
/** Every file `from` reaches through the graph (itself included). */
function closure(from, seen = new Set()) {
  if (seen.has(from)) return seen;
  seen.add(from);
  for (const d of DEPS.get(from) ?? []) closure(d, seen);
  return seen;
}
/**
 * The test files that import `file`, in tiers run one after another until one fails: those
 * that import it directly or are named after it; the rest that import it; those that run the
 * built package (they need a full build). A survivor has run them all.
 */
function testTiers(file) {
  const tests = [...dependents(file)].filter((f) => /^test\/.*\.test\.ts$/.test(f)).sort();
  const stem = file.replace(/^.*\//, '').replace(/\.ts$/, '');
  const built = tests.filter(usesBuild);
  const first = tests.filter((t) => !built.includes(t) && (DEPS.get(t).has(file) || t.includes(stem)));
  const rest = tests.filter((t) => !built.includes(t) && !first.includes(t));
  return [first, rest, built].filter((tier) => tier.length > 0);
}
// SIMD-only code needs the SIMD project; other core code runs on both builds (the scalar
// projects run the files aimed at the core's scalar branches: `SCALAR` in vitest.config.ts).
const projectsFor = (file) => (file === 'assembly/utf8-simd.ts' || !file.startsWith('assembly/') ? ['simd*'] : ['simd*', 'scalar*']);
const PROBE = 'scripts/mutate-probe.ts';

// ---- Operators ----
/** The line with strings and comments blanked (same length), so operators see only code. */
function codeOf(line) {
  let out = '';
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\') {
        out += '  ';
        i++;
        continue;
      }
      if (c === quote) quote = '';
      out += quote ? ' ' : c;
      continue;
    }
    if (c === '/' && line[i + 1] === '/') return out + ' '.repeat(line.length - i);
    if (c === "'" || c === '"' || c === '`') quote = c;
    out += c;
  }
  return out;
}

/** Index of the parenthesis closing the one at `open`, or -1. */
function closing(code, open) {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Top-level operands of `a || b || c` (or &&) in code[from, to): [start, end) spans. */
function operands(code, from, to, op) {
  const spans = [];
  let depth = 0;
  let start = from;
  for (let i = from; i < to; i++) {
    const c = code[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (depth === 0 && code.startsWith(` ${op} `, i)) {
      spans.push([start, i]);
      start = i + op.length + 2;
    }
  }
  spans.push([start, to]);
  return spans;
}

const SWAPS = {
  cmp: [
    [' <= ', ' < '],
    [' < ', ' <= '],
    [' >= ', ' > '],
    [' > ', ' >= '],
  ],
  eq: [
    [' === ', ' !== '],
    [' !== ', ' === '],
    [' == ', ' != '],
    [' != ', ' == '],
  ],
  logic: [
    [' && ', ' || '],
    [' || ', ' && '],
  ],
  bool: [
    ['true', 'false'],
    ['false', 'true'],
  ],
};

/** Every mutant of one line: { op, col, from, to, text } (text is the mutated line). */
function mutantsOfLine(line) {
  const code = codeOf(line);
  const trimmed = code.trim();
  if (/^(export )?(type|interface|declare) /.test(trimmed)) return []; // types: no behaviour at run time
  if (
    trimmed === '' ||
    trimmed.startsWith('import ') ||
    trimmed.startsWith('export {') ||
    trimmed.startsWith('*') ||
    trimmed.startsWith('/*')
  )
    return [];
  const found = [];
  const add = (op, at, len, to) =>
    found.push({ op, col: at + 1, from: line.slice(at, at + len), to, text: line.slice(0, at) + to + line.slice(at + len) });
  for (const [op, pairs] of Object.entries(SWAPS)) {
    for (const [a, b] of pairs) {
      const re = op === 'bool' ? new RegExp(`\\b${a}\\b`, 'g') : new RegExp(a.replace(/[|]/g, '\\|').replace(/ /g, ' '), 'g');
      for (const m of code.matchAll(re)) {
        if (op === 'cmp' && /[<>=]/.test(code[m.index + a.length] ?? '')) continue;
        add(op, m.index, a.length, b);
      }
    }
  }
  // Off-by-one constants (not in array types, not the 0 of an index start).
  for (const m of code.matchAll(/(?<![\w.$])(0x[0-9a-fA-F]+|\d+)(?![\w.])/g)) {
    const v = Number(m[1]);
    const hex = m[1].startsWith('0x');
    const fmt = (n) => (hex ? `0x${n.toString(16)}` : String(n));
    add('const', m.index, m[1].length, fmt(v + 1));
    if (v > 0) add('const', m.index, m[1].length, fmt(v - 1));
  }
  // Drop a guard (its condition never holds, or always does), or one operand of its condition.
  for (const m of code.matchAll(/\b(if|while) \(/g)) {
    const open = m.index + m[0].length - 1;
    const close = closing(code, open);
    if (close < 0) continue;
    add('guard', open + 1, close - open - 1, 'false');
    if (m[1] === 'if') add('guard', open + 1, close - open - 1, 'true');
    for (const op of ['||', '&&']) {
      const spans = operands(code, open + 1, close, op);
      if (spans.length < 2) continue;
      spans.forEach((_, k) => {
        const rest = spans
          .filter((_, j) => j !== k)
          .map(([a, b]) => line.slice(a, b))
          .join(` ${op} `);
        add('condition', open + 1, close - open - 1, rest);
      });
    }
  }
  // Negation dropped.
  for (const m of code.matchAll(/\(!(?!=)/g)) add('negate', m.index, 2, '(');
  // Hex and ASCII case: a regex's i flag, case folding with | 0x20, toLowerCase/toUpperCase, hexCase.
  for (const m of line.matchAll(/\/(?:[^/\n\\]|\\.)+\/i(?=[.,;)\s])/g)) add('case', m.index, m[0].length, m[0].slice(0, -1));
  for (const m of code.matchAll(/ \| (?:0x20|CASE_BIT)\b/g)) add('case', m.index, m[0].length, '');
  for (const m of code.matchAll(/\bto(Lower|Upper)Case\b/g))
    add('case', m.index, m[0].length, m[1] === 'Lower' ? 'toUpperCase' : 'toLowerCase');
  for (const m of line.matchAll(/'(lower|upper)'/g)) add('case', m.index, m[0].length, m[1] === 'lower' ? "'upper'" : "'lower'");
  // A flag dropped from a flag union (the SIMD UTF-8 tables): `A | B` -> `B`.
  for (const m of code.matchAll(/\b[A-Z][A-Z0-9_]+ \| /g)) add('flag', m.index, m[0].length, '');
  return found.filter((f) => f.text !== line && (OPS.length === 0 || OPS.includes(f.op)));
}

function sourceFiles() {
  const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'assembly', 'src'], { encoding: 'utf8' }).split('\n');
  return listed.filter(
    (f) =>
      /\.ts$/.test(f) &&
      f !== 'src/core/wasm-bytes.ts' &&
      f !== 'src/core/abi.ts' &&
      (FILES.length === 0 || FILES.some((p) => f.includes(p))),
  );
}

function allMutants() {
  const list = [];
  for (const file of sourceFiles()) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const m of mutantsOfLine(line))
        if (!RERUN || rerunKeys.has(`${file}:${i + 1}:${m.col}:${m.op}:${m.to}`)) list.push({ file, line: i + 1, ...m });
    });
  }
  return list;
}

/** Deterministic shuffle (mulberry32), so a sample can be run again. */
function shuffle(list, seed) {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ---- Running ----
function sh(cmd, argv, cwd, timeout, extraEnv = {}) {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env.FUZZ_RUNS; // the default run counts (an empty FUZZ_RUNS would mean 0 runs)
    delete env.FC_SEED; // the suite's own seed, unless extraEnv sets another
    Object.assign(env, extraEnv);
    const child = spawn(cmd, argv, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL'); // the group we started: vitest and its workers
      } catch {
        // already gone
      }
    }, timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, out });
    });
  });
}

async function build(kind, cwd) {
  if (kind === 'none') return { code: 0 };
  if (kind === 'full') return sh(process.execPath, ['scripts/build.mjs'], cwd, 300_000);
  // The four cores (shipped and with test hooks) and the modules generated from them.
  return sh(process.execPath, ['scripts/build-core.mjs'], cwd, 300_000);
}

// What a core build writes: kept from the unmutated build and put back after a core mutant.
const CORE_OUTPUTS = [
  'src/core/wasm-bytes.ts',
  'src/core/abi.ts',
  'build/core.simd.wasm',
  'build/core.scalar.wasm',
  'build/core-hooks.simd.wasm',
  'build/core-hooks.scalar.wasm',
];

function copyRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'mutate-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const f of files) {
    if (f === 'node_modules' || f.startsWith('node_modules/')) continue;
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  return dir;
}

/** Runs the test tiers of a mutant until one fails: 'killed', 'timeout' or 'survived', with a detail. */
async function runTiers(m, dir, env, built) {
  const projects = projectsFor(m.file).flatMap((p) => ['--project', p]);
  const tiers = testTiers(m.file);
  let files = 0;
  for (const [k, tier] of tiers.entries()) {
    if (k === tiers.length - 1 && tier.some(usesBuild) && !built.full) {
      const b = await build('full', dir); // (the mutant, built into dist/ for the tests that run it)
      if (b.code !== 0) return { status: 'invalid', detail: 'the package does not build', files };
      built.full = true;
    }
    files += tier.length;
    const r = await sh(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', ...projects, '--bail', '1', '--reporter', 'dot', ...tier],
      dir,
      TIMEOUT + PER_FILE * tier.length * projectsFor(m.file).length,
      env,
    );
    if (r.timedOut) return { status: 'timeout', detail: `tier ${k + 1}`, files };
    if (r.code !== 0) {
      const out = stripVTControlCharacters(r.out);
      const detail = (/FAIL .*/.exec(out) ?? [''])[0].slice(0, 160);
      // A kill is confirmed by the failing file alone: on a loaded machine a file can fail in a
      // crowd (fast-check's time limits, a worker's start) and pass alone.
      const failing = /FAIL\s+((?:simd|scalar)(?:-own|-hooks)?)\s+(test\/\S+\.test\.ts)/.exec(out);
      if (failing) {
        const alone = await sh(
          process.execPath,
          ['node_modules/vitest/vitest.mjs', 'run', '--project', failing[1], '--reporter', 'dot', failing[2]],
          dir,
          TIMEOUT + PER_FILE,
          env,
        );
        if (alone.code === 0 && !alone.timedOut) return { status: 'unconfirmed', detail: `${failing[2]} passes alone`, files };
      }
      return { status: 'killed', detail, files };
    }
  }
  return { status: 'survived', detail: '', files };
}

/** The probe's hash on each build the mutated file reaches (scripts/mutate-probe.ts). */
async function probe(file, dir) {
  const hashes = [];
  for (const build of projectsFor(file)) {
    const r = await sh(process.execPath, ['scripts/run-ts.mjs', PROBE], dir, 300_000, { MCP_PAYLOAD_CODEC_WASM: build });
    hashes.push(r.code === 0 ? r.out.trim().split('\n').at(-1) : `failed ${r.code}`);
  }
  return hashes.join(' ');
}

function sampleOf(all, byOp, seed) {
  // Stratified: operators take turns (constants would otherwise be half of any sample).
  const groups = Object.keys(byOp)
    .sort()
    .map((op) =>
      shuffle(
        all.filter((m) => m.op === op),
        seed,
      ),
    );
  const sample = [];
  for (let k = 0; sample.length < Math.min(SAMPLE, all.length); k++)
    for (const g of groups) if (k < g.length && sample.length < SAMPLE) sample.push(g[k]);
  return sample;
}

async function main() {
  const all = allMutants();
  const byOp = {};
  for (const m of all) byOp[m.op] = (byOp[m.op] ?? 0) + 1;
  console.log(
    `${all.length} mutants (${Object.entries(byOp)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}); ${SAMPLE} per seed (${SEEDS.join(', ')}); survivors tried again with FC_SEED ${MORE_SEEDS.join(', ') || '(none)'}`,
  );
  if (flag('list')) {
    for (const seed of SEEDS)
      for (const m of sampleOf(all, byOp, seed)) {
        const tiers = testTiers(m.file).map((t) => t.length);
        console.log(
          `${m.file}:${m.line}:${m.col} [${m.op}] ${m.from.trim()} -> ${m.to.trim() || '(removed)'}  (test files: ${tiers.join(' + ')})`,
        );
      }
    return;
  }
  const dir = copyRepo();
  console.log(`copy: ${dir}`);
  const base = await build('full', dir); // dist/ for the CLI tests, the core for the rest
  if (base.code !== 0) throw new Error(`the unmutated copy does not build:\n${base.out}`);
  const coreOutputs = CORE_OUTPUTS.map((f) => [f, readFileSync(join(dir, f))]);
  cpSync(join(dir, 'dist'), join(dir, '.dist-unmutated'), { recursive: true });
  const baseline = { simd: await probe('src/index.ts', dir), both: await probe('assembly/index.ts', dir) };
  console.log(`probe: ${baseline.both}`);
  const probeReaches = (file) => reaches(PROBE, file);
  for (const seed of SEEDS) {
    const sample = sampleOf(all, byOp, seed);
    console.log(`\nseed ${seed}: ${sample.length} mutants`);
    const results = [];
    const started = Date.now();
    for (const [k, m] of sample.entries()) {
      const t0 = Date.now();
      const path = join(dir, m.file);
      const original = readFileSync(path, 'utf8');
      const lines = original.split('\n');
      lines[m.line - 1] = m.text;
      writeFileSync(path, lines.join('\n'));
      const kind = m.file.startsWith('assembly/') ? 'core' : 'none';
      const built = { full: false };
      let verdict;
      const b = await build(kind, dir);
      if (b.code !== 0)
        verdict = { status: 'invalid', detail: '', files: 0 }; // does not compile: not a mutant that counts
      else {
        verdict = await runTiers(m, dir, {}, built);
        // Same output as the unmutated code on the probe's inputs: only speed changed, or a path
        // no input reaches (it needs a test of its own, not a score).
        if (verdict.status === 'survived' && probeReaches(m.file)) {
          const h = await probe(m.file, dir);
          if (h === (kind === 'core' ? baseline.both : baseline.simd))
            verdict = { ...verdict, status: 'equivalent', detail: 'same probe output' };
        }
        for (const fcSeed of MORE_SEEDS) {
          if (verdict.status !== 'survived') break;
          const again = await runTiers(m, dir, { FC_SEED: String(fcSeed) }, built);
          if (again.status === 'killed' || again.status === 'timeout')
            verdict = { ...again, status: 'killed-seed', detail: `FC_SEED=${fcSeed}: ${again.detail}` };
        }
      }
      writeFileSync(path, original);
      if (kind === 'core') for (const [f, bytes] of coreOutputs) writeFileSync(join(dir, f), bytes);
      if (built.full) {
        rmSync(join(dir, 'dist'), { recursive: true, force: true });
        cpSync(join(dir, '.dist-unmutated'), join(dir, 'dist'), { recursive: true });
      }
      const seconds = (Date.now() - t0) / 1000;
      results.push({ ...m, ...verdict, seconds, text: undefined });
      console.log(
        `${String(k + 1).padStart(3)}/${sample.length} ${verdict.status.padEnd(11)} ${seconds.toFixed(1).padStart(5)} s ${String(verdict.files).padStart(3)} files  ${m.file}:${m.line} [${m.op}] ${m.from.trim()} -> ${m.to.trim() || '(removed)'}${verdict.detail ? `  (${verdict.detail})` : ''}`,
      );
    }
    report(seed, results, (Date.now() - started) / 1000);
  }
  if (flag('keep')) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

/**
 * The score: killed (a test failed, or hung) over killed and survived, with the suite's seed;
 * then with the other seeds too. Equivalent mutants (same probe output) and those that do not
 * compile are left out; the figure counting equivalents as survivors is printed too.
 */
function report(seed, results, total) {
  const count = (...s) => results.filter((r) => s.includes(r.status)).length;
  const killed = count('killed', 'timeout');
  const bySeed = count('killed-seed');
  const survived = count('survived');
  const valid = killed + bySeed + survived;
  const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
  console.log(
    `\nseed ${seed}: score ${pct(killed, valid)} with the suite's seed, ${pct(killed + bySeed, valid)} with any seed: ` +
      `${count('killed')} killed, ${count('timeout')} timed out (killed), ${bySeed} killed only with another FC_SEED, ` +
      `${survived} survived, ${count('equivalent')} equivalent (left out; ${pct(killed, valid + count('equivalent'))} counting them), ` +
      `${count('invalid')} did not compile, ${count('unconfirmed')} unconfirmed (the failing file passes alone: left out)`,
  );
  if (count('timeout'))
    console.log(`  (${pct(count('killed'), valid - count('timeout'))} with timeouts left out: on a loaded machine one may be only slow)`);
  console.log(`time ${total.toFixed(0)} s, ${(total / Math.max(1, results.length)).toFixed(1)} s per mutant`);
  for (const r of results.filter((x) => ['survived', 'equivalent', 'killed-seed', 'timeout', 'unconfirmed'].includes(x.status)))
    console.log(`  ${r.status}: ${r.file}:${r.line}:${r.col} [${r.op}] ${r.from.trim()} -> ${r.to.trim() || '(removed)'}`);
  const out = opt('out', '');
  if (out)
    writeFileSync(out.replace(/(\.json)?$/, `-seed${seed}.json`), JSON.stringify({ seed, sample: SAMPLE, total, results }, null, 2) + '\n');
}

await main();
