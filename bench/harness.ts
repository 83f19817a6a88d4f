// Timing: warm-up, then several samples of calibrated batches; median and spread reported.
// A case and its baseline are sampled in turn (timePair).
// Speed lives here, never in tests: machines are shared and noisy, ratios in one run are not.

export interface Timing {
  /** Median throughput, MB/s (10^6 bytes). */
  readonly mbps: number;
  /** Lowest and highest sample, MB/s. */
  readonly low: number;
  readonly high: number;
}

export interface HarnessOptions {
  readonly samples: number;
  readonly sampleMs: number;
  readonly warmupMs: number;
}

export const FULL: HarnessOptions = { samples: 9, sampleMs: 60, warmupMs: 150 };
export const QUICK: HarnessOptions = { samples: 3, sampleMs: 15, warmupMs: 20 };

let sink: unknown;
/**
 * Keeps results alive so the JIT cannot drop the work. A string result is read, which makes
 * V8 flatten a rope (our results are built from slices): users pay for that, so we do too.
 */
export const consume = (v: unknown) => {
  if (typeof v === 'string' && v.length > 0) v.charCodeAt(v.length - 1);
  sink = v;
};

/** Calls fn n times; the elapsed milliseconds. A promise it returns is awaited before the next call. */
async function runBatch(fn: () => unknown, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = fn();
    consume(r instanceof Promise ? await r : r);
  }
  return performance.now() - t0;
}

/** Runs fn until warmupMs have passed, then returns a batch size that lasts about sampleMs. */
async function calibrate(fn: () => unknown, o: HarnessOptions): Promise<number> {
  const until = performance.now() + o.warmupMs;
  for (let calls = 0; performance.now() < until || calls < 2; calls++) await runBatch(fn, 1);
  let batch = 1;
  for (;;) {
    const ms = await runBatch(fn, batch);
    if (ms >= o.sampleMs / 4 || batch > 1e7) return Math.max(1, Math.round((batch * o.sampleMs) / Math.max(ms, 0.001)));
    batch *= 4;
  }
}

/** One sample: MB/s over a batch. */
async function sample(fn: () => unknown, batch: number, bytes: number): Promise<number> {
  const ms = await runBatch(fn, batch);
  return (bytes * batch) / 1e6 / (ms / 1e3);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function timing(rates: number[]): Timing {
  const sorted = [...rates].sort((a, b) => a - b);
  return { mbps: median(rates), low: sorted[0]!, high: sorted[sorted.length - 1]! };
}

export async function time(fn: () => unknown, bytes: number, o: HarnessOptions): Promise<Timing> {
  const batch = await calibrate(fn, o);
  const rates: number[] = [];
  for (let s = 0; s < o.samples; s++) rates.push(await sample(fn, batch, bytes));
  void sink;
  return timing(rates);
}

/**
 * Ours and the baseline, sample by sample in turn (the order alternating), so both see the
 * same machine: on a shared host the speed drifts by tens of percent within seconds. The
 * ratio is the median of the per-round ratios.
 */
export async function timePair(ours: () => unknown, baseline: () => unknown, bytes: number, o: HarnessOptions): Promise<{ ours: Timing; baseline: Timing; ratio: number }> {
  const batchOurs = await calibrate(ours, o);
  const batchBase = await calibrate(baseline, o);
  const a: number[] = [];
  const b: number[] = [];
  for (let s = 0; s < o.samples; s++) {
    if (s % 2 === 0) {
      a.push(await sample(ours, batchOurs, bytes));
      b.push(await sample(baseline, batchBase, bytes));
    } else {
      b.push(await sample(baseline, batchBase, bytes));
      a.push(await sample(ours, batchOurs, bytes));
    }
  }
  void sink;
  return { ours: timing(a), baseline: timing(b), ratio: median(a.map((x, k) => x / b[k]!)) };
}
