// How wrap ends. Its own failure outranks anything the child does; otherwise it ends as the
// child did, except for a signal wrap itself sent to the child.
//
// - wrap gave up (a stream error, the client's end of stdout gone...): exit code 1, whatever the
//   child does next, even if it exits 0 or dies of the SIGTERM wrap sent it.
// - the child exited: its exit code.
// - the child died of a signal nobody here sent (it crashed, or something killed it
//   directly): wrap raises that signal on itself, so its parent sees the same death.
// - the child died of a signal wrap passed on because wrap received it (SIGINT, SIGTERM,
//   SIGHUP): wrap exits with 128 + the signal's number (130, 143, 129), as shells, tini and
//   dumb-init report it, instead of raising it again: the parent learns which signal ended
//   the session, and wrap never kills itself with a signal it sent.
import { constants } from 'node:os';

export type Ending = { code: number } | { signal: NodeJS.Signals };

export class ExitStatus {
  private reason: string | undefined;
  private readonly sent = new Set<NodeJS.Signals>();

  /** Records wrap's own failure; true the first time (later ones follow from the first). */
  giveUp(reason: string): boolean {
    if (this.reason !== undefined) return false;
    this.reason = reason;
    return true;
  }

  get failed(): boolean {
    return this.reason !== undefined;
  }

  sentToChild(signal: NodeJS.Signals): void {
    this.sent.add(signal);
  }

  ending(code: number | null, signal: NodeJS.Signals | null): Ending {
    if (this.reason !== undefined) return { code: 1 };
    if (signal === null) return { code: code ?? 1 };
    if (this.sent.has(signal)) return { code: 128 + signalNumber(signal) };
    return { signal };
  }
}

const signalNumber = (signal: NodeJS.Signals) => (constants.signals as Record<string, number>)[signal] ?? 0;

/**
 * Ends this process with `signal`. Node ignores some signals (SIGPIPE) or handles them itself;
 * adding and removing a listener resets the signal to its default action first. Returns the
 * exit code to use if the process is still running afterwards.
 */
export function raise(signal: NodeJS.Signals): number {
  process.removeAllListeners(signal);
  if (signal !== 'SIGKILL' && signal !== 'SIGSTOP') {
    try {
      const noop = () => {};
      process.on(signal, noop);
      process.removeListener(signal, noop);
    } catch {
      // a signal Node refuses listeners for keeps its action
    }
  }
  try {
    process.kill(process.pid, signal);
  } catch {
    // unknown on this platform
  }
  return 128 + signalNumber(signal);
}
