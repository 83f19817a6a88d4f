// What the call-timeout tests of serve, the HTTP pieces and the SDK transports share: a short
// limit and the answer text for it, the child's arguments for it (fixtures/slow-server.mjs, in
// ticks of a tenth of the limit), the file the child records what it reads into, and a wait.
// The timer's families are held on a fake clock (call-timer.test.ts); these tests hold the
// wiring, on real processes and sockets, with a limit short enough to cost little and long
// enough for an answer that comes at once to come in time on a loaded machine.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ExpectStatic } from 'vitest';

/**
 * The limit under test (ms), and the max that progress tests set (2.5 limits). The first request
 * timed is `initialize`, which waits for a child process to start: 400 ms was passed at load 38.
 */
export const LIMIT_MS = 1000;
export const MAX_MS = 2500;
export const NO_ANSWER = 'no answer from the server within 1 s';

/** slow-server.mjs for LIMIT_MS: recording into `file`, a tick a tenth of the limit. */
export const slowServer = (file: string, ...flags: string[]) => ['test/fixtures/slow-server.mjs', file, `tick=${LIMIT_MS / 10}`, ...flags];

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

export { until } from './until.ts';

/**
 * The progress case of each transport: the child's `progress` tool reports every tick and answers
 * after 15 (past the limit, within the max), so the call gets its answer; `forever` reports every
 * tick without end, so the max cuts it (about 25 reports at 2.5 s, never the child's 100). The
 * two calls go at once (each with its own progress), so the case takes the max, not 4 s.
 */
export async function progressUpToMax(client: Pick<Client, 'callTool'>, expect: ExpectStatic): Promise<void> {
  const progress = { progress: 0, forever: 0 };
  const call = (name: keyof typeof progress) =>
    client.callTool({ name, arguments: {} }, undefined, { onprogress: () => void progress[name]++ });
  const [answered, capped] = await Promise.all([call('progress'), call('forever')]);
  expect(answered).toEqual({ content: [{ type: 'text', text: 'done' }] });
  expect(progress.progress).toBe(15);
  expect(capped).toEqual({ content: [{ type: 'text', text: NO_ANSWER }], isError: true });
  expect(progress.forever).toBeGreaterThan(3);
  expect(progress.forever).toBeLessThan(50);
}
