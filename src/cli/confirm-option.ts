// --confirm NAME (repeatable; wrap, serve): the tools the user confirms, 'destructive' for the
// annotated ones (see guard/confirm.ts).
import type { CommandLine } from './args.js';
import { UsageError } from './usage-error.js';

/** The --confirm rule given, checked; undefined when none is. */
export function confirmOption({ lists }: CommandLine, guard: 'all' | 'tools' | false): string[] | undefined {
  const given = lists.confirm;
  given?.forEach((name, i) => {
    if (name === '') throw new UsageError(`--confirm ${i + 1} is empty`);
  });
  if (given && !guard) throw new UsageError('--confirm needs --guard or --guard-tools-only (the tool guard knows the tools)');
  return given;
}
