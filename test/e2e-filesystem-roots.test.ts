// wrap --guard --root end to end: the real server-filesystem, allowed the whole scratch folder
// (so the server itself would let every escape below through), behind `wrap --guard --root
// ROOT`, driven by the real SDK client. Reading and writing inside the root work; every escape
// is answered isError, names the parameter and never the value, and never reaches the server
// (test/fixtures/stdin-spy.mjs records what the server was sent) nor the disk.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localRealpath } from '../src/cli/roots.ts';
import { Roots } from '../src/guard/paths.ts';
import { decodeText, encodeText } from '../src/index.ts';
import { connect, FILESYSTEM, REQUEST, ROOT, type Session } from './e2e-helpers.ts';
import { cli } from './fixtures/cli-session.ts';

const T = 30_000;
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-fs-roots-')));
const root = join(dir, 'root');
const outside = join(dir, 'outside');
const second = join(dir, 'second');
const spy = join(dir, 'server-stdin.log');
const SPY = join(ROOT, 'test', 'fixtures', 'stdin-spy.mjs');

let session: Session;

beforeAll(async () => {
  mkdirSync(root);
  mkdirSync(outside);
  mkdirSync(second);
  writeFileSync(join(root, 'inside.txt'), 'inside text\n');
  writeFileSync(join(outside, 'secret.txt'), 'secret text\n');
  symlinkSync(outside, join(root, 'link'));
  symlinkSync(outside, join(root, 'Qwen')); // (a term: named as tokens, it is no link)
  session = await connect([process.execPath, SPY, spy, process.execPath, FILESYSTEM, dir], 'wrap', undefined, [
    '--guard',
    '--root',
    root,
    '--root',
    second,
  ]);
}, T);

afterAll(async () => {
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOKENS = encodeText(join(root, 'Qwen', 'escape-tokens.txt'));
const call = (name: string, args: Record<string, unknown>) => session.client.callTool({ name, arguments: args }, undefined, REQUEST);
const text = (r: Awaited<ReturnType<typeof call>>) => (r.content as { text: string }[]).map((c) => c.text).join('\n');

describe('wrap --guard --root with server-filesystem', () => {
  it(
    'reads and writes inside the root',
    async () => {
      const read = await call('read_text_file', { path: join(root, 'inside.txt') });
      expect(read.isError ?? false).toBe(false);
      expect(text(read)).toContain('inside text');
      const written = await call('write_file', { path: join(root, 'sub-new.txt'), content: 'written inside' });
      expect(written.isError ?? false).toBe(false);
      expect(readFileSync(join(root, 'sub-new.txt'), 'utf8')).toBe('written inside');
      const moved = await call('move_file', { source: join(root, 'sub-new.txt'), destination: join(root, 'moved.txt') });
      expect(moved.isError ?? false).toBe(false);
      const other = await call('write_file', { path: join(second, 'x.txt'), content: 'in the second root' });
      expect(other.isError ?? false).toBe(false);
      expect(readFileSync(join(second, 'x.txt'), 'utf8')).toBe('in the second root');
      const many = await call('read_multiple_files', { paths: [join(root, 'inside.txt'), join(root, 'moved.txt')] });
      expect(text(many)).toContain('written inside');
    },
    T,
  );

  // [what, tool, arguments, the parameter blocked]; each value names an escape-* file.
  const ESCAPES: [string, string, Record<string, unknown>, string][] = [
    ['.. out of the root', 'write_file', { path: join(root, '..', 'outside', 'escape-dotdot.txt'), content: 'x' }, '/path'],
    ['a relative ..', 'write_file', { path: join('..', 'outside', 'escape-relative.txt'), content: 'x' }, '/path'],
    ['an absolute path outside', 'write_file', { path: join(outside, 'escape-absolute.txt'), content: 'x' }, '/path'],
    ['a symlink inside pointing out', 'write_file', { path: join(root, 'link', 'escape-link.txt'), content: 'x' }, '/path'],
    ['an existing file through the symlink', 'read_text_file', { path: join(root, 'link', 'secret.txt') }, '/path'],
    ['a file: URI', 'write_file', { path: `file://localhost${outside}/escape-uri.txt`, content: 'x' }, '/path'],
    ['a path through a symlink, sent as tokens', 'write_file', { path: TOKENS, content: 'x' }, '/path'],
    [
      'one element of an array',
      'read_multiple_files',
      { paths: [join(root, 'inside.txt'), join(outside, 'escape-array.txt')] },
      '/paths/1',
    ],
    ['a move out', 'move_file', { source: join(root, 'inside.txt'), destination: join(outside, 'escape-move.txt') }, '/destination'],
  ];

  it('checks the decoded value: as tokens, that path is inside', () => {
    // (checked as sent, it names no link and no existing file: it would pass)
    expect(new Roots([root], localRealpath).inside(TOKENS)).toBe(true);
    expect(new Roots([root], localRealpath).inside(decodeText(TOKENS))).toBe(false);
  });

  it.each(ESCAPES)(
    'blocks %s: isError, the parameter named, never the value',
    async (_, name, args, pointer) => {
      const r = await call(name, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(`argument ${JSON.stringify(pointer)} is a path outside the allowed roots`);
      expect(text(r)).not.toMatch(/escape-|secret/);
    },
    T,
  );

  it(
    'no escape reached the server or the disk',
    async () => {
      const sent = readFileSync(spy, 'utf8');
      expect(sent).toContain('inside.txt'); // (the spy sees what passed)
      expect(sent).not.toMatch(/escape-|secret/);
      expect(readdirSync(outside)).toEqual(['secret.txt']);
      expect(readdirSync(dir).sort()).toEqual(['outside', 'root', 'second', 'server-stdin.log']);
      expect(await session.stderrWith('is a path outside the allowed roots')).toContain('blocked tools/call');
    },
    T,
  );
});

describe('--root on the command line', () => {
  it('needs a guard, an existing folder, and applies to wrap only', () => {
    const none = cli(['wrap', '--root', root, '--', 'true']);
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/--root needs --guard or --guard-tools-only/)]);
    const missing = cli(['wrap', '--guard', '--root', root, '--root', join(dir, 'missing'), '--', 'true']);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/--root 2: ENOENT/)]);
    const file = cli(['wrap', '--guard', '--root', join(root, 'inside.txt'), '--', 'true']);
    expect([file.code, file.stderr]).toEqual([2, expect.stringMatching(/--root 1 is not a folder/)]);
    expect(cli(['serve', '--guard', '--root', root, '--', 'true']).stderr).toMatch(/--root applies to wrap, not serve/);
  });
});
