// What the --root end-to-end tests share (wrap over stdio, serve and proxy over Streamable HTTP):
// a scratch folder with a root, a second root, a folder outside and symlinks from the root out;
// the real server-filesystem, allowed the whole scratch folder (so the server itself would let
// every escape through), started behind test/fixtures/stdin-spy.mjs, which records what it was
// sent; the calls that stay inside, and the escapes, each naming an escape-* file.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { encodeText } from '../src/index.ts';
import { FILESYSTEM, ROOT } from './e2e-helpers.ts';

export interface Scratch {
  dir: string;
  root: string;
  second: string;
  outside: string;
  /** What the server was sent (stdin-spy.mjs). */
  spy: string;
  /** server-filesystem behind the spy, allowed `dir`: a command line. */
  server: string[];
}

const SPY = join(ROOT, 'test', 'fixtures', 'stdin-spy.mjs');

export function scratch(prefix: string): Scratch {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const s = {
    dir,
    root: join(dir, 'root'),
    second: join(dir, 'second'),
    outside: join(dir, 'outside'),
    spy: join(dir, 'server-stdin.log'),
  };
  mkdirSync(s.root);
  mkdirSync(s.outside);
  mkdirSync(s.second);
  writeFileSync(join(s.root, 'inside.txt'), 'inside text\n');
  writeFileSync(join(s.outside, 'secret.txt'), 'secret text\n');
  symlinkSync(s.outside, join(s.root, 'link'));
  symlinkSync(s.outside, join(s.root, 'Qwen')); // (a term: named as tokens, it is no link)
  return { ...s, server: [process.execPath, SPY, s.spy, process.execPath, FILESYSTEM, dir] };
}

/** The SDK client's callTool, with a short timeout. */
export type Call = (name: string, args: Record<string, unknown>) => Promise<unknown>;
export const textOf = (r: CallToolResult) => (r.content as { text: string }[]).map((c) => c.text).join('\n');

const result = (call: Call) => async (name: string, args: Record<string, unknown>) => (await call(name, args)) as CallToolResult;

/** A path through the root's `Qwen` link, as tokens: lexically inside, really outside. */
export const tokensPath = (s: Scratch) => encodeText(join(s.root, 'Qwen', 'escape-tokens.txt'));

/** Reading, writing, moving inside the roots all work. */
export async function insideWorks(sdkCall: Call, s: Scratch): Promise<void> {
  const call = result(sdkCall);
  const read = await call('read_text_file', { path: join(s.root, 'inside.txt') });
  expect(read.isError ?? false).toBe(false);
  expect(textOf(read)).toContain('inside text');
  const written = await call('write_file', { path: join(s.root, 'sub-new.txt'), content: 'written inside' });
  expect(written.isError ?? false).toBe(false);
  expect(readFileSync(join(s.root, 'sub-new.txt'), 'utf8')).toBe('written inside');
  const moved = await call('move_file', { source: join(s.root, 'sub-new.txt'), destination: join(s.root, 'moved.txt') });
  expect(moved.isError ?? false).toBe(false);
  const other = await call('write_file', { path: join(s.second, 'x.txt'), content: 'in the second root' });
  expect(other.isError ?? false).toBe(false);
  expect(readFileSync(join(s.second, 'x.txt'), 'utf8')).toBe('in the second root');
  const many = await call('read_multiple_files', { paths: [join(s.root, 'inside.txt'), join(s.root, 'moved.txt')] });
  expect(textOf(many)).toContain('written inside');
}

/** [what, tool, arguments, the parameter blocked]; `followsLinks`: the escapes only a realpath sees, too. */
export function escapes(s: Scratch, followsLinks: boolean): [string, string, Record<string, unknown>, string][] {
  const { root, outside } = s;
  const lexical: [string, string, Record<string, unknown>, string][] = [
    ['.. out of the root', 'write_file', { path: join(root, '..', 'outside', 'escape-dotdot.txt'), content: 'x' }, '/path'],
    ['a relative ..', 'write_file', { path: join('..', 'outside', 'escape-relative.txt'), content: 'x' }, '/path'],
    ['an absolute path outside', 'write_file', { path: join(outside, 'escape-absolute.txt'), content: 'x' }, '/path'],
    ['a file: URI', 'write_file', { path: `file://localhost${outside}/escape-uri.txt`, content: 'x' }, '/path'],
    ['a path outside sent as tokens', 'write_file', { path: encodeText(join(outside, 'Qwen-escape-tokens.txt')), content: 'x' }, '/path'],
    [
      'one element of an array',
      'read_multiple_files',
      { paths: [join(root, 'inside.txt'), join(outside, 'escape-array.txt')] },
      '/paths/1',
    ],
    ['a move out', 'move_file', { source: join(root, 'inside.txt'), destination: join(outside, 'escape-move.txt') }, '/destination'],
  ];
  if (!followsLinks) return lexical;
  return [
    ...lexical,
    ['a symlink inside pointing out', 'write_file', { path: join(root, 'link', 'escape-link.txt'), content: 'x' }, '/path'],
    ['an existing file through the symlink', 'read_text_file', { path: join(root, 'link', 'secret.txt') }, '/path'],
    ['a path through a symlink, sent as tokens', 'write_file', { path: tokensPath(s), content: 'x' }, '/path'],
  ];
}

/** A blocked call: isError, the parameter named, never the value. */
export async function expectBlocked(call: Call, name: string, args: Record<string, unknown>, pointer: string): Promise<void> {
  const r = await result(call)(name, args);
  expect(r.isError).toBe(true);
  expect(textOf(r)).toContain(`argument ${JSON.stringify(pointer)} is a path outside the allowed roots`);
  expect(textOf(r)).not.toMatch(/escape-|secret/);
}

/** No escape reached the server (its spy) nor the disk; `extra`: other files the test made in `dir`. */
export function expectNothingEscaped(s: Scratch, extra: string[] = []): void {
  const sent = readFileSync(s.spy, 'utf8');
  expect(sent).toContain('inside.txt'); // (the spy sees what passed)
  expect(sent).not.toMatch(/escape-|secret/);
  expect(readdirSync(s.outside)).toEqual(['secret.txt']);
  expect(readdirSync(s.dir).sort()).toEqual(['outside', 'root', 'second', 'server-stdin.log', ...extra].sort());
}
