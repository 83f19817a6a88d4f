// --root DIR (repeatable): the folders a guard confines path arguments to. Where the server runs
// on this machine (wrap, serve), each is taken from the working directory and made real
// (symlinks resolved) at start, so that the check, which follows symlinks in arguments (realpath
// below), compares real paths with real paths. Where it runs elsewhere (proxy, connect), each
// must be absolute and is taken as written: the check is lexical. `--root client` (wrap, serve:
// the guard asks the client itself): the roots the client lists (guard/client-roots.ts), made
// real the same way.
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Realpath, Roots } from '../guard/paths.js';
import type { CommandLine } from './args.js';
import { UsageError } from './usage-error.js';

/** The roots where the server runs here (wrap, serve): as rootsOption, or 'client' (`--root client`: the roots the client lists). */
export function localRootsOption(line: CommandLine): string[] | 'client' | undefined {
  const given = line.lists.root;
  if (!given?.includes('client')) return rootsOption(line);
  if (given.length > 1)
    throw new UsageError('--root client takes the roots the client lists: give no other --root (a folder named client: ./client)');
  return 'client';
}

/** `--root client` where the guard cannot ask the client (proxy, connect). */
const notHere = (given: readonly string[]) => {
  if (given.includes('client')) throw new UsageError('--root client applies to wrap and serve only (a folder named client: ./client)');
};

/** The roots given, as real absolute paths; undefined when none is. */
export function rootsOption({ lists }: CommandLine): string[] | undefined {
  const given = lists.root;
  if (!given) return undefined;
  notHere(given);
  return given.map((dir, i) => {
    if (dir === '') throw new UsageError(`--root ${i + 1} is empty`);
    let real: string;
    try {
      real = realpathSync(resolve(dir));
    } catch (e) {
      throw new UsageError(`--root ${i + 1}: ${(e as NodeJS.ErrnoException).code ?? 'cannot be resolved'}`);
    }
    if (!statSync(real).isDirectory()) throw new UsageError(`--root ${i + 1} is not a folder`);
    return real;
  });
}

/** The roots given as they are written (the server's own paths: absolute, all POSIX or all Windows); undefined when none is. */
export function lexicalRootsOption({ lists }: CommandLine): string[] | undefined {
  const given = lists.root;
  if (!given) return undefined;
  notHere(given);
  given.forEach((dir, i) => {
    if (dir === '') throw new UsageError(`--root ${i + 1} is empty`);
    try {
      new Roots([dir]);
    } catch {
      throw new UsageError(`--root ${i + 1} is not an absolute path (the server runs elsewhere: nothing is resolved here)`);
    }
  });
  try {
    new Roots(given);
  } catch {
    throw new UsageError('--root: give all POSIX paths or all Windows paths, not both');
  }
  return given;
}

/** This machine's realpath, as the guard takes it: undefined for a path that does not exist. */
export const localRealpath: Realpath = (path) => {
  try {
    return realpathSync.native(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
};
