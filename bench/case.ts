import type { Unit } from './harness.ts';
import type { Target } from './report.ts';

/**
 * One benchmark: our function and, where there is one, the baseline doing the same work. A
 * function may return a promise (a stream run); it is awaited before the next call.
 */
export interface BenchCase {
  readonly group: string;
  readonly name: string;
  readonly bytes: number;
  /** What the row reports; MB/s when absent. */
  readonly unit?: Unit;
  /** Messages per call, for µs/msg; 1 when absent. */
  readonly messages?: number;
  readonly ours: () => unknown;
  readonly baselineName?: string;
  readonly baseline?: () => unknown;
  readonly target?: Target;
  /** Equal work, checked before timing when comparing results directly does not fit. */
  readonly check?: () => boolean | Promise<boolean>;
}
