// The HTTP commands as processes: start one, wait for the URL it prints on stderr, and end
// everything a test started after it.
import { type ChildProcess, spawn } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { CLI, ROOT } from './e2e-helpers.ts';

export { CLI as MAIN, ROOT };

/**
 * What to close when the running test ends, last first: each with that test (a hook at this
 * module's top level would run for the first file of a worker only, files sharing modules).
 */
export const cleanup = {
  push: (close: () => unknown): void => onTestFinished(async () => void (await close())),
};

/** Where what a helper opened is registered to be closed: the running test's end (`cleanup.push`), or a suite's own list. */
export type Closer = (close: () => unknown) => void;

/**
 * Starts a listening command (`env` added to this one's); resolves with its URL (printed on
 * stderr) and its stderr so far. `close` takes its end (the running test's, by default).
 */
export async function listening(
  args: string[],
  env: Record<string, string> = {},
  close: Closer = cleanup.push,
): Promise<{ p: ChildProcess; url: string; stderr: () => string }> {
  const p = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  close(() => void p.kill('SIGKILL'));
  let err = '';
  p.stderr!.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    p.stderr!.on('data', (chunk: string) => {
      err += chunk;
      const m = /(?:listening on|on) (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) resolve(m[1]!);
    });
    p.on('exit', () => reject(new Error(`exited early: ${err}`)));
  });
  return { p, url, stderr: () => err };
}
