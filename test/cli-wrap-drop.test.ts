// wrap --guard with a tools/call that has no id (a notification, or `"id": null`): the real child
// never reads it, nothing answers it, the trail names it (rule malformed, no request), and a
// request beside it in a batch goes on and is answered. See guard/drop.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliSession } from './fixtures/cli-session.ts';
import { dropCall as call, dropNote as note } from './mcp-guard-helpers.ts';

/** A server that writes each line it reads to the file it is given, and answers requests. */
const SERVER = `
const fs = require('node:fs');
const log = process.argv[1];
const tools = [{ name: 'echo', inputSchema: { type: 'object' } }, { name: 'delete_all', inputSchema: { type: 'object' } }];
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  for (let nl; (nl = buf.indexOf('\\n')) >= 0; ) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    fs.appendFileSync(log, line + '\\n');
    const parsed = JSON.parse(line);
    const out = (Array.isArray(parsed) ? parsed : [parsed])
      .filter((m) => m.id !== undefined && m.method)
      .map((m) => ({ jsonrpc: '2.0', id: m.id, result: m.method === 'tools/list' ? { tools } : { content: [{ type: 'text', text: 'ran ' + m.params?.name }] } }));
    if (out.length) process.stdout.write(JSON.stringify(Array.isArray(parsed) ? out : out[0]) + '\\n');
  }
});
`;

describe('wrap --guard drops a tools/call without an id', () => {
  it('alone, with id null, beside a request in a batch, and a batch of them only: the child never reads one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpc-drop-'));
    const seen = join(dir, 'child-stdin.ndjson');
    const audit = join(dir, 'audit.ndjson');
    const s = new CliSession(['wrap', '--guard', '--audit', audit, '--', process.execPath, '-e', SERVER, seen]);
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await s.response(1);
    s.send(note('delete_all'));
    s.send(note('delete_all', { id: null }));
    s.send([call(3, 'echo'), note('delete_all')]);
    s.send([note('delete_all'), note('echo')]);
    s.send(call(5, 'echo'));
    const batch = await s.response(3);
    expect(batch).toMatchObject({ id: 3, result: { content: [{ text: 'ran echo' }] } });
    await s.response(5);
    const ended = await s.end();
    expect(ended.code).toBe(0);

    const lines = readFileSync(seen, 'utf8').split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l))).toEqual([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, [call(3, 'echo')], call(5, 'echo')]);
    // Nothing but the three requests was answered.
    expect(
      s
        .messages()
        .flat()
        .map((m) => (m as { id: unknown }).id),
    ).toEqual([1, 3, 5]);
    const trail = readFileSync(audit, 'utf8').split('\n').filter(Boolean);
    const drop = (tool: string) => ({ tool, decision: 'blocked', rule: 'malformed' });
    expect(trail.map((l) => (({ time, ...e }) => e)(JSON.parse(l)))).toEqual([
      drop('delete_all'),
      drop('delete_all'),
      drop('delete_all'),
      drop('delete_all'),
      drop('echo'),
    ]);
    expect(ended.stderr).toMatch(/dropped tools\/call "delete_all": it has no id/);
    expect(ended.stderr).toMatch(/dropped tools\/call "delete_all": its id is null/);
    expect(ended.stderr + trail.join('')).not.toContain('SECRET');
  });
});
