// wrap --guard --root end to end: the real server-filesystem, allowed the whole scratch folder
// (so the server itself would let every escape below through), behind `wrap --guard --root
// ROOT`, driven by the real SDK client. Reading and writing inside the root work; every escape
// is answered isError, names the parameter and never the value, and never reaches the server
// (test/fixtures/stdin-spy.mjs records what the server was sent) nor the disk.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localRealpath } from '../src/cli/roots.ts';
import { Roots } from '../src/guard/paths.ts';
import { decodeText } from '../src/index.ts';
import { connect, REQUEST, type Session } from './e2e-helpers.ts';
import { escapes, expectBlocked, expectNothingEscaped, insideWorks, scratch, tokensPath } from './filesystem-roots.ts';
import { cliRuns } from './fixtures/cli-session.ts';

const T = 30_000;
const s = scratch('mcp-fs-roots-');
const { dir, root, second } = s;

let session: Session;

beforeAll(async () => {
  session = await connect(s.server, 'wrap', undefined, ['--guard', '--root', root, '--root', second]);
}, T);

afterAll(async () => {
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>) => session.client.callTool({ name, arguments: args }, undefined, REQUEST);

describe('wrap --guard --root with server-filesystem', () => {
  it('reads and writes inside the root', () => insideWorks(call, s), T);

  it('checks the decoded value: as tokens, that path is inside', () => {
    // (checked as sent, it names no link and no existing file: it would pass)
    expect(new Roots([root], localRealpath).inside(tokensPath(s))).toBe(true);
    expect(new Roots([root], localRealpath).inside(decodeText(tokensPath(s)))).toBe(false);
  });

  it.each(escapes(s, true))(
    'blocks %s: isError, the parameter named, never the value',
    (_, name, args, pointer) => expectBlocked(call, name, args, pointer),
    T,
  );

  it(
    'no escape reached the server or the disk',
    async () => {
      expectNothingEscaped(s);
      expect(await session.stderrWith('is a path outside the allowed roots')).toContain('blocked tools/call');
    },
    T,
  );
});

describe('--root on the command line', () => {
  it('needs a guard, an existing folder, and applies to the commands with a guard', () => {
    const [none, missing, file, encode] = cliRuns([
      ['wrap', '--root', root, '--', 'true'],
      ['wrap', '--guard', '--root', root, '--root', join(dir, 'missing'), '--', 'true'],
      ['wrap', '--guard', '--root', join(root, 'inside.txt'), '--', 'true'],
      ['encode', '--root', root],
    ]);
    expect([none!.code, none!.stderr]).toEqual([2, expect.stringMatching(/--root needs --guard or --guard-tools-only/)]);
    expect([missing!.code, missing!.stderr]).toEqual([2, expect.stringMatching(/--root 2: ENOENT/)]);
    expect([file!.code, file!.stderr]).toEqual([2, expect.stringMatching(/--root 1 is not a folder/)]);
    expect(encode!.stderr).toMatch(/--root applies to wrap, proxy, connect, serve, not encode/);
  });

  it('over HTTP: a root taken as written must be absolute; --root and --audit need a guard (exit code 2)', () => {
    const [relative, unguarded, audit] = cliRuns([
      ['proxy', '--upstream', 'http://127.0.0.1:9/mcp', '--guard', '--root', '/srv', '--root', 'srv'],
      ['connect', 'http://127.0.0.1:9/mcp', '--root', '/srv'],
      ['serve', '--audit', join(dir, 'audit.ndjson'), '--', 'true'],
    ]);
    expect([relative!.code, relative!.stderr]).toEqual([2, expect.stringMatching(/--root 2 is not an absolute path/)]);
    expect([unguarded!.code, unguarded!.stderr]).toEqual([2, expect.stringMatching(/--root needs --guard/)]);
    expect([audit!.code, audit!.stderr]).toEqual([
      2,
      expect.stringMatching(/--audit needs --guard, --guard-tools-only or --call-timeout \(/),
    ]);
  });
});
