// serve --guard with a tools/call that has no id (a notification, or `"id": null`): the real
// child (an SDK server, its stdin recorded) never reads it, the POST gets what a body of
// notifications gets (202; `"id": null` is refused 400 before the guard, as the SDK's servers
// do), the trail names each (rule malformed, its session, no request), the one refused 400 too,
// and a request beside it in a batch goes on and is answered. See guard/drop.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runServe } from '../src/cli/serve.js';
import type { AuditEntry } from '../src/guard/audit.ts';
import { postInitialize, RAW_INITIALIZE_PARAMS } from './http-helpers.ts';

vi.setConfig({ testTimeout: 15_000 });
const SPY = join('test', 'fixtures', 'stdin-spy.mjs');
const SERVER = join('test', 'fixtures', 'confirm-server.mjs');
const closing: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closing) await c();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const note = (name: string, id?: { id: null }) => ({
  jsonrpc: '2.0',
  ...id,
  method: 'tools/call',
  params: { name, arguments: { path: 'SECRET' } },
});

/** The messages of a response: JSON or the data of its events. */
async function messages(res: Response): Promise<{ id?: unknown; result?: { content?: { text: string }[] } }[]> {
  const text = await res.text();
  if (!text) return [];
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return text
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.length > 6)
      .flatMap((l) => JSON.parse(l.slice(6)));
  return [JSON.parse(text)].flat();
}

describe('serve --guard drops a tools/call without an id', () => {
  it('alone, with id null, beside a request in a batch: never reaches the child, 202, in the trail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpc-serve-drop-'));
    const seen = join(dir, 'child-stdin.log');
    const audit: AuditEntry[] = [];
    const served = await runServe({
      command: [process.execPath, SPY, seen, process.execPath, SERVER],
      port: 0,
      guard: 'all',
      onAudit: (e) => void audit.push(e),
      log: () => {},
    });
    closing.push(() => served.close());
    const init = await postInitialize(served.url);
    await init.text();
    const session = init.headers.get('mcp-session-id')!;
    const post = (body: unknown) =>
      fetch(served.url, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': RAW_INITIALIZE_PARAMS.protocolVersion },
        body: JSON.stringify(body),
      });
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    await messages(await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));

    const alone = await post(note('delete_file'));
    expect(alone.status).toBe(202);
    // (serve refuses `"id": null` before any guard, as the SDK's servers do: no MCP message)
    const nullId = await post(note('delete_file', { id: null }));
    expect(nullId.status).toBe(400);
    await nullId.text();
    const both = await post([
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      note('delete_file'),
    ]);
    expect(both.status).toBe(200);
    const got = await messages(both);
    expect(got.map((m) => m.id)).toEqual([2]);
    expect(got[0]!.result!.content![0]!.text).toMatch(/echo/);

    const child = readFileSync(seen, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(child.filter((m) => m.method === 'tools/call')).toEqual([
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    ]);
    const drop = { session, tool: 'delete_file', decision: 'blocked', rule: 'malformed' };
    expect(audit.filter((e) => e.decision !== 'allowed').map(({ time, ...e }) => e)).toEqual([drop, drop, drop]);
    expect(JSON.stringify(audit)).not.toContain('SECRET');
  });
});
