// The child of one `serve` session, a stdio MCP server: started, stopped (SIGTERM, then SIGKILL
// for one that ignores it), and how it ended, for the answers to what it left unanswered.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { KILL_GRACE_MS } from './server-process.js';

/** What a session needs of its child: a ChildProcess (a fake one, on in-memory streams, in tests). */
export type SessionChild = Pick<ChildProcess, 'stdin' | 'stdout' | 'exitCode' | 'signalCode' | 'pid' | 'kill' | 'once'>;

/** Starts `command` with its stdin and stdout piped, its stderr the process's own. */
export function startChild(command: readonly string[], log: (line: string) => void): ChildProcess {
  const [file, ...args] = command;
  const child = spawn(file!, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  child.on('error', (e) => log(`cannot start ${file}: ${e.message}`));
  child.stdin!.on('error', () => {}); // (it may exit first; the end of its stdout tells)
  return child;
}

/** Ends the child's input and stops it; one that ignores SIGTERM gets SIGKILL KILL_GRACE_MS later. */
export function stopChild(c: SessionChild): void {
  c.stdin?.end();
  if (c.exitCode !== null || c.signalCode !== null || c.pid === undefined) return;
  c.kill('SIGTERM');
  // (It would otherwise outlive its session, uncounted by --max-sessions, its output still read.)
  const timer = setTimeout(() => c.kill('SIGKILL'), KILL_GRACE_MS);
  c.once('exit', () => clearTimeout(timer));
}

/** How the child ended, once its stdout has: `exited with code 3`, `was killed by SIGKILL`. */
export async function exitStatus(c: SessionChild): Promise<string> {
  if (c.exitCode === null && c.signalCode === null) {
    // (It closed its stdout: it is ending, or it failed to start. Not waited for long.)
    const timer = new Promise((r) => setTimeout(r, 1000).unref?.());
    await Promise.race([once(c as ChildProcess, 'exit').catch(() => {}), once(c as ChildProcess, 'error').catch(() => {}), timer]);
  }
  // (One that could not be started has no pid; Node gives it a negative errno as exit code: -2.)
  if (c.pid === undefined) return 'could not be started';
  if (c.signalCode) return `was killed by ${c.signalCode}`;
  return c.exitCode !== null ? `exited with code ${c.exitCode}` : 'closed its output';
}
