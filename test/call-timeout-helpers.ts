// What the call-timeout tests of serve, the HTTP pieces and the SDK transports share: the answer
// text for a 1 s limit, the file fixtures/slow-server.mjs records what it reads into, and a wait.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NO_ANSWER = 'no answer from the server within 1 s';

/** A fresh file for a recording child (slow-server.mjs's second argument). */
export const record = () => join(mkdtempSync(join(tmpdir(), 'mpc-call-timeout-')), 'seen.ndjson');

export interface Seen {
  id?: unknown;
  method?: string;
  params?: { requestId?: unknown; reason?: string; name?: string };
}

/** The messages a recording child read, in order. */
export const seen = (file: string): Seen[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Seen);

export const cancelsIn = (file: string) => seen(file).filter((m) => m.method === 'notifications/cancelled');

/** Resolves once `check` holds (polled), or fails after `ms` saying so. */
export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`still not so after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
