// Starts the harness in one runtime: bundles its entry with esbuild (as a user's build would),
// starts the runtime's binary (from scripts/runtimes.mjs) on a loopback port, and resolves with
// the harness's URL once it answers. Each runtime is a real child process, stopped by `stop`.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

export type RuntimeName = 'bun' | 'deno' | 'workerd';

/** The core of the package's workerd build, a module of the Worker beside its entry. */
const WASM = 'core.simd.wasm';

/** workerd's compatibility date for the Worker, unless one is given (the runtime's own date or older). */
export const COMPATIBILITY_DATE = '2026-11-01';

export interface Running {
  url: string;
  /** What the runtime printed on stderr so far (for a failure's message). */
  stderr(): string;
  stop(): Promise<void>;
}

export interface LaunchOptions {
  /** The entry module (absolute path): a Worker module for workerd, a script for Bun and Deno. */
  entry: string;
  /** Environment variables (Bun, Deno) or text bindings (workerd); PORT is set to the port. */
  env: Record<string, string>;
  compatibilityDate?: string;
}

/**
 * Bundles `entry` as a user's build would: for workerd with the conditions wrangler uses (the
 * package's `workerd` build: its core an imported .wasm module, kept as a module of the Worker).
 */
async function bundle(name: RuntimeName, entry: string, dir: string): Promise<string> {
  const outfile = join(dir, 'entry.js');
  const worker = name === 'workerd';
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    ...(worker ? { conditions: ['workerd', 'worker', 'browser'], external: ['*.wasm'] } : {}),
    target: 'es2022',
    outfile,
    logLevel: 'silent',
  });
  if (worker) copyFileSync(join(import.meta.dirname, '..', '..', 'dist', 'workerd', WASM), join(dir, WASM));
  return outfile;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

const workerdConfig = (port: number, env: Record<string, string>, date: string) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "entry.js", esModule = embed "entry.js"), (name = "${WASM}", wasm = embed "${WASM}")],
  compatibilityDate = "${date}",
  bindings = [${Object.entries(env)
    .map(([name, value]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)})`)
    .join(', ')}],
  globalOutbound = "internet",
);
`;

/** Waits until something answers HTTP at `url` (or the child exits, or 20 s pass). */
async function answering(child: ChildProcess, url: string, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the runtime exited (${child.exitCode}): ${stderr()}`);
    try {
      await fetch(url, { method: 'OPTIONS' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`the runtime did not answer within 20 s: ${stderr()}`);
}

/** Bundles `entry` and runs it in the runtime on a free loopback port. */
export async function launch(name: RuntimeName, binary: string, options: LaunchOptions): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), `mpc-${name}-`));
  const entry = await bundle(name, options.entry, dir);
  const port = await freePort();
  const vars = { ...options.env, PORT: String(port) };
  const spawnOptions: SpawnOptions = { cwd: dir, env: { ...process.env, ...vars, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] };
  let child: ChildProcess;
  if (name === 'workerd') {
    writeFileSync(join(dir, 'config.capnp'), workerdConfig(port, vars, options.compatibilityDate ?? COMPATIBILITY_DATE));
    child = spawn(binary, ['serve', join(dir, 'config.capnp')], spawnOptions);
  } else if (name === 'deno') child = spawn(binary, ['run', '--quiet', '--allow-net', '--allow-env', entry], spawnOptions);
  else child = spawn(binary, [entry], spawnOptions);
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const stderr = () => err.slice(-2000);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await answering(child, url, stderr);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, stderr, stop };
}
