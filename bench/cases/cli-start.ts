// CLI start time: from spawning `mcp-payload-codec wrap cat` to the first byte it forwards
// (the client's first line, echoed by cat through both directions), with and without --guard,
// and `--help`, each beside its floor: cat alone, and a bare Node that prints one byte. Each run
// is a fresh process; the median is shown. ajv loads only when a guard first validates, so none
// of these pay for it. (bench/cli-start.mjs pairs them run by run, with CPU times.)
import { execFileSync } from 'node:child_process';
import { median } from '../harness.ts';
import type { CaseResult } from '../report.ts';

/** Runs in a child: spawns the CLI, writes one line at once, times the first byte back. */
const MEASURE = `
import { spawn } from 'node:child_process';
const [file, ...args] = JSON.parse(process.argv[1]);
const t0 = performance.now();
const p = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
p.stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}\\n');
p.stdout.once('data', () => {
  console.log(JSON.stringify({ ms: performance.now() - t0 }));
  p.stdin.end();
  p.kill();
});
`;

/** `command` (a file and its arguments) from its start to its first byte of output. */
export function startMs(command: string[]): number {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', MEASURE, JSON.stringify(command)], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!).ms as number;
}

export function cliStartResults(quick: boolean): CaseResult[] {
  const runs = quick ? 3 : 9;
  const cli = (...args: string[]) => [process.execPath, 'bin/mcp-payload-codec.js', ...args];
  const row = (name: string, command: string[]): CaseResult => {
    // Interleaving would be fairer still; runs are few and each a fresh process.
    const ms = median(Array.from({ length: runs }, () => startMs(command)));
    return { group: 'system', name, bytes: 0, figure: `${ms.toFixed(1)} ms` };
  };
  return [
    row('CLI start to first forwarded byte: wrap cat (median)', cli('wrap', 'cat')),
    row('CLI start to first forwarded byte: wrap --guard cat (median)', cli('wrap', '--guard', 'cat')),
    row('floor: cat alone, start to first byte (median)', ['cat']),
    row('CLI start to help text: --help (median)', cli('--help')),
    row('floor: node -e "process.stdout.write(\'x\')", start to first byte (median)', [
      process.execPath,
      '-e',
      "process.stdout.write('x')",
    ]),
  ];
}
