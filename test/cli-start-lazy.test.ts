// What the CLI loads before it does its job, watched from inside the process: a module hook logs
// every module resolved, and a preload logs the moment child_process.spawn is first called.
// `--help` loads neither the codec (its WASM core) nor child processes nor HTTP; `wrap` starts the
// server before it loads the codec and the stream layer, so that loading and the server's own
// start overlap, and what the server writes at once still reaches the client encoded (a plain
// wrap loads no guard and no call timers at all); a command whose code fails to load ends with
// the error and status 1, leaving nothing running.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, type ExpectStatic, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { CLI, MODULE_LOG_HOOK, ROOT } from './fixtures/cli-session.ts';
import { until } from './until.ts';

const dir = mkdtempSync(join(tmpdir(), 'cli-start-'));
const HOOKS = `${MODULE_LOG_HOOK}
export async function load(url, context, next) {
  const fail = process.env.FAIL_MODULE;
  const slow = process.env.SLOW_MODULE;
  if (slow && new RegExp(slow).test(url)) await new Promise((r) => setTimeout(r, 2000));
  if (fail && new RegExp(fail).test(url)) return { format: 'module', source: 'throw new Error("cannot load " + ' + JSON.stringify(JSON.stringify(url)) + ')', shortCircuit: true };
  return next(url, context);
}`;
const PRELOAD = `import { register, syncBuiltinESMExports } from 'node:module';
import cp from 'node:child_process';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});
const spawn = cp.spawn;
cp.spawn = (...args) => {
  appendFileSync(process.env.MODULE_LOG, 'SPAWN\\n');
  const child = spawn(...args);
  appendFileSync(process.env.MODULE_LOG, 'PID ' + child.pid + '\\n');
  return child;
};
syncBuiltinESMExports();`;
writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
writeFileSync(join(dir, 'preload.mjs'), PRELOAD);

let run = 0;
/** The command line of a watched CLI with `args`, and its environment (a new log each). */
function watched(args: string[], env: Record<string, string>) {
  const log = join(dir, `log-${run++}`);
  writeFileSync(log, '');
  const argv = ['--import', pathToFileURL(join(dir, 'preload.mjs')).href, CLI, ...args];
  return { log, argv, env: { ...process.env, MODULE_LOG: log, ...env } };
}
const logOf = (log: string) => readFileSync(log, 'utf8').split('\n').filter(Boolean);

/** What the process loaded, in order (and SPAWN where it started a child), and its output. */
function loads(args: string[], status = 0, env: Record<string, string> = {}): { log: string[]; stdout: string; stderr: string } {
  const w = watched(args, env);
  const r = spawnSync(process.execPath, w.argv, { cwd: ROOT, input: '', encoding: 'utf8', env: w.env, timeout: 10_000 });
  expect(r.status, r.stderr).toBe(status);
  return { log: logOf(w.log), stdout: r.stdout, stderr: r.stderr };
}

/** `loads`, without blocking the worker while the process runs (for a case that waits on a timer of the CLI's). */
async function loadsLater(
  expect: ExpectStatic,
  args: string[],
  status = 0,
  env: Record<string, string> = {},
): Promise<{ log: string[]; stdout: string; stderr: string }> {
  const w = watched(args, env);
  const p = spawn(process.execPath, w.argv, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: w.env,
    timeout: 10_000,
    killSignal: 'SIGKILL',
  });
  let stdout = '';
  let stderr = '';
  p.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  p.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  // (its exit, then its output: a server left running holds the pipes open, so at most a second)
  let ended = false;
  void Promise.all([once(p.stdout, 'end'), once(p.stderr, 'end')]).then(() => {
    ended = true;
  });
  const [code] = (await once(p, 'exit')) as [number | null];
  await until(() => ended, 1_000, 10).catch(() => {});
  expect(code, stderr).toBe(status);
  return { log: logOf(w.log), stdout, stderr };
}

/** Whether module `url` is one of ours whose text holds `text`. */
const holds = (url: string, text: string | RegExp) =>
  url.startsWith('file:') && url.includes('/dist/') && has(readFileSync(fileURLToPath(url), 'utf8'), text);
const has = (code: string, text: string | RegExp) => (typeof text === 'string' ? code.includes(text) : text.test(code));
/** A class's definition as the bundler may write it. */
const classOf = (name: string) => new RegExp(`\\bclass ${name}\\b|\\b${name} = class\\b`);

// The two cases that wait on the CLI's timers (SIGKILL's grace, a slow load) run at once, first
// (consecutive concurrent cases run together); the others, which compute, after them in order
// (run beside them, they slowed the term set's compile past its 10 s on a loaded machine).
describe('the CLI loads what a command uses, when it uses it', () => {
  /** Whether process `pid` is gone (ended, and reaped by whoever started it); one still there is killed, so a failing case leaves nothing. */
  const gone = (pid: number) => {
    try {
      process.kill(pid, 'SIGKILL');
      return false;
    } catch {
      return true;
    }
  };
  // (a server that ignores SIGTERM and the end of its input: wrap must SIGKILL it)
  const STUBBORN = `process.on('SIGTERM', () => {}); process.stdin.resume(); setInterval(() => {}, 1000)`;

  it.concurrent('wrap with a term set too large to compile: status 2, and its server, already started, ended though it ignores SIGTERM', async ({
    expect,
  }) => {
    // (3000 exact terms of 8 CJK Extension B characters drawn by a linear congruential generator:
    // about 87000 states, a state a byte and 4 bytes a character. The checks before the compile
    // go character by character: wrap takes under half the CPU it took with 4000 ASCII terms of
    // 24 letters, which on a loaded machine took this case to 8-10 s of spawn's 10.)
    let draw = 1;
    const character = () => {
      draw = (draw * 1103515245 + 12345) & 0x7fffffff;
      return String.fromCodePoint(0x20000 + ((draw >>> 16) % 0xa6e0));
    };
    const exact = Array.from({ length: 3000 }, () => Array.from({ length: 8 }, character).join(''));
    const terms = join(dir, 'too-large.json');
    writeFileSync(terms, JSON.stringify({ exact }));
    // (the status is read once the process has ended: a wrap that waits on its server fails at spawnSync's timeout)
    const { log, stderr } = await loadsLater(expect, ['wrap', '--terms', terms, process.execPath, '-e', STUBBORN], 2);
    expect(stderr).toMatch(/^mcp-payload-codec: the term set is too large/);
    expect(gone(Number(log.find((l) => l.startsWith('PID '))!.slice(4)))).toBe(true);
  }, 20_000);

  it.concurrent('wrap sent SIGTERM while its code loads: passed on to its server, which ends; 143', async ({ expect }) => {
    const log = join(dir, `log-${run++}`);
    writeFileSync(log, '');
    const p = spawn(
      process.execPath,
      ['--import', pathToFileURL(join(dir, 'preload.mjs')).href, CLI, 'wrap', process.execPath, '-e', 'setInterval(() => {}, 1000)'],
      {
        cwd: ROOT,
        stdio: ['pipe', 'ignore', 'pipe'],
        env: { ...process.env, MODULE_LOG: log, SLOW_MODULE: '/dist/chunks/wrap-[A-Z0-9]+\\.js$' },
      },
    );
    const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
    const pidOf = () => readFileSync(log, 'utf8').match(/^PID (\d+)$/m)?.[1];
    await until(() => pidOf() !== undefined, 10_000, 10);
    const pid = pidOf()!;
    p.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(gone(Number(pid))).toBe(true);
  }, 20_000);

  it('--help: no WASM core, no child processes, no HTTP', () => {
    const { log, stdout } = loads(['--help']);
    expect(stdout).toMatch(/^Usage: mcp-payload-codec/);
    expect(log.some((url) => url.endsWith('/dist/cli.js'))).toBe(true);
    expect(log.filter((url) => holds(url, 'new WebAssembly.Module('))).toEqual([]);
    expect(log.filter((url) => ['node:child_process', 'node:http', 'node:net'].includes(url))).toEqual([]);
  });

  it('wrap: the server starts before the codec and the stream layer load; what it writes at once comes through encoded', () => {
    // (a server that writes a message with a default term as it starts, before wrap could read it)
    const message = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'Qwen via DashScope' } };
    const { log, stdout } = loads([
      'wrap',
      process.execPath,
      '-e',
      `process.stdout.write(${JSON.stringify(`${JSON.stringify(message)}\n`)})`,
    ]);
    const spawned = log.indexOf('SPAWN');
    expect(spawned).toBeGreaterThanOrEqual(0);
    for (const text of ['new WebAssembly.Module(', 'function createCodec(', 'function createByteTransformer(']) {
      const loaded = log.findIndex((url) => holds(url, text));
      expect(loaded, text).toBeGreaterThan(spawned);
    }
    // (and a plain wrap does without the guard's code and the call timers')
    for (const name of ['WrapGuard', 'ToolCallGuard', 'CallTimeouts'])
      expect(
        log.filter((url) => holds(url, classOf(name))),
        name,
      ).toEqual([]);
    expect(stdout.endsWith('\n')).toBe(true);
    const forwarded = JSON.parse(stdout);
    expect(stdout).not.toMatch(/qwen|dashscope/i);
    expect(createCodec().decodeMessage(forwarded)).toEqual(message);
  });

  it('wrap whose code fails to load: the error, status 1, and the server it started is ended', () => {
    // (the server lives until it is ended; the preload logs its pid)
    for (const chunk of ['wrap', 'codec-build']) {
      const { log, stderr } = loads(['wrap', process.execPath, '-e', 'setInterval(() => {}, 1000)'], 1, {
        FAIL_MODULE: `/dist/chunks/${chunk}-[A-Z0-9]+\\.js$`,
      });
      // (the status is read once the process has ended: a wrap that waits on its server fails at spawnSync's timeout)
      expect(stderr).toMatch(new RegExp(`^mcp-payload-codec: cannot load .*/${chunk}-`));
      const pid = Number(log.find((l) => l.startsWith('PID '))!.slice(4));
      let alive = true;
      try {
        process.kill(pid); // (gone already: throws ESRCH)
      } catch {
        alive = false;
      }
      expect(alive, chunk).toBe(false);
    }
  });

  it('each other command whose code fails to load: the error and status 1', () => {
    const cases: [string[], string][] = [
      [['proxy', '--upstream', 'http://127.0.0.1:9/mcp'], 'proxy-'],
      [['connect', 'http://127.0.0.1:9/mcp'], 'connect-'],
      [['serve', process.execPath, '-e', '0'], 'serve-'],
      [['encode'], 'transform-'],
      [['scan'], 'scan-'],
    ];
    for (const [args, chunk] of cases) {
      const { stderr } = loads(args, 1, { FAIL_MODULE: `/dist/chunks/${chunk}` });
      expect(stderr).toMatch(/^mcp-payload-codec: cannot load /);
    }
  });
});
