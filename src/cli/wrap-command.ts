// `wrap` from its command line: the options checked and the audit file opened (a usage error
// before anything starts), then the server started at once, before wrap's own code loads (the
// codec and its WASM core, the stream layer; the guard and the call timers only when asked for):
// that loading and the codec's build overlap the server's start, and what the server writes
// meanwhile waits in its stdout (server-process.ts). This module and what it imports statically
// are all that runs before the spawn; keep it small (each module loaded costs the start a little).
import type { CodecOptions } from '../codec/options.js';
import type { StreamOptions } from '../stream/index.js';
import type { CommandLine } from './args.js';
import { openAuditFile } from './audit-file.js';
import { confirmOption } from './confirm-option.js';
import { ExitStatus } from './exit-status.js';
import { callTimeout } from './http-args.js';
import { localRootsOption } from './roots.js';
import { startServer } from './server-process.js';
import { UsageError } from './usage-error.js';
import type { WrapOptions } from './wrap.js';
import { ChildSignals } from './wrap-signals.js';

export async function wrapCommand(
  line: CommandLine,
  options: CodecOptions & Pick<StreamOptions, 'maxMessageBytes'>,
  guard: 'all' | 'tools' | false,
): Promise<number> {
  const roots = localRootsOption(line);
  const timeout = callTimeout(line);
  const confirm = confirmOption(line, guard);
  const [file, ...args] = line.child ?? [];
  if (!file) throw new UsageError('wrap needs the server command (see --help)');
  const audit = line.values.audit === undefined ? undefined : openAuditFile(line.values.audit, Boolean(line.flags['audit-all']));
  // Its signals from before its start: one wrap receives while it starts or loads is passed on
  // (left to its default action, it ended wrap alone: a server that ignores the end of its input
  // outlived it).
  const status = new ExitStatus();
  const signals = new ChildSignals(status);
  let server: ReturnType<typeof startServer>;
  try {
    server = startServer(file, args);
  } catch (e) {
    signals.release();
    throw e;
  }
  signals.attach(server.child);
  let wrap: typeof import('./wrap.js').wrap;
  let code: WrapOptions['code'];
  try {
    const [wrapModule, { buildCodec }, guardCode, timeoutCode] = await Promise.all([
      import('./wrap.js'),
      import('./codec-build.js'),
      guard ? import('./guard.js') : undefined,
      timeout.callTimeoutMs === undefined ? undefined : import('./call-timeout.js'),
    ]);
    // (a term set too large to compile is found only now: a usage error still, the server ended)
    buildCodec(options);
    wrap = wrapModule.wrap;
    code = { WrapGuard: guardCode?.WrapGuard, CallTimeouts: timeoutCode?.CallTimeouts };
  } catch (e) {
    // Stopped as wrap stops it when it gives up (else it outlives the error, and holds this
    // process open with it): its input ended, SIGTERM, SIGKILL later if it ignores that.
    const { child } = server;
    child.stdin.end();
    signals.stop();
    if (child.exitCode !== null || child.signalCode !== null) signals.release();
    else child.once('exit', () => signals.release());
    audit?.close();
    throw e;
  }
  return wrap(
    server,
    {
      stream: options,
      guard,
      ...(audit ? { audit } : {}),
      ...(roots ? { roots } : {}),
      ...timeout,
      ...(confirm ? { confirm } : {}),
      code,
    },
    { status, signals },
  );
}
