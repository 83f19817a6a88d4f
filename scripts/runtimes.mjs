// The runtimes besides Node that the package is tested in (test/runtimes.test.ts): Bun, Deno and
// Cloudflare's workerd, from their registry packages (each ships its binary), at the versions
// pinned below, installed on demand into .cache/runtimes (ignored by git; not devDependencies:
// 350 MB that only this test needs). `node scripts/runtimes.mjs` installs them and prints where.
// A runtime that cannot be installed is an error that says so (the test then fails, never skips).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RUNTIMES = { bun: '1.4.5', deno: '2.9.6', workerd: '1.20261123.1' };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.cache', 'runtimes');

const binary = (name) => join(CACHE, 'node_modules', '.bin', name);

function installed(name, version) {
  try {
    const meta = JSON.parse(readFileSync(join(CACHE, 'node_modules', name, 'package.json'), 'utf8'));
    return meta.version === version && existsSync(binary(name));
  } catch {
    return false;
  }
}

/** Installs the pinned runtimes (once) and returns each one's binary. Throws, saying why, if it cannot. */
export function installRuntimes() {
  const names = Object.keys(RUNTIMES);
  if (!names.every((name) => installed(name, RUNTIMES[name]))) {
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(join(CACHE, 'package.json'), `${JSON.stringify({ private: true, dependencies: RUNTIMES }, null, 2)}\n`);
    try {
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'], {
        cwd: CACHE,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (e) {
      throw new Error(
        `cannot install ${names.map((n) => `${n}@${RUNTIMES[n]}`).join(', ')} into ${CACHE}: ${String(e.stderr ?? e.message).trim()}`,
      );
    }
    for (const name of names)
      if (!installed(name, RUNTIMES[name])) throw new Error(`${name}@${RUNTIMES[name]} installed into ${CACHE}, but its binary is missing`);
  }
  return Object.fromEntries(names.map((name) => [name, binary(name)]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, path] of Object.entries(installRuntimes())) {
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).split('\n')[0];
    console.log(`${name}: ${path} (${version})`);
  }
}
