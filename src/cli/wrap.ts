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
import { collisionReplies, errorResponse, INVALID_PARAMS } from '../jsonrpc/message.js';
import { collisionIds, messageText } from '../jsonrpc/raw-id.js';
import { createByteTransformer, DEFAULT_MAX_MESSAGE_BYTES, type PayloadStreamError, type StreamOptions } from '../stream/index.js';
import type { AuditFile } from './audit-file.js';
import { CallTimeouts } from './call-timeout.js';
import { ExitStatus, raise } from './exit-status.js';
import { WrapGuard } from './guard.js';
import { HeldLines } from './held-lines.js';
import { LineWriter } from './line-writer.js';
import { RefusedLines, refusalOfLine } from './refused-lines.js';
import { type Reply, replyLine } from './replies.js';
import { localRealpath } from './roots.js';
import { KILL_GRACE_MS, type ServerProcess } from './server-process.js';

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
}

/** Server output is held line by line up to this many bytes (see held-lines.ts). */
const HOLD_LIMIT = 1024 * 1024;
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Where and why, never what: `message 3 (invalid JSON at byte 0; blank lines not counted)`. */
const describeInvalid = (e: PayloadStreamError) =>
  `message ${e.messageNumber} (${e.reason} at byte ${e.byteOffset}; blank lines not counted)`;
const log = (line: string) => process.stderr.write(`mcp-payload-codec: ${line}\n`);
/** A message of the proxy's own to the server: real values (the server's side), never encoded. */
const serverLine = (m: unknown) => new TextEncoder().encode(`${messageText(m)}\n`);
const reasonOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

export function wrap(
  { file, child, startFailed, outputEnded, closed }: ServerProcess,
  { stream: options, guard: guarded, roots, confirm, callTimeoutMs, callTimeoutMaxMs, audit: trail }: WrapOptions,
): Promise<number> {
  const codec = createCodec(options);
  const status = new ExitStatus();
  const toClient = new LineWriter(process.stdout);
  const reply = (r: Reply) => toClient.reply(replyLine(codec, r));

  let killTimer: NodeJS.Timeout | undefined;
  let serverSideOpen = true; // server output still reaches the client
  let clientSideOpen = true;
  const giveUp = (where: string, e: unknown) => {
    if (!status.giveUp(where)) return;
    log(`${where}: ${reasonOf(e)}; stopping the server`);
    process.stdin.pause();
    child.stdin.end();
    status.sentToChild('SIGTERM');
    child.kill('SIGTERM');
    killTimer = setTimeout(() => {
      status.sentToChild('SIGKILL');
      child.kill('SIGKILL');
    }, KILL_GRACE_MS);
  };

  // The trail (audit-file.ts): each line is in the file before the answer it explains leaves.
  // A trail that cannot be written stops the session (no decision goes unrecorded).
  const onAudit =
    trail &&
    ((entry: AuditEntry) => {
      try {
        trail.onAudit(entry);
      } catch (e) {
        giveUp('writing the audit file', e);
      }
    });
  const writeToServer = (b: Uint8Array) => {
    if (!child.stdin.write(b)) process.stdin.pause();
  };
  const timeouts =
    callTimeoutMs === undefined
      ? undefined
      : new CallTimeouts(
          callTimeoutMs,
          callTimeoutMaxMs ?? 10 * callTimeoutMs,
          { reply, toServer: writeToServer, log, onAudit },
          HOLD_LIMIT,
        );
  // What reaches the server from the client (after the guard) is timed; the guard's own asks are not.
  const clientToServer = timeouts ? (b: Uint8Array) => timeouts.toServer(b) : writeToServer;
  let guardWaiting = false;
  const guard = guarded
    ? new WrapGuard(
        codec,
        {
          toServer: clientToServer,
          ownToServer: writeToServer,
          toClient: (b) => toClient.write(b),
          reply,
          log,
          fail: (e) => {
            clientSideOpen = false;
            giveUp('from the client', e);
          },
          // While a check waits (the schema compiler loading), stop reading: lines queue in order.
          busy: (waiting) => {
            guardWaiting = waiting;
            if (waiting) process.stdin.pause();
            else if (!status.failed && !child.stdin.writableNeedDrain) process.stdin.resume();
          },
        },
        {
          tools: true,
          integrity: guarded === 'all',
          onAudit,
          ...(roots ? { roots, realpath: localRealpath } : {}),
          // (the user has as long as the server would: the call time limit, else guard/confirm.ts's default)
          ...(confirm ? { confirm, confirmTimeoutMs: callTimeoutMs } : {}),
        },
      )
    : undefined;
  const held = new HeldLines(guard ? (b) => guard.toClient(b) : (b) => toClient.write(b), HOLD_LIMIT);
  const toServer = guard ? (b: Uint8Array) => guard.fromClient(b) : clientToServer;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // A refused server message whose ids can be read, as for the client's below: the server's
  // requests in it are answered, and the client told when it answered one of the client's.
  const fates = new Map<number, string>();
  const serverRefused = new RefusedLines(HOLD_LIMIT, maxMessageBytes, (e, line) => {
    const { replies, toOtherSideAsSent } = refusalOfLine('server', e, line);
    if (replies) toServer(serverLine(replies));
    if (toOtherSideAsSent) reply(toOtherSideAsSent);
    const told = [replies && 'the server answered', toOtherSideAsSent && 'the client told'].filter(Boolean).join(', ');
    log(`from the server: skipped ${describeInvalid(e)}: ${fates.get(e.messageNumber)}${told && ` (${told})`}; the session goes on`);
    fates.delete(e.messageNumber);
  });
  const encoder = createByteTransformer(
    'encode',
    {
      ...options,
      onInvalidMessage: (e) => {
        fates.set(
          e.messageNumber,
          held.takeBack() === 'streamed'
            ? 'its first MiB had already gone out: the client gets it cut short, spoiled so no JSON parser accepts it'
            : 'not forwarded',
        );
        serverRefused.refuse(e);
      },
    },
    (b) => held.write(b),
  );
  // A refused client message whose ids can be read: its requests are answered, and the server
  // is told when it was an answer to one of its own requests (neither side waits for nothing).
  const refused = new RefusedLines(HOLD_LIMIT, maxMessageBytes, (e, line) => {
    const { replies, toOtherSide } = refusalOfLine('client', e, line);
    for (const m of toOtherSide) toServer(serverLine(m));
    if (replies) reply(replies);
    const told = [replies && 'answered', toOtherSide.length && 'the server told'].filter(Boolean).join(', ');
    log(`from the client: skipped ${describeInvalid(e)}: not forwarded${told && ` (${told})`}; the session goes on`);
  });
  const decoder = createByteTransformer(
    'decode',
    {
      ...options,
      onInvalidMessage: (e) => refused.refuse(e),
      onCollision: (e) => {
        // A response answers the server's own request (sampling, elicitation, roots): the server
        // is told with an error under its id, so it does not wait forever; the client never
        // sent a request with that id (its ids are its own), so it gets nothing.
        // (Each under its id as written: the stream read the texts.)
        const ids = collisionIds(e);
        const failed = (ids.batchResponseIds ?? (e.response ? [ids.id] : [])).filter((id) => id !== undefined);
        for (const id of failed) toServer(serverLine(errorResponse(id, INVALID_PARAMS, e.message)));
        if (failed.length) log(`answered the server with an error for a response from the client: ${e.message}`);
        if (ids.batchIds) {
          const replies = collisionReplies(ids.batchIds, e.message, ids.id);
          if (replies.length) reply(replies);
        } else if (ids.id === undefined) log(`dropped a notification from the client: ${e.message}`);
        else if (!e.response) reply(errorResponse(ids.id, INVALID_PARAMS, e.message));
      },
    },
    toServer,
  );

  // Each direction reports its first error only: its transformer refuses work after that.
  const direction = (where: string, isOpen: () => boolean, close: () => void) => (work: () => void) => {
    if (!isOpen()) return;
    try {
      work();
    } catch (e) {
      close();
      giveUp(where, e);
    }
  };
  const fromServer = direction(
    'from the server',
    () => serverSideOpen,
    () => (serverSideOpen = false),
  );
  const fromClient = direction(
    'from the client',
    () => clientSideOpen,
    () => (clientSideOpen = false),
  );

  process.stdout.on('error', (e) => {
    serverSideOpen = false;
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
    const onward = (b: Uint8Array) => serverRefused.push(b, (d) => encoder.push(d));
    fromServer(() => (timeouts ? timeouts.fromServer(chunk, onward) : onward(chunk)));
    // Once nothing reaches the client, keep draining: a child blocked on a full pipe would never exit.
    if (serverSideOpen && !toClient.ready) {
      child.stdout.pause();
      void toClient.drained().then(() => child.stdout.resume());
    }
  });
  void outputEnded.then(() =>
    fromServer(() => {
      timeouts?.endFromServer((b) => serverRefused.push(b, (d) => encoder.push(d)));
      encoder.close();
      serverRefused.end();
      held.end();
      guard?.endFromServer();
    }),
  );
  process.stdin.on('data', (chunk: Buffer) => fromClient(() => refused.push(chunk, (b) => decoder.push(b))));
  process.stdin.on('end', () => {
    let checked: Promise<void> | undefined;
    fromClient(() => {
      decoder.close();
      refused.end();
      checked = guard?.endFromClient();
    });
    // Lines still waiting for a check reach the server before its stdin ends.
    if (checked) void checked.then(() => child.stdin.end());
    else child.stdin.end();
  });

  const forward = Object.fromEntries(
    FORWARDED_SIGNALS.map((signal) => [
      signal,
      () => {
        status.sentToChild(signal);
        child.kill(signal);
      },
    ]),
  );
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward[signal]!);
  const cleanUp = () => {
    clearTimeout(killTimer);
    timeouts?.stop();
    for (const signal of FORWARDED_SIGNALS) process.removeListener(signal, forward[signal]!);
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
      clearTimeout(killTimer);
      void toClient.end().then(() => {
        cleanUp();
        const ending = status.ending(code, signal);
        resolve('signal' in ending ? raise(ending.signal) : ending.code);
      });
    });
  });
}
