// Starts the harness in one runtime: bundles its entry with esbuild (as a user's build would),
// starts the runtime's binary (from scripts/runtimes.mjs) on a loopback port, and resolves with
// the harness's URL once it answers. Each runtime is a real child process, stopped by `stop`.
// The port is the runtime's own from the start: Bun and Deno bind port 0 and say which they got
// (ANNOUNCE); workerd serves on a listening socket made here and inherited. (A port found
// free, closed, then bound by the runtime could be taken in between: another test's server,
// such as a proxy whose upstream is gone, then answered in the runtime's place.)
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
 * Put before a Bun or Deno bundle, whose entry serves on PORT=0, the port the system picks as it
 * binds: writes the port its server got to stdout (`port N`), for `announcedPort`.
 */
const ANNOUNCE = `{
  const host = globalThis.Bun ?? globalThis.Deno;
  const serve = host.serve.bind(host);
  host.serve = (...a) => {
    const server = serve(...a);
    console.log(\`port \${server.port ?? server.addr.port}\`);
    return server;
  };
}`;

/**
 * Bundles `entry` as a user's build would: for workerd with the conditions wrangler uses (the
 * package's `workerd` build: its core an imported .wasm module, kept as a module of the Worker).
 */
async function bundle(name: RuntimeName, entry: string, dir: string): Promise<string> {
  const outfile = join(dir, 'entry.js');
  const worker = name === 'workerd';
  await build({
    entryPoints: [entry],
    ...(worker ? {} : { banner: { js: ANNOUNCE } }),
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

/** A listening loopback socket on a port the system picks: its fd, to be inherited, and its port. */
async function listeningSocket(): Promise<{ fd: number; port: number; close(): void }> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return { fd, port, close: () => void server.close() };
}

/**
 * The port the runtime announced on stdout (ANNOUNCE), once the line is whole: a read can end
 * inside it (`port 4` of `port 43117`). Other lines before it are passed over. Rejects if the
 * child exits, or 20 s pass.
 */
async function announcedPort(child: ChildProcess, stderr: () => string): Promise<number> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`the runtime did not say its port within 20 s: ${stderr()}`)), 20_000);
    const done = (e: Error | null, port?: number) => {
      clearTimeout(timer);
      child.stdout!.removeListener('data', read);
      child.removeListener('exit', exited);
      if (e) reject(e);
      else resolve(port!);
    };
    const read = (d: Buffer) => {
      out += d;
      const m = /^port (\d+)\r?\n/m.exec(out);
      if (m) done(null, Number(m[1]));
    };
    const exited = (code: number | null) => done(new Error(`the runtime exited (${code}): ${stderr()}`));
    child.stdout!.on('data', read);
    child.once('exit', exited);
  });
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

/** Bundles `entry` and runs it in the runtime on a loopback port of its own. */
export async function launch(name: RuntimeName, binary: string, options: LaunchOptions): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), `mpc-${name}-`));
  const entry = await bundle(name, options.entry, dir);
  const socket = name === 'workerd' ? await listeningSocket() : undefined;
  const vars = { ...options.env, PORT: String(socket?.port ?? 0) };
  const spawnOptions: SpawnOptions = { cwd: dir, env: { ...process.env, ...vars, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] };
  let child: ChildProcess;
  if (socket) {
    // (workerd serves on the socket made here, its fd 3; ours is closed once it has it)
    writeFileSync(join(dir, 'config.capnp'), workerdConfig(socket.port, vars, options.compatibilityDate ?? COMPATIBILITY_DATE));
    child = spawn(binary, ['serve', join(dir, 'config.capnp'), '--socket-fd', 'http=3'], {
      ...spawnOptions,
      stdio: ['ignore', 'pipe', 'pipe', socket.fd],
    });
    socket.close();
  } else if (name === 'deno') child = spawn(binary, ['run', '--quiet', '--allow-net', '--allow-env', entry], spawnOptions);
  else child = spawn(binary, [entry], spawnOptions);
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const stderr = () => err.slice(-2000);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  let url = '';
  try {
    url = `http://127.0.0.1:${socket?.port ?? (await announcedPort(child, stderr))}`;
    child.stdout!.resume(); // (what else it prints is not read)
    await answering(child, url, stderr);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, stderr, stop };
}
