// --audit FILE (wrap, serve, proxy, connect): the trail of the guards' decisions, one JSON line
// each (guard/audit.ts), appended to a file private to its owner (mode 0600 when created). An
// existing file that others may read or write is refused: its lines name sessions (which address
// them over HTTP), and lines written by others would be taken for ours. Its group may read it
// (as logrotate's `create 0640` leaves it); what is not a file (/dev/stderr) is not judged.
// A symbolic link to a regular file is refused: whoever can write the folder could point the
// trail at any file of ours (~/.ssh/authorized_keys is 0600 and would take our lines).
// Written synchronously, so each line is in the file before the answer it explains leaves or the
// call goes on; a write that fails throws, and the caller stops what it was about to let through.
import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs';
import type { AuditEntry } from '../guard/audit.js';
import type { CommandLine } from './args.js';
import { UsageError } from './usage-error.js';

export interface AuditFile {
  /** Appends the entry (allowed ones only with --audit-all); throws when it cannot. */
  readonly onAudit: (entry: AuditEntry) => void;
  close(): void;
}

/** Opens FILE for the trail (`all`: --audit-all, allowed calls too); a file that cannot be opened is a usage error. */
export function openAuditFile(file: string, all: boolean): AuditFile {
  const { O_APPEND, O_CREAT, O_WRONLY, O_NOFOLLOW = 0 } = constants;
  const open = (flags: number): number => {
    try {
      return openSync(file, O_WRONLY | O_APPEND | flags, 0o600);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' && flags & O_NOFOLLOW) return -1;
      throw new UsageError(`--audit: cannot open the file (${code ?? (e as Error).message.split('\n')[0]})`);
    }
  };
  let fd = open(O_CREAT | O_NOFOLLOW);
  if (fd < 0) {
    // A link: followed (never creating its target) only to what is not a file (/dev/stderr is
    // one); judged on what was opened, so a link swapped meanwhile changes nothing.
    fd = open(0);
    if (fstatSync(fd).isFile()) {
      closeSync(fd);
      throw new UsageError('--audit: the path is a symbolic link to a file; name the file itself');
    }
  }
  const stat = fstatSync(fd);
  if (process.platform !== 'win32' && stat.isFile() && (stat.mode & 0o007) !== 0) {
    closeSync(fd);
    throw new UsageError(
      `--audit: the file is open to others (mode 0${(stat.mode & 0o777).toString(8)}); chmod o-rwx it, or name a new one`,
    );
  }
  let isOpen = true;
  return {
    onAudit: (entry) => {
      if (entry.decision === 'allowed' && !all) return;
      if (!isOpen) throw new Error('the audit file is closed');
      writeSync(fd, `${JSON.stringify(entry)}\n`);
    },
    close: () => {
      if (isOpen) closeSync(fd);
      isOpen = false;
    },
  };
}

/**
 * --audit and --audit-all of a command whose calls go over HTTP (serve, proxy, connect): a write
 * that fails is said on `log` and thrown, so the call it was about is answered with an error and
 * not let through.
 */
export function auditOption({ values, flags }: CommandLine, log: (line: string) => void): AuditFile | undefined {
  if (values.audit === undefined) return undefined;
  const file = openAuditFile(values.audit, Boolean(flags['audit-all']));
  return {
    onAudit: (entry) => {
      try {
        file.onAudit(entry);
      } catch (e) {
        log(`writing the audit file failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).name}): the call is not let through`);
        throw e;
      }
    },
    close: file.close,
  };
}
