// ajv and the schema compiler load only when a tool guard first validates: `--help`, plain
// `wrap`, `wrap --guard` before any schema is checked, and `import 'mcp-payload-codec/mcp'` do
// not load them. Watched from inside the process: a module hook logs every module resolved
// (ESM), and at exit every module in require.cache (ajv is CommonJS). The last case, where a
// schema IS checked, shows the watch sees ajv when it loads.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, MODULE_LOG_HOOK, ROOT } from './fixtures/cli-session.ts';

const dir = mkdtempSync(join(tmpdir(), 'guard-lazy-'));
const HOOKS = MODULE_LOG_HOOK;
const PRELOAD = `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});
process.on('exit', () => appendFileSync(process.env.MODULE_LOG, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n'));`;
writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
writeFileSync(join(dir, 'preload.mjs'), PRELOAD);

/** A server that answers tools/list with one tool with a schema, and every call with "ok". */
const SERVER = `let b = '';
process.stdin.on('data', (d) => {
  b += d;
  for (let nl; (nl = b.indexOf('\\n')) >= 0; b = b.slice(nl + 1)) {
    const m = JSON.parse(b.slice(0, nl));
    const result = m.method === 'tools/list' ? { tools: [{ name: 't', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }] } : { content: [{ type: 'text', text: 'ok' }] };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
  }
});`;

let run = 0;
/** Every module the process loaded, and its output. */
function modulesOf(args: string[], input = ''): { modules: string; stdout: string } {
  const log = join(dir, `modules-${run++}.log`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'preload.mjs')).href, ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { ...process.env, MODULE_LOG: log },
  });
  expect(r.status).toBe(0);
  return { modules: readFileSync(log, 'utf8'), stdout: r.stdout };
}

const loadsCompiler = (modules: string) => /[\\/]node_modules[\\/](ajv|re2js)[\\/]|schema-compiler/.test(modules);
const line = (m: unknown) => JSON.stringify(m) + '\n';
const LIST = line({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const PING = line({ jsonrpc: '2.0', id: 3, method: 'ping', params: {} });
const CALL = line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 't', arguments: { n: 'x' } } });

describe('ajv loads only when a guard first validates', () => {
  it('not for --help', () => {
    const { modules, stdout } = modulesOf([CLI, 'wrap', '--help']);
    expect(stdout).toContain('Usage');
    expect(modules).toContain('dist/cli.js');
    expect(loadsCompiler(modules)).toBe(false);
  });

  it('not for plain wrap, calls and all', () => {
    const { modules, stdout } = modulesOf([CLI, 'wrap', process.execPath, '-e', SERVER], LIST + CALL);
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(loadsCompiler(modules)).toBe(false);
  });

  it('not for wrap --guard while no schema is checked (no call yet)', () => {
    const { modules, stdout } = modulesOf([CLI, 'wrap', '--guard', process.execPath, '-e', SERVER], PING);
    expect(JSON.parse(stdout).id).toBe(3);
    expect(loadsCompiler(modules)).toBe(false);
  });

  it("not for import 'mcp-payload-codec/mcp' and wrapping a transport", () => {
    const code = `const m = await import('mcp-payload-codec/mcp');
const inner = { start: async () => {}, send: async () => {}, close: async () => {} };
new m.PayloadFilteringTransport(new m.ToolCallGuardTransport(new m.IntegrityGuardTransport(inner)), { side: 'client' });
console.log(Object.keys(m).length);`;
    const { modules } = modulesOf(['--input-type=module', '-e', code]);
    expect(modules).toMatch(/dist[\\/]mcp\.js/);
    expect(loadsCompiler(modules)).toBe(false);
  });

  it('but for wrap --guard once a call is checked against a schema (sent the moment the list is in, loaded or not)', async () => {
    const log = join(dir, 'modules-checked.log');
    writeFileSync(log, '');
    const p = spawn(
      process.execPath,
      ['--import', pathToFileURL(join(dir, 'preload.mjs')).href, CLI, 'wrap', '--guard', process.execPath, '-e', SERVER],
      { cwd: ROOT, env: { ...process.env, MODULE_LOG: log } },
    );
    let stdout = '';
    p.stdout.on('data', (d: Buffer) => {
      const first = !stdout.includes('\n');
      stdout += d.toString();
      if (first && stdout.includes('\n')) p.stdin.end(CALL);
    });
    p.stdin.write(LIST);
    const code = await new Promise((resolve) => p.on('close', resolve));
    expect(code).toBe(0);
    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(answers[1].result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('/n must be number') }] });
    expect(loadsCompiler(readFileSync(log, 'utf8'))).toBe(true);
  });
});
