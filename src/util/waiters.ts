// Waits on an event rather than a timer: `next` resolves at the next `wake`.

export class Waiters {
  private waiting: (() => void)[] = [];

  /** Resolves at the next `wake`. */
  next(): Promise<void> {
    return new Promise((resolve) => void this.waiting.push(resolve));
  }

  /** Resolves every wait so far (the waiters check again what they wait for). */
  readonly wake = (): void => {
    if (!this.waiting.length) return;
    const woken = this.waiting;
    this.waiting = [];
    for (const resolve of woken) resolve();
  };
}
