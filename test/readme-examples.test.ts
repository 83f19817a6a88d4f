// Every ```ts / ```js block of README.md and docs/*.md runs, as a user would run it: in a
// scratch folder whose node_modules maps `mcp-payload-codec` to this package (its built dist/,
// through package.json's exports), one node process per block. Each `// -> value` claim in a
// block is checked (test/readme-blocks.ts), and all of them must have run. A block marked
// `no-run` is not run; the list below says why each one cannot.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { type Block, codeBlocks, isRunnable, prelude, withChecks } from './readme-blocks.ts';

const ROOT = join(import.meta.dirname, '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const blocks = DOCS.flatMap((f) => codeBlocks(f, readFileSync(join(ROOT, f), 'utf8')));
const code = blocks.filter((b) => ['ts', 'js', 'typescript', 'javascript'].includes(b.lang));

/** Why a block cannot run here: every `no-run` block must hold one of these. */
const NOT_RUN: { holds: string; why: string }[] = [
  {
    holds: "new StreamableHTTPClientTransport(new URL('https://example.com/mcp')",
    why: 'connects to a remote MCP server over the network (test/http-fetch.test.ts runs createFilteringFetch against a local one)',
  },
  // docs/DEPLOY.md's snippets run in their own runtimes, in test/runtimes.test.ts.
  { holds: 'Deno.serve(', why: 'runs in Deno' },
  { holds: 'Bun.serve(', why: 'runs in Bun' },
  { holds: 'fetch(request: Request, env: Env)', why: 'a Worker: runs in workerd' },
];

const scratch = mkdtempSync(join(tmpdir(), 'readme-examples-'));
mkdirSync(join(scratch, 'node_modules'));
symlinkSync(ROOT, join(scratch, 'node_modules', 'mcp-payload-codec'));
for (const dep of readdirSync(join(ROOT, 'node_modules'))) {
  if (!dep.startsWith('.')) symlinkSync(join(ROOT, 'node_modules', dep), join(scratch, 'node_modules', dep));
}
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const name = (b: Block) =>
  `${b.file}:${b.line} ${
    b.code
      .split('\n')
      .find((l) => l.trim() && !/^(import|\/\/)/.test(l))
      ?.trim() ?? ''
  }`;

describe('README code examples', () => {
  it('has examples to run, and every block kept from running says why', () => {
    expect(code.filter(isRunnable).length).toBeGreaterThanOrEqual(8);
    // (A parser that found no claims would pass every block: the README states at least these.)
    expect(code.filter(isRunnable).flatMap((b) => withChecks(b).claims).length).toBeGreaterThanOrEqual(20);
    for (const b of code.filter((b) => !isRunnable(b))) {
      expect(
        NOT_RUN.some((n) => b.code.includes(n.holds)),
        `${b.file}:${b.line} is no-run without a reason`,
      ).toBe(true);
      // It still compiles: a block not run is not left to rot into invalid syntax.
      expect(() => transformSync(b.code, { loader: 'ts', format: 'esm' })).not.toThrow();
    }
  });

  it.each(code.filter(isRunnable).map((b) => [name(b), b] as const))(
    '%s',
    async (_, b) => {
      const { code: js, claims } = withChecks(b);
      const file = join(scratch, `block-${b.file.replace(/\W/g, '_')}-${b.line}.mjs`);
      writeFileSync(file, transformSync(`${prelude}\n${js}`, { loader: 'ts', format: 'esm', target: 'node20' }).code);
      const r = await run(file);
      expect(r.stderr, `${b.file}:${b.line}`).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`@@checked ${claims.length}\n`);
    },
    30_000,
  );
});
