// wrap's exit status, with real processes and real signals: its own failure is exit code 1
// whatever the child does next; otherwise it ends as the child did, except that it never
// kills itself with a signal it passed on (then 128 + the signal's number).
import { spawn } from 'node:child_process';
import { describe, it } from 'vitest';
import { CLI, cli, fixture, ROOT } from './fixtures/cli-session.ts';

const CHILD = fixture('cli-child.mjs');

const wrapSync = (command: string[]) => cli(['wrap', ...command]);

/** Starts `wrap node cli-child.mjs onTerm` and resolves once the child is listening. */
async function started(onTerm: string) {
  const p = spawn(process.execPath, [CLI, 'wrap', process.execPath, CHILD, onTerm], { cwd: ROOT });
  let stderr = '';
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    p.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  await new Promise<void>((resolve, reject) => {
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('ready')) resolve();
    });
    void ended.then((r) => reject(new Error(`wrap ended before its child was ready: ${JSON.stringify(r)}`)));
  });
  return { p, ended };
}

// Each case starts processes of its own and waits on them: the cases run at once.
describe.concurrent('wrap ends as the child did', () => {
  it('re-raises a signal the child died of that wrap did not send (SIGKILL, SIGPIPE, which Node ignores by default)', ({ expect }) => {
    expect(wrapSync([process.execPath, '-e', "process.kill(process.pid, 'SIGKILL')"])).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(wrapSync(['sh', '-c', 'kill -PIPE $$'])).toMatchObject({ code: null, signal: 'SIGPIPE' });
  });

  it('exits 128 + N when the child dies of signal N that wrap passed on, instead of raising it', async ({ expect }) => {
    const { p, ended } = await started('die');
    p.kill('SIGTERM');
    expect(await ended).toMatchObject({ code: 143, signal: null });
  });

  it('127 when the command is not found, with one line on stderr', ({ expect }) => {
    const r = wrapSync(['no-such-command-mcp-payload-codec']);
    expect(r.code).toBe(127);
    expect(r.stderr).toBe('mcp-payload-codec: cannot start no-such-command-mcp-payload-codec: ENOENT\n');
  });
});

describe.concurrent('wrap gives up: exit code 1 whatever the child does', () => {
  // Its own failure here: the client's end of stdout is gone, and the child has something to say.
  for (const onTerm of ['exit0', 'die', 'ignore']) {
    it(`child that on SIGTERM does "${onTerm}"`, async ({ expect }) => {
      const { p, ended } = await started(onTerm);
      p.stdout.destroy();
      p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n');
      const r = await ended;
      expect(r).toMatchObject({ code: 1, signal: null });
      expect(r.stderr).toMatch(/mcp-payload-codec: writing to the client: [^\n]*EPIPE[^\n]*; stopping the server\n/);
      if (onTerm === 'ignore') expect(r.stderr).toContain('child ignores SIGTERM'); // then SIGKILL
    }, 20_000);
  }
});
