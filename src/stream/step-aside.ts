// When a batch entry refuses the first message it is given, that message is transformed twice
// (the batch read it, then the per-message way); a run of such messages (every one deferring a
// value, say) would cost up to twice as much. So each such refusal doubles the number of
// messages that skip the batch (1, 2, 4... up to MAX_SKIP), and a message taken ends it.

const MAX_SKIP = 64;

export class StepAside {
  private backoff = 0;
  private skip = 0;

  /** Whether the next message skips the batch (each call counts one skipped). */
  skips(): boolean {
    if (this.skip === 0) return false;
    this.skip--;
    return true;
  }

  /** The batch took a message: the backoff ends. */
  took(): void {
    this.backoff = 0;
  }

  /** The batch refused the first message it was given: the next ones skip it. */
  refused(): void {
    this.backoff = Math.min(MAX_SKIP, this.backoff * 2 || 1);
    this.skip = this.backoff;
  }
}
