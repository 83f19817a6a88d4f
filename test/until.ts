// A wait with a deadline: a test that waits for something that never comes fails at once and
// says so, rather than at vitest's test timeout.

/** Resolves once `check` holds (polled every `every` ms), or fails after `ms` saying so. */
export async function until(check: () => boolean, ms = 10_000, every = 20): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`still not so after ${ms} ms: ${check.toString().slice(0, 120)}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
