// The server wrap runs, started as soon as the command line is checked and before wrap's own code
// (the stream layer, the guard) loads, so that loading and the server's start overlap. What the
// process does before wrap listens is kept here: a spawn error (Node emits it on the next tick),
// the end of its output and its close (a server that dies at once, writing nothing, gets there
// before wrap listens). Output it writes waits in its stdout, paused, until wrap reads it.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** After a server is sent SIGTERM (wrap gave up, a serve session ended), how long it has before SIGKILL. */
export const KILL_GRACE_MS = 3000;

export interface ServerProcess {
  /** The command's file, as given. */
  file: string;
  child: ChildProcessByStdio<Writable, Readable, null>;
  /** Resolves with the error if the command could not be started. */
  startFailed: Promise<NodeJS.ErrnoException>;
  /** Resolves when its stdout ends (after the last 'data'). */
  outputEnded: Promise<void>;
  /** Resolves when it has exited and its pipes have closed, with its exit code or signal. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startServer(file: string, args: readonly string[]): ServerProcess {
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const startFailed = new Promise<NodeJS.ErrnoException>((resolve) =>
    child.on('error', (e: NodeJS.ErrnoException) => {
      // (an error once it has a pid is a failed kill of a child that is already gone)
      if (child.pid === undefined) resolve(e);
    }),
  );
  const outputEnded = new Promise<void>((resolve) => child.stdout.on('end', resolve));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { file, child, startFailed, outputEnded, closed };
}
