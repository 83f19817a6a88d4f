// CLI start time: from spawning `mcp-payload-codec wrap cat` to the first byte it forwards
// (the client's first line, echoed by cat through both directions), with and without --guard,
// and `--help`. Each run is a fresh process; the median is shown. ajv loads only when a guard
// first validates, so none of these pay for it.
import { execFileSync } from 'node:child_process';
import { median } from '../harness.ts';
import type { CaseResult } from '../report.ts';

/** Runs in a child: spawns the CLI, writes one line at once, times the first byte back. */
const MEASURE = `
import { spawn } from 'node:child_process';
const args = JSON.parse(process.argv[1]);
const t0 = performance.now();
const p = spawn(process.execPath, ['bin/mcp-payload-codec.js', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
p.stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}\\n');
p.stdout.once('data', () => {
  console.log(JSON.stringify({ ms: performance.now() - t0 }));
  p.stdin.end();
  p.kill();
});
`;

export function startMs(args: string[]): number {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', MEASURE, JSON.stringify(args)], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!).ms as number;
}

export function cliStartResults(quick: boolean): CaseResult[] {
  const runs = quick ? 3 : 9;
  const row = (name: string, args: string[]): CaseResult => {
    // Interleaving would be fairer still; runs are few and each a fresh process.
    const ms = median(Array.from({ length: runs }, () => startMs(args)));
    return { group: 'system', name, bytes: 0, figure: `${ms.toFixed(1)} ms` };
  };
  return [
    row('CLI start to first forwarded byte: wrap cat (median)', ['wrap', 'cat']),
    row('CLI start to first forwarded byte: wrap --guard cat (median)', ['wrap', '--guard', 'cat']),
    row('CLI start to help text: --help (median)', ['--help']),
  ];
}
