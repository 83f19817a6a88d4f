// Timing: warm-up, then several samples of calibrated batches; median and spread reported.
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

export function time(fn: () => unknown, bytes: number, o: HarnessOptions): Timing {
  const until = performance.now() + o.warmupMs;
  let calls = 0;
  while (performance.now() < until || calls < 2) {
    consume(fn());
    calls++;
  }
  // Calibrate a batch that lasts about sampleMs.
  let batch = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) consume(fn());
    const ms = performance.now() - t0;
    if (ms >= o.sampleMs / 4 || batch > 1e7) {
      batch = Math.max(1, Math.round((batch * o.sampleMs) / Math.max(ms, 0.001)));
      break;
    }
    batch *= 4;
  }
  const rates: number[] = [];
  for (let s = 0; s < o.samples; s++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) consume(fn());
    const ms = performance.now() - t0;
    rates.push((bytes * batch) / 1e6 / (ms / 1e3));
  }
  rates.sort((a, b) => a - b);
  void sink;
  return { mbps: rates[Math.floor(rates.length / 2)]!, low: rates[0]!, high: rates[rates.length - 1]! };
}
