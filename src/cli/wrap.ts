// wrap: runs a stdio MCP server as a child and filters both directions. The server's stdout is
// encoded on its way to the client, the client's input decoded on its way to the server;
// stderr passes through. Everything the proxy writes to the client itself (error answers)
// is encoded too. A line that is not JSON (a server's banner, a client's stray line) is
// dropped with a note on stderr that names its place, never its content, and the session
// goes on; a refused client line whose ids can still be read is answered (see refused-lines.ts).
// How it ends: see exit-status.ts.
import { createCodec } from '../codec/codec.js';
import type { CodecOptions } from '../codec/options.js';
import type { AuditEntry } from '../guard/audit.js';
import type { StreamOptions } from '../stream/index.js';
import type { AuditFile } from './audit-file.js';
import type { CallTimeouts } from './call-timeout.js';
import { type ExitStatus, raise } from './exit-status.js';
import type { WrapGuard } from './guard.js';
import { HeldLines } from './held-lines.js';
import { LineWriter } from './line-writer.js';
import { type Reply, replyLine } from './replies.js';
import { localRealpath } from './roots.js';
import type { ServerProcess } from './server-process.js';
import { clientDirection, HOLD_LIMIT, serverDirection } from './wrap-directions.js';
import type { ChildSignals } from './wrap-signals.js';

export interface WrapOptions {
  stream: CodecOptions & Pick<StreamOptions, 'maxMessageBytes'>;
  /** 'all': tool and integrity guards (--guard); 'tools': the tool guard only (--guard-tools-only). */
  guard: 'all' | 'tools' | false;
  /** --root: real absolute folders the guard confines path arguments to, or 'client' (the roots the client lists). */
  roots?: string[] | 'client';
  /** --confirm: calls the client is asked to confirm first (tool names, 'destructive'). */
  confirm?: string[];
  /** --call-timeout: answer a request the server leaves unanswered this long (see call-timeout.ts). */
  callTimeoutMs?: number;
  /** --call-timeout-max: how long progress may keep a request's timer going in all. */
  callTimeoutMaxMs?: number;
  /** --audit: the file the trail is appended to, opened before the server starts (one JSON line per decision; see guard/audit.ts). */
  audit?: AuditFile;
  /**
   * The code of the parts asked for, loaded only then (wrap-command.ts), so that a plain wrap's
   * start does without it: the guard's with `guard`, the timers' with `callTimeoutMs`.
   */
  code: { WrapGuard?: typeof WrapGuard; CallTimeouts?: typeof CallTimeouts };
}

/** A part's code, which the caller loads when the options ask for the part. */
function loaded<T>(part: T | undefined, name: string): T {
  if (part === undefined) throw new TypeError(`wrap: ${name} was asked for and not loaded`);
  return part;
}

const log = (line: string) => process.stderr.write(`mcp-payload-codec: ${line}\n`);
const reasonOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

/**
 * The trail (audit-file.ts): each line is in the file before the answer it explains leaves. A
 * trail that cannot be written stops the session (no decision goes unrecorded).
 */
const auditWriter = (trail: AuditFile, stop: (e: unknown) => void) => (entry: AuditEntry) => {
  try {
    trail.onAudit(entry);
  } catch (e) {
    stop(e);
  }
};

/** The guard's path confinement and confirmation, from the options that set them. */
const checks = ({ roots, confirm, callTimeoutMs }: Pick<WrapOptions, 'roots' | 'confirm' | 'callTimeoutMs'>) => ({
  ...(roots ? { roots, realpath: localRealpath } : {}),
  // (the user has as long as the server would: the call time limit, else guard/confirm.ts's default)
  ...(confirm ? { confirm, confirmTimeoutMs: callTimeoutMs } : {}),
});

/** One direction's work: it reports its first error only (its transformer refuses work after that). */
class Side {
  open = true;
  constructor(
    private readonly where: string,
    private readonly giveUp: (where: string, e: unknown) => void,
  ) {}

  run(work: () => void): void {
    if (!this.open) return;
    try {
      work();
    } catch (e) {
      this.open = false;
      this.giveUp(this.where, e);
    }
  }
}

export function wrap(
  { file, child, startFailed, outputEnded, closed }: ServerProcess,
  { stream: options, guard: guarded, roots, confirm, callTimeoutMs, callTimeoutMaxMs, audit: trail, code }: WrapOptions,
  /** Its exit status and signals, taken as it started (wrap-command.ts). */
  { status, signals }: { status: ExitStatus; signals: ChildSignals },
): Promise<number> {
  const codec = createCodec(options);
  const toClient = new LineWriter(process.stdout);
  const reply = (r: Reply) => toClient.reply(replyLine(codec, r));

  const giveUp = (where: string, e: unknown) => {
    if (!status.giveUp(where)) return;
    log(`${where}: ${reasonOf(e)}; stopping the server`);
    process.stdin.pause();
    child.stdin.end();
    signals.stop();
  };
  const fromServer = new Side('from the server', giveUp); // (open: server output still reaches the client)
  const fromClient = new Side('from the client', giveUp);

  const onAudit = trail && auditWriter(trail, (e) => giveUp('writing the audit file', e));
  const writeToServer = (b: Uint8Array) => {
    if (!child.stdin.write(b)) process.stdin.pause();
  };
  const timeouts =
    callTimeoutMs === undefined
      ? undefined
      : new (loaded(code.CallTimeouts, 'CallTimeouts'))(
          callTimeoutMs,
          callTimeoutMaxMs ?? 10 * callTimeoutMs,
          { reply, toServer: writeToServer, log, onAudit },
          HOLD_LIMIT,
        );
  // What reaches the server from the client (after the guard) is timed; the guard's own asks are not.
  const clientToServer = timeouts ? (b: Uint8Array) => timeouts.toServer(b) : writeToServer;
  let guardWaiting = false;
  const guard = guarded
    ? new (loaded(code.WrapGuard, 'WrapGuard'))(
        codec,
        {
          toServer: clientToServer,
          ownToServer: writeToServer,
          toClient: (b) => toClient.write(b),
          reply,
          log,
          fail: (e) => {
            fromClient.open = false;
            giveUp('from the client', e);
          },
          // While a check waits (the schema compiler loading), stop reading: lines queue in order.
          busy: (waiting) => {
            guardWaiting = waiting;
            if (waiting) process.stdin.pause();
            else if (!status.failed && !child.stdin.writableNeedDrain) process.stdin.resume();
          },
        },
        { tools: true, integrity: guarded === 'all', onAudit, ...checks({ roots, confirm, callTimeoutMs }) },
      )
    : undefined;
  const held = new HeldLines(guard ? (b) => guard.toClient(b) : (b) => toClient.write(b), HOLD_LIMIT);
  const toServer = guard ? (b: Uint8Array) => guard.fromClient(b) : clientToServer;
  const sinks = { toServer, reply, log };
  const fromServerSide = serverDirection(options, held, sinks);
  const fromClientSide = clientDirection(options, sinks);

  process.stdout.on('error', (e) => {
    fromServer.open = false;
    giveUp('writing to the client', e);
  });
  process.stdin.on('error', (e) => giveUp('reading from the client', e));
  child.stdin.on('drain', () => {
    if (!status.failed && !guardWaiting) process.stdin.resume();
  });
  // The child may exit (or close its stdin) before reading everything: not wrap's failure (its
  // exit status is the child's), but nothing is lost without a word.
  child.stdin.once('error', (e: NodeJS.ErrnoException) => {
    child.stdin.on('error', () => {});
    log(`the server's stdin is closed (${e.code ?? e.message}): what the client sends from now on is not delivered`);
  });

  child.stdout.on('data', (chunk: Buffer) => {
    fromServer.run(() => (timeouts ? timeouts.fromServer(chunk, fromServerSide.push) : fromServerSide.push(chunk)));
    // Once nothing reaches the client, keep draining: a child blocked on a full pipe would never exit.
    if (fromServer.open && !toClient.ready) {
      child.stdout.pause();
      void toClient.drained().then(() => child.stdout.resume());
    }
  });
  void outputEnded.then(() =>
    fromServer.run(() => {
      timeouts?.endFromServer(fromServerSide.push);
      fromServerSide.end();
      guard?.endFromServer();
    }),
  );
  process.stdin.on('data', (chunk: Buffer) => fromClient.run(() => fromClientSide.push(chunk)));
  process.stdin.on('end', () => {
    let checked: Promise<void> | undefined;
    fromClient.run(() => {
      fromClientSide.end();
      checked = guard?.endFromClient();
    });
    // Lines still waiting for a check reach the server before its stdin ends.
    if (checked) void checked.then(() => child.stdin.end());
    else child.stdin.end();
  });

  const cleanUp = () => {
    signals.release();
    timeouts?.stop();
    process.stdin.destroy();
    trail?.close();
  };

  return new Promise((resolve) => {
    void startFailed.then((e) => {
      cleanUp();
      // As env, timeout and shells: 127 if the command is not found, 126 if it cannot run.
      log(`cannot start ${file}: ${e.code ?? e.message}`);
      resolve(e.code === 'ENOENT' ? 127 : 126);
    });
    void closed.then(({ code, signal }) => {
      signals.exited();
      void toClient.end().then(() => {
        cleanUp();
        const ending = status.ending(code, signal);
        resolve('signal' in ending ? raise(ending.signal) : ending.code);
      });
    });
  });
}
