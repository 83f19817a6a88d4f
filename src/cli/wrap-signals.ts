// wrap's signals to its server, each recorded in the exit status (a signal wrap sent is not the
// child's own death: exit-status.ts): stopping it when wrap gives up (SIGTERM, then SIGKILL
// KILL_GRACE_MS later for one that ignores it), and passing on the SIGINT, SIGTERM and SIGHUP
// wrap itself receives.
import type { ChildProcess } from 'node:child_process';
import type { ExitStatus } from './exit-status.js';
import { KILL_GRACE_MS } from './server-process.js';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export class ChildSignals {
  private killTimer: NodeJS.Timeout | undefined;
  private readonly forward = Object.fromEntries(FORWARDED_SIGNALS.map((signal) => [signal, () => this.send(signal)]));
  private child: Pick<ChildProcess, 'kill'> | undefined;

  /**
   * Takes wrap's signals now, before the child is spawned: a signal that comes while it starts
   * is handled once this turn of the event loop ends, when `attach` has given the child (taken
   * after the spawn, a signal in between ended wrap alone by its default action).
   */
  constructor(private readonly status: ExitStatus) {
    for (const signal of FORWARDED_SIGNALS) process.on(signal, this.forward[signal]!);
  }

  /** The child, spawned in the same turn as this was made. */
  attach(child: Pick<ChildProcess, 'kill'>): void {
    this.child = child;
  }

  private send(signal: NodeJS.Signals): void {
    if (!this.child) return;
    this.status.sentToChild(signal);
    this.child.kill(signal);
  }

  /** SIGTERM now, SIGKILL KILL_GRACE_MS later unless the child exits first (`exited`). */
  stop(): void {
    this.send('SIGTERM');
    this.killTimer = setTimeout(() => this.send('SIGKILL'), KILL_GRACE_MS);
  }

  exited(): void {
    clearTimeout(this.killTimer);
  }

  /** wrap is done: no more kills, and its signals are its own again. */
  release(): void {
    this.exited();
    for (const signal of FORWARDED_SIGNALS) process.removeListener(signal, this.forward[signal]!);
  }
}
