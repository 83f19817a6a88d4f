// Timing: warm-up, then several samples of calibrated batches; median and spread reported.
// A case and its baseline are sampled in turn (timePair).
// Speed lives here, never in tests: machines are shared and noisy, ratios in one run are not.

/**
 * What a row reports. MB/s for work that grows with the bytes read; µs per message where the
 * cost does not (an image result whose base64 neither side reads: a throughput over bytes
 * nobody touched would be a figure nobody can have).
 */
export type Unit = 'MB/s' | 'µs/msg';

export interface Measure {
  readonly unit: Unit;
  /** Bytes per call (MB/s). */
  readonly bytes: number;
  /** Messages per call (µs/msg); 1 when absent. */
  readonly messages?: number;
}

export interface Timing {
  readonly unit: Unit;
  /** Median over the samples, in `unit`. */
  readonly value: number;
  /** Lowest and highest sample, in `unit` (for µs/msg, low is the fastest). */
  readonly low: number;
  readonly high: number;
  /**
   * Page faults per call, the median over the samples: first touches of memory the process got
   * fresh (or had taken back while idle). On this kind of VM each costs about 15 µs, so a few
   * hundred per call move a row by tens of percent (docs/PERFORMANCE.md). Absent where the work
   * runs in other processes (this process's count would say nothing of it).
   */
  readonly faults?: number;
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

interface Sample {
  readonly seconds: number;
  readonly faults: number;
}

const faultsSoFar = () => process.resourceUsage().minorPageFault + process.resourceUsage().majorPageFault;

/** One sample: seconds and page faults per call, over a batch. */
async function sample(fn: () => unknown, batch: number): Promise<Sample> {
  const before = faultsSoFar();
  const ms = await runBatch(fn, batch);
  return { seconds: ms / 1e3 / batch, faults: (faultsSoFar() - before) / batch };
}

export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Seconds per call in the unit asked for. */
export const inUnit = (secondsPerCall: number, m: Measure) =>
  m.unit === 'MB/s' ? m.bytes / 1e6 / secondsPerCall : (secondsPerCall * 1e6) / (m.messages ?? 1);

function timing(samples: readonly Sample[], m: Measure): Timing {
  const values = samples.map((s) => inUnit(s.seconds, m)).sort((a, b) => a - b);
  return {
    unit: m.unit,
    value: median(values),
    low: values[0]!,
    high: values[values.length - 1]!,
    faults: median(samples.map((s) => s.faults)),
  };
}

/** A timing of work done in child processes: without this process's page faults. */
export const elsewhere = ({ faults: _, ...t }: Timing): Timing => t;

export async function time(fn: () => unknown, m: Measure, o: HarnessOptions): Promise<Timing> {
  const batch = await calibrate(fn, o);
  const samples: Sample[] = [];
  for (let s = 0; s < o.samples; s++) samples.push(await sample(fn, batch));
  void sink;
  return timing(samples, m);
}

/**
 * Ours and the baseline, sample by sample in turn (the order alternating), so both see the
 * same machine: on a shared host the speed drifts by tens of percent within seconds. The
 * ratio is the median of the per-round ratios, always a speed-up: baseline time / our time.
 */
export async function timePair(
  ours: () => unknown,
  baseline: () => unknown,
  m: Measure,
  o: HarnessOptions,
): Promise<{ ours: Timing; baseline: Timing; ratio: number }> {
  const batchOurs = await calibrate(ours, o);
  const batchBase = await calibrate(baseline, o);
  const a: Sample[] = [];
  const b: Sample[] = [];
  for (let s = 0; s < o.samples; s++) {
    if (s % 2 === 0) {
      a.push(await sample(ours, batchOurs));
      b.push(await sample(baseline, batchBase));
    } else {
      b.push(await sample(baseline, batchBase));
      a.push(await sample(ours, batchOurs));
    }
  }
  void sink;
  return { ours: timing(a, m), baseline: timing(b, m), ratio: median(b.map((x, k) => x.seconds / a[k]!.seconds)) };
}
