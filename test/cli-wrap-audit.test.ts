// wrap --audit FILE: one JSON line per decision (blocked, timed-out; allowed with --audit-all),
// the rule from the guard's verdict, the request id as written, the argument paths concerned and
// never an argument's value; the file is private (0600), appended to, and each line is in it
// before the client has the answer it explains. Real child processes throughout.
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliSession, cli, cliRuns, fixture } from './fixtures/cli-session.ts';

/** A server with a tool that takes text and one that takes a path. */
const SERVER = `
const tools = [
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'write_file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } } },
];
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  for (let nl; (nl = buf.indexOf('\\n')) >= 0; ) {
    const m = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    if (m.id === undefined) continue;
    const result = m.method === 'tools/list' ? { tools } : { content: [{ type: 'text', text: 'done' }] };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
  }
});
`;

const dir = () => mkdtempSync(join(tmpdir(), 'mpc-audit-'));
const entries = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
/** A line whose id is past 2^53 (it would read back as ...992 if parsed). */
const bigIdCall = (name: string, args: Record<string, unknown>) => call(0, name, args).replace('"id":0', '"id":9007199254740993');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Sends each line, waits for its answer and reads the trail at that moment. */
async function guarded(extra: string[]) {
  const root = realpathSync(dir());
  const file = join(dir(), 'audit.ndjson');
  const s = new CliSession(['wrap', '--guard', '--root', root, '--audit', file, ...extra, '--', process.execPath, '-e', SERVER]);
  const atAnswer = new Map<string | number, Record<string, unknown>[]>();
  const ask = async (line: string, id: string | number) => {
    s.send(`${line}\n`);
    await s.response(id);
    atAnswer.set(id, entries(file));
  };
  s.send(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })}\n`);
  await s.response(1);
  await ask(call(2, 'nope', { text: 'SECRET-UNKNOWN' }), 2);
  await ask(call(3, 'echo', { text: { inner: 'SECRET-SCHEMA' } }), 3);
  await ask(call(4, 'write_file', { path: 'a', content: 'SECRET-DAMAGED\uFFFD' }), 4);
  await ask(call(5, 'write_file', { path: '/etc/SECRET-OUTSIDE', content: 'SECRET-CONTENT' }), 5);
  await ask(call(6, 'echo', { text: 'SECRET-ALLOWED' }), 6);
  // (the big id comes back as a number past 2^53: the client reads it as ...992)
  await ask(bigIdCall('nope', {}), 9007199254740992);
  const ended = await s.end();
  return { file, atAnswer, ended };
}

describe('wrap --audit', () => {
  it('logs each block with its rule, id as written, tool and paths, before the answer; never a value; mode 0600', async () => {
    const { file, atAnswer, ended } = await guarded([]);
    expect(ended.code).toBe(0);
    const trail = entries(file);
    for (const e of trail) expect(e.time).toMatch(ISO);
    expect(trail.map(({ time, ...e }) => e)).toEqual([
      { request: '2', tool: 'nope', decision: 'blocked', rule: 'unknown-tool' },
      { request: '3', tool: 'echo', decision: 'blocked', rule: 'schema', paths: ['/text'] },
      { request: '4', tool: 'write_file', decision: 'blocked', rule: 'damaged', paths: ['/content'] },
      { request: '5', tool: 'write_file', decision: 'blocked', rule: 'outside-roots', paths: ['/path'] },
      { request: '9007199254740993', tool: 'nope', decision: 'blocked', rule: 'unknown-tool' },
    ]);
    // Each line was in the file when the client had the answer it explains.
    for (const [id, request] of [
      [2, '2'],
      [3, '3'],
      [4, '4'],
      [5, '5'],
      [9007199254740992, '9007199254740993'],
    ] as const)
      expect(atAnswer.get(id)!.map((e) => e.request)).toContain(request);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/SECRET|inner/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 30_000);

  it('--audit-all logs the allowed calls too', async () => {
    const { file, atAnswer } = await guarded(['--audit-all']);
    const allowed = entries(file).filter((e) => e.decision === 'allowed');
    expect(allowed.map(({ time, ...e }) => e)).toEqual([{ request: '6', tool: 'echo', decision: 'allowed' }]);
    // (written before the call went on to the server)
    expect(atAnswer.get(6)!.map((e) => e.request)).toContain('6');
    expect(readFileSync(file, 'utf8')).not.toMatch(/SECRET|inner/);
  }, 30_000);

  it('logs a request the server never answered as timed-out, before the answer; appends to the file', async () => {
    const d = dir();
    const file = join(d, 'audit.ndjson');
    writeFileSync(file, '{"earlier":true}\n', { mode: 0o600 });
    const s = new CliSession([
      'wrap',
      '--call-timeout',
      '1s',
      '--audit',
      file,
      '--',
      process.execPath,
      fixture('slow-server.mjs'),
      join(d, 'seen'),
    ]);
    s.send(`${bigIdCall('never', { secret: 'SECRET-TIMEOUT' })}\n`);
    await s.response(9007199254740992);
    const atAnswer = entries(file);
    await s.end();
    expect(atAnswer[0]).toEqual({ earlier: true });
    expect(atAnswer.slice(1).map(({ time, ...e }) => e)).toEqual([
      { request: '9007199254740993', tool: 'never', decision: 'timed-out', rule: 'timeout' },
    ]);
    expect(atAnswer[1]!.time).toMatch(ISO);
    expect(readFileSync(file, 'utf8')).not.toMatch(/SECRET/);
  }, 30_000);

  it('--audit-all needs --audit; --audit needs a guard or --call-timeout; a file that cannot be opened (exit code 2)', () => {
    const [r, alone, missing] = cliRuns([
      ['wrap', '--audit-all', '--guard', '--', 'true'],
      ['wrap', '--audit', join(dir(), 'a'), '--', 'true'],
      ['wrap', '--guard', '--audit', join(dir(), 'no', 'such', 'a'), '--', 'true'],
    ]);
    expect(r!.code).toBe(2);
    expect(r!.stderr).toMatch(/--audit-all needs --audit/);
    expect(alone!.code).toBe(2);
    expect(alone!.stderr).toMatch(/--audit needs --guard/);
    expect(missing!.code).toBe(2);
    expect(missing!.stderr).toMatch(/--audit: cannot open the file \(ENOENT\)/);
  });

  it.skipIf(process.platform === 'win32')(
    'an existing trail others may read or write is refused (exit code 2), its group may read it',
    () => {
      // (its lines name sessions, which address them over HTTP; lines from others would be forged)
      const d = dir();
      const modes = [0o644, 0o602];
      const files = modes.map((mode) => {
        const file = join(d, `open-${mode.toString(8)}`);
        writeFileSync(file, '', { mode });
        chmodSync(file, mode); // (past the umask)
        return file;
      });
      // (refused before anything starts: decided in one process)
      for (const [i, r] of cliRuns(files.map((file) => ['wrap', '--guard', '--audit', file, '--', 'true'])).entries()) {
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(
          `mcp-payload-codec: --audit: the file is open to others (mode 0${modes[i]!.toString(8)}); chmod o-rwx it, or name a new one\n`,
        );
      }
      const shared = join(d, 'group');
      writeFileSync(shared, '', { mode: 0o640 });
      chmodSync(shared, 0o640);
      expect(cli(['wrap', '--guard', '--audit', shared, '--', 'true']).code).toBe(0);
      expect(cli(['wrap', '--guard', '--audit', '/dev/null', '--', 'true']).code).toBe(0); // (not a regular file)
    },
  );

  it.skipIf(process.platform === 'win32')(
    'a symbolic link to a file is refused and its target left as it was; a link to a device is taken',
    () => {
      // (whoever can write the folder could point the trail at a private file of ours)
      const d = dir();
      const target = join(d, 'private');
      writeFileSync(target, 'keep\n', { mode: 0o600 });
      const dangling = join(d, 'nowhere');
      const links = [
        ['to-file', target, 'the path is a symbolic link to a file; name the file itself'],
        ['dangling', dangling, 'cannot open the file (ENOENT)'],
      ] as const;
      for (const [name, to] of links) symlinkSync(to, join(d, name));
      // (refused before anything starts: decided in one process)
      for (const [i, r] of cliRuns(links.map(([name]) => ['wrap', '--guard', '--audit', join(d, name), '--', 'true'])).entries()) {
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`mcp-payload-codec: --audit: ${links[i]![2]}\n`);
      }
      expect(readFileSync(target, 'utf8')).toBe('keep\n');
      expect(existsSync(dangling)).toBe(false);
      const device = join(d, 'to-device');
      symlinkSync('/dev/null', device);
      expect(cli(['wrap', '--guard', '--audit', device, '--', 'true']).code).toBe(0);
    },
  );
});
