// npm run mutate: mutation testing of our own, one mutant at a time, in a copy of the repo.
//
// The repo's files (tracked and untracked, not ignored) are copied to a temporary directory
// with node_modules linked, so the shared tree is never touched. Targeted operators over
// assembly/*.ts and src/**/*.ts make the mutants (flipped comparisons, off-by-one constants,
// dropped conditions and guards, the hex case flag, a flag dropped from a SIMD table entry...).
// Each mutant is written into the copy, built when it is core code (AssemblyScript, both
// targets), and tested with a fast subset of tests chosen for its file, under a time limit
// (a hang counts as killed, as in Stryker). The report gives the score and every survivor.
//
//   node scripts/mutate.mjs [--sample 30] [--seed 1] [--files decode,utf8] [--ops cmp,guard]
//                           [--timeout 120] [--list] [--keep] [--out report.json]
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : args[i + 1];
};
const flag = (name) => args.includes(`--${name}`);
const SAMPLE = Number(opt('sample', 30));
const SEED = Number(opt('seed', 1));
const TIMEOUT = Number(opt('timeout', 120)) * 1000;
const FILES = opt('files', '').split(',').filter(Boolean);
const OPS = opt('ops', '').split(',').filter(Boolean);
const ROOT = process.cwd();

// ---- Which tests guard which files (fast subsets; the CLI and browser tests need dist/). ----
const SUBSETS = [
  [/^assembly\/utf8-simd\.ts$/, ['kernel-utf8-simd', 'stream-utf8']],
  // (utf8.ts also decides which tokens are valid UTF-8.)
  [/^assembly\/utf8\.ts$/, ['kernel-utf8-simd', 'stream-utf8', 'decode-tokens']],
  [/^assembly\/decode\.ts$/, ['kernel-decode-tokens', 'decode-tokens', 'stream-ndjson', 'stream-complexity']],
  [/^assembly\/fffd\.ts$/, ['kernel-fffd', 'integrity']],
  [/^assembly\/(fields|data-uri)\.ts$/, ['field-policy']],
  [
    /^assembly\/json\//,
    [
      'stream-ndjson',
      'stream-framing',
      'stream-utf8',
      'decode-tokens',
      'stream-consumers',
      'field-policy',
      'stream-complexity',
      'stream-error-codes',
    ],
  ],
  [/^assembly\/(match|filter)\.ts$/, ['kernel-teddy', 'properties', 'boundaries', 'wire-format']],
  [/^assembly\//, ['properties', 'boundaries', 'integrity', 'stream-ndjson', 'wire-format']],
  [/^src\/options\.ts$/, ['options', 'options-prefix', 'custom-codec']],
  [/^src\/token-decode\.ts$/, ['decode-tokens', 'properties', 'value-properties']],
  [/^src\/token-encode\.ts$/, ['wire-format', 'properties', 'custom-codec']],
  [/^src\/(walk|payload|protocol-fields)\.ts$/, ['value', 'value-properties', 'field-policy']],
  [/^src\/integrity\.ts$/, ['integrity', 'integrity-limit']],
  [/^src\/core\//, ['memory-bounded', 'properties', 'boundaries']],
  [/^src\/(compile|fold)\//, ['compile-prefilters', 'properties', 'fold-properties', 'fold-lookalikes', 'wire-format']],
  [
    /^src\/mcp\//,
    [
      'mcp-transports',
      'mcp-wrapper-edges',
      'mcp-tool-guard',
      'mcp-protocol-fields',
      'mcp-guard-order',
      'tool-guard-regex',
      'guard-schema-cache',
    ],
  ],
  [
    /^src\/stream\//,
    [
      'held-bytes',
      'stream-ndjson',
      'stream-framing',
      'stream-consumers',
      'stream-utf8',
      'decode-tokens',
      'stream-sse-parser',
      'stream-invalid-ndjson',
      'stream-content-length-ambiguity',
      'stream-limits-exact',
      'stream-complexity',
      'field-policy',
    ],
  ],
  [/^src\/http\//, ['http-fetch', 'http-fetch-edges', 'http-proxy', 'http-body']],
  [/^src\/cli/, ['cli', 'cli-args', 'cli-scan']],
  [/^src\//, ['properties', 'value-properties', 'custom-codec', 'wire-format', 'value', 'boundaries']],
];
const testsFor = (file) => SUBSETS.find(([re]) => re.test(file))[1].map((t) => `test/${t}.test.ts`);
// Core code is built into the WASM; the CLI is run from dist/; the rest is imported as TS.
const buildFor = (file) => (file.startsWith('assembly/') ? 'core' : file.startsWith('src/cli') ? 'full' : 'none');
// SIMD-only code needs the SIMD project; other core code runs on both builds.
const projectsFor = (file) => (file === 'assembly/utf8-simd.ts' || !file.startsWith('assembly/') ? ['simd'] : ['simd', 'scalar']);

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
      for (const m of mutantsOfLine(line)) list.push({ file, line: i + 1, ...m });
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
function sh(cmd, argv, cwd, timeout) {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env.FUZZ_RUNS; // the default run counts (an empty FUZZ_RUNS would mean 0 runs)
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
  for (const target of ['simd', 'scalar']) {
    const r = await sh(
      process.execPath,
      ['node_modules/.bin/asc', 'assembly/index.ts', '--config', 'asconfig.json', '--target', target],
      cwd,
      300_000,
    );
    if (r.code !== 0) return r;
  }
  const b64 = (f) => readFileSync(join(cwd, f)).toString('base64');
  writeFileSync(
    join(cwd, 'src/core/wasm-bytes.ts'),
    '// Generated by scripts/build.mjs from assembly/: do not edit.\n' +
      `export const SIMD_WASM_BASE64 = '${b64('build/core.simd.wasm')}';\n` +
      `export const SCALAR_WASM_BASE64 = '${b64('build/core.scalar.wasm')}';\n`,
  );
  return { code: 0 };
}

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

async function main() {
  const all = allMutants();
  const byOp = {};
  for (const m of all) byOp[m.op] = (byOp[m.op] ?? 0) + 1;
  // Stratified: operators take turns (constants would otherwise be half of any sample).
  const groups = Object.keys(byOp)
    .sort()
    .map((op) =>
      shuffle(
        all.filter((m) => m.op === op),
        SEED,
      ),
    );
  const sample = [];
  for (let k = 0; sample.length < Math.min(SAMPLE, all.length); k++)
    for (const g of groups) if (k < g.length && sample.length < SAMPLE) sample.push(g[k]);
  console.log(
    `${all.length} mutants (${Object.entries(byOp)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}); running ${sample.length} (seed ${SEED})`,
  );
  if (flag('list')) {
    for (const m of sample) console.log(`${m.file}:${m.line}:${m.col} [${m.op}] ${m.from.trim()} -> ${m.to.trim() || '(removed)'}`);
    return;
  }
  const dir = copyRepo();
  console.log(`copy: ${dir}`);
  const base = await build('full', dir); // dist/ for the CLI tests, the core for the rest
  if (base.code !== 0) throw new Error(`the unmutated copy does not build:\n${base.out}`);
  const wasmBytes = readFileSync(join(dir, 'src/core/wasm-bytes.ts'));
  const results = [];
  const started = Date.now();
  for (const [k, m] of sample.entries()) {
    const t0 = Date.now();
    const path = join(dir, m.file);
    const original = readFileSync(path, 'utf8');
    const lines = original.split('\n');
    lines[m.line - 1] = m.text;
    writeFileSync(path, lines.join('\n'));
    let status;
    let detail = '';
    const kind = buildFor(m.file);
    const b = await build(kind, dir);
    if (b.code !== 0)
      status = 'invalid'; // does not compile: not a mutant that counts
    else {
      const projects = projectsFor(m.file).flatMap((p) => ['--project', p]);
      const r = await sh(
        process.execPath,
        ['node_modules/vitest/vitest.mjs', 'run', ...projects, '--bail', '1', '--reporter', 'dot', ...testsFor(m.file)],
        dir,
        TIMEOUT,
      );
      if (r.timedOut) status = 'timeout';
      else if (r.code !== 0) {
        status = 'killed';
        detail = (/FAIL .*/.exec(stripVTControlCharacters(r.out)) ?? [''])[0].slice(0, 160);
      } else status = 'survived';
    }
    writeFileSync(path, original);
    if (kind === 'core') writeFileSync(join(dir, 'src/core/wasm-bytes.ts'), wasmBytes);
    if (kind === 'full') await build('full', dir);
    const seconds = (Date.now() - t0) / 1000;
    results.push({ ...m, status, seconds, detail, text: undefined });
    console.log(
      `${String(k + 1).padStart(3)}/${sample.length} ${status.padEnd(8)} ${seconds.toFixed(1).padStart(5)} s  ${m.file}:${m.line} [${m.op}] ${m.from.trim()} -> ${m.to.trim() || '(removed)'}${detail ? `  (${detail})` : ''}`,
    );
  }
  const count = (s) => results.filter((r) => r.status === s).length;
  const killed = count('killed') + count('timeout');
  const valid = killed + count('survived');
  const total = (Date.now() - started) / 1000;
  console.log(
    `\nscore ${valid ? ((100 * killed) / valid).toFixed(1) : '-'}%: ${count('killed')} killed, ${count('timeout')} timed out (killed), ${count('survived')} survived, ${count('invalid')} did not compile`,
  );
  console.log(`time ${total.toFixed(0)} s, ${(total / Math.max(1, results.length)).toFixed(1)} s per mutant`);
  for (const r of results.filter((x) => x.status === 'survived'))
    console.log(`  survivor: ${r.file}:${r.line}:${r.col} [${r.op}] ${r.from.trim()} -> ${r.to.trim() || '(removed)'}`);
  const out = opt('out', '');
  if (out) writeFileSync(out, JSON.stringify({ seed: SEED, sample: SAMPLE, total, results }, null, 2) + '\n');
  if (flag('keep')) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

await main();
