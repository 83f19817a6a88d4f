// --root DIR (repeatable): the folders wrap --guard confines path arguments to. Each is taken
// from the working directory and made real (symlinks resolved) at start, so that the check,
// which follows symlinks in arguments (realpath below), compares real paths with real paths.
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Realpath } from '../guard/paths.js';
import type { CommandLine } from './args.js';
import { UsageError } from './usage-error.js';

/** The roots given, as real absolute paths; undefined when none is. */
export function rootsOption({ lists }: CommandLine): string[] | undefined {
  const given = lists.root;
  if (!given) return undefined;
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
