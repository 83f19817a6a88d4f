// Complexity as a correctness property: 4x the input must cost about 4x the time. One way to
// measure it for every such test, robust to a shared, noisy host: CPU time (waiting for a core
// is not work), a warm-up on the large input (the JIT and the WASM tiers take several runs to
// settle), and the least of several runs of each, taken in turn (noise only slows a run).

/** 4x the input: linear is 4, quadratic 16; the margin is for a busy host. */
export const LINEAR_BOUND = 10;

/** CPU time of one call, in ms. */
export function cpuMillis(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const { user, system } = process.cpuUsage(t0);
  return (user + system) / 1000;
}

/**
 * Time of `big` (4x the input of `small`) over time of `small`. Runs more rounds (up to 8)
 * while the ratio looks too high, so a burst of load on the host does not fail a linear case;
 * `floorMs` is added to the small time, for cases too quick to time alone.
 */
export function growth(small: () => void, big: () => void, floorMs = 0): number {
  big();
  small();
  let a = Infinity;
  let b = Infinity;
  for (let r = 0; r < 8 && (r < 3 || b > LINEAR_BOUND * (a + floorMs)); r++) {
    a = Math.min(a, cpuMillis(small));
    b = Math.min(b, cpuMillis(big));
  }
  return b / (a + floorMs);
}

/** CPU time of one async call, in ms (nothing else may run meanwhile: the whole process counts). */
export async function cpuMillisAsync(f: () => Promise<void>): Promise<number> {
  const t0 = process.cpuUsage();
  await f();
  const { user, system } = process.cpuUsage(t0);
  return (user + system) / 1000;
}

/** `growth` for async work. */
export async function growthAsync(small: () => Promise<void>, big: () => Promise<void>, floorMs = 0): Promise<number> {
  await big();
  await small();
  let a = Infinity;
  let b = Infinity;
  for (let r = 0; r < 8 && (r < 3 || b > LINEAR_BOUND * (a + floorMs)); r++) {
    a = Math.min(a, await cpuMillisAsync(small));
    b = Math.min(b, await cpuMillisAsync(big));
  }
  return b / (a + floorMs);
}

/**
 * Least CPU times of `subject` and `reference`, run in turn, with more rounds (up to 10) while
 * `subject` looks slower than `factor` times `reference` plus `slackMs`: for a cost that cannot
 * be grown 4x (a bounded input), compared with another path that does the same work.
 */
export function leastTimes(subject: () => void, reference: () => void, factor: number, slackMs: number) {
  let a = Infinity;
  let b = Infinity;
  for (let r = 0; r < 10 && (r < 4 || a >= factor * b + slackMs); r++) {
    a = Math.min(a, cpuMillis(subject));
    b = Math.min(b, cpuMillis(reference));
  }
  return { subject: a, reference: b };
}
