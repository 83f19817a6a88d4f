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
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
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

/** The reports of slow-server.mjs's `progress` tool, in order: it answers a tick after the last. */
export const PROGRESS_REPORTS: readonly number[] = Array.from({ length: 15 }, (_, k) => k + 1);

/** What progressUntilAnswer reads of a message the client sends or is handed. */
interface Read {
  id?: unknown;
  method?: string;
  params?: { name?: unknown; progressToken?: unknown; progress?: unknown; _meta?: { progressToken?: unknown } };
}

/**
 * The progress values the client's transport hands the SDK for each tool call until the call's
 * answer, by tool name (counted from now on). Counted here, not with `onprogress`: the SDK takes
 * a notification a microtask late and forgets the call's progress handler on its answer
 * (shared/protocol.js, `_onnotification`, `_onresponse`), so progress read in one chunk with the
 * answer never reaches `onprogress`; on a loaded machine the child's last progress and its
 * answer, a tick apart, come in one read.
 */
export function progressUntilAnswer(client: Pick<Client, 'transport'>): (tool: string) => unknown[] {
  const transport = client.transport!;
  const seen = new Map<string, unknown[]>(); // by tool
  const open = new Map<unknown, unknown[]>(); // by progress token, while its call is unanswered
  const tokens = new Map<unknown, unknown>(); // by request id
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as Read;
    const token = m.params?._meta?.progressToken;
    if (m.method === 'tools/call' && token !== undefined) {
      const values: unknown[] = [];
      seen.set(String(m.params?.name), values);
      open.set(token, values);
      tokens.set(m.id, token);
    }
    return send(message, options);
  };
  const onmessage = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    const m = message as Read;
    if (m.method === 'notifications/progress') open.get(m.params?.progressToken)?.push(m.params?.progress);
    else if (m.method === undefined) open.delete(tokens.get(m.id));
    onmessage(message, extra);
  };
  return (tool) => seen.get(tool) ?? [];
}

/**
 * The progress case of each transport: the child's `progress` tool reports every tick and answers
 * after 15 (past the limit, within the max), so the call gets its answer, all 15 reports before
 * it; `forever` reports every tick without end, so the max cuts it (about 25 reports at 2.5 s,
 * never the child's 100). The two calls go at once (each with its own progress), so the case
 * takes the max, not 4 s. (`onprogress`, for the SDK to ask for progress; counted at the transport.)
 */
export async function progressUpToMax(client: Pick<Client, 'callTool' | 'transport'>, expect: ExpectStatic): Promise<void> {
  const progress = progressUntilAnswer(client);
  const call = (name: string) => client.callTool({ name, arguments: {} }, undefined, { onprogress: () => {} });
  const [answered, capped] = await Promise.all([call('progress'), call('forever')]);
  expect(answered).toEqual({ content: [{ type: 'text', text: 'done' }] });
  expect(progress('progress')).toEqual(PROGRESS_REPORTS);
  expect(capped).toEqual({ content: [{ type: 'text', text: NO_ANSWER }], isError: true });
  expect(progress('forever').length).toBeGreaterThan(3);
  expect(progress('forever').length).toBeLessThan(50);
}
